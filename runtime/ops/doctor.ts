// `vigil doctor`: checks what the gateway needs, one line each, and says what
// to fix. Read-only: it sends no result anywhere (webhook endpoints get a TCP
// connect, not a POST) and changes no data.
import { redactedUrl, redactSecrets } from '../core/redact.js';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import mqtt from 'mqtt';
import sqlite3 from 'sqlite3';
import type { Config } from '../config/schema.js';
import { diskSpace } from '../core/disk-space.js';
import { silentLogger } from '../core/log.js';
import { trimCHeap } from '../core/memory.js';
import { runTool, spawnsWithoutFork } from '../core/spawn.js';
import { whyUnreachable } from '../core/tcp.js';
import { ffmpegPath, ffprobePath } from '../core/tools.js';
import { checkCamera } from '../capture/camera-check.js';
import { resolveCameras } from '../capture/resolve.js';
import { clientOptions, gatewayIdOf } from '../delivery/mqtt-publisher.js';
import { mqttTopics } from '../delivery/mqtt-topics.js';
import { captionFont } from '../highlight/font.js';
import { chooseBackend, findEdgeTpuLibrary } from '../inference/backends.js';
import { loadPack } from '../models/load-pack.js';
import { packFiles } from '../models/manifest.js';
import { PackStore } from '../models/pack-store.js';


export interface Finding {
  check: string;
  ok: boolean;
  detail: string;
  /** what to do, when not ok */
  fix?: string;
}

type Check = () => Promise<Finding | Finding[]>;

const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;

function withTimeout<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  const timeout = new Promise<never>((_, reject) => {
    setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms).unref();
  });
  return Promise.race([work, timeout]);
}

async function webhookUrls(config: Config, dataDir: string): Promise<string[]> {
  const urls = new Set(config.integrations.map((i) => i.url));
  const dbFile = path.resolve(dataDir, config.storage.database);
  if (fs.existsSync(dbFile)) {
    await new Promise<void>((resolve) => {
      const db = new sqlite3.Database(dbFile, sqlite3.OPEN_READONLY, (err) => {
        if (err) return resolve();
        db.all('SELECT url FROM integrations', (e, rows: Array<{ url: string }>) => {
          if (!e) for (const r of rows) urls.add(r.url);
          db.close(() => resolve());
        });
      });
    });
  }
  return [...urls];
}

export function doctorChecks(config: Config): Array<[string, Check]> {
  const dataDir = path.resolve(config.storage.data_dir);
  return [
    ['ffmpeg', async () => {
      // started as the pipeline starts them (core/spawn.ts)
      const version = async (tool: string) => {
        const answer = await runTool(tool, ['-hide_banner', '-version'], { timeoutMs: 30_000 });
        if (answer.code !== 0) throw new Error(`${path.basename(tool)} -version exited with ${answer.code ?? answer.signal}: ${answer.stderr.trim().split('\n').pop() ?? ''}`);
        return answer.stdout.split('\n')[0]!;
      };
      const how = spawnsWithoutFork() ? 'started by posix_spawn' : 'started by fork (no koffi or glibc here: more CPU per clip)';
      return { check: 'ffmpeg', ok: true, detail: `${await version(ffmpegPath)}; ${await version(ffprobePath)}; ${how}` };
    }],
    ['font', async () => ({ check: 'font', ok: fs.existsSync(captionFont()), detail: captionFont(), fix: 'reinstall the runtime (npm ci installs dejavu-fonts-ttf)' })],
    ['memory', async () => {
      const trims = trimCHeap();
      return {
        check: 'memory', ok: trims,
        detail: trims ? 'free C heap memory is given back once idle (glibc malloc_trim)' : 'the C heap cannot be trimmed here: idle processes keep freed memory',
        fix: 'reinstall the runtime for this architecture (the koffi package calls glibc); a system without glibc cannot trim',
      };
    }],
    ['accelerator', async () => {
      const library = findEdgeTpuLibrary();
      const wantsTpu = config.inference.device === 'edgetpu';
      return {
        check: 'accelerator', ok: !wantsTpu || !!library,
        detail: library ? `libedgetpu found at ${library}` : `no Edge TPU library (inference.device: ${config.inference.device})`,
        fix: 'install libedgetpu1-std and plug in the Coral, or set inference.device to cpu or auto',
      };
    }],
    ['model', async () => {
      const store = new PackStore(path.join(dataDir, 'models'));
      const pack = store.active();
      if (!pack) {
        return { check: 'model', ok: false, detail: 'no model pack is active', fix: `run \`vigil models pull\` (source: ${config.models.source ? redactedUrl(config.models.source) : 'the upstream URLs'})` };
      }
      for (const file of packFiles(pack.manifest)) {
        const where = path.join(pack.dir, file.name);
        const ok = fs.existsSync(where) && crypto.createHash('sha256').update(fs.readFileSync(where)).digest('hex') === file.sha256;
        if (!ok) return { check: 'model', ok: false, detail: `${pack.id}: ${file.name} is missing or corrupt`, fix: `run \`vigil models pull --pack ${pack.manifest.name}\` again` };
      }
      const { backend, reason } = chooseBackend(config.inference.device, pack.manifest);
      const runtime = await loadPack(pack.dir, pack.manifest, { backend, workers: 1, threads: config.inference.threads, timeoutMs: config.inference.timeout_ms, log: silentLogger });
      await runtime.pool.close();
      const speed = Object.entries(runtime.pool.inferMs).map(([m, ms]) => `${m} ${ms.toFixed(1)} ms`).join(', ');
      return { check: 'model', ok: true, detail: `${pack.id} loads and runs on ${backend.name} (${reason}); one inference: ${speed}` };
    }],
    ['disk', async () => {
      fs.mkdirSync(dataDir, { recursive: true });
      const { freeBytes, totalBytes } = await diskSpace(dataDir);
      const min = config.retention.min_free_bytes;
      return {
        check: 'disk', ok: freeBytes >= min, detail: `${dataDir}: ${mb(freeBytes)} free of ${mb(totalBytes)} (minimum ${mb(min)})`,
        fix: 'free space on the data volume, or lower retention.min_free_bytes / retention.max_media_bytes',
      };
    }],
    ['broker', async () => {
      if (!config.mqtt.enabled) return { check: 'broker', ok: true, detail: 'MQTT is off (mqtt.enabled: false)' };
      const options = { ...clientOptions(config.mqtt, mqttTopics(config.mqtt.prefix, gatewayIdOf(config.mqtt))), reconnectPeriod: 0, will: undefined };
      const client = mqtt.connect(config.mqtt.url, { ...options, clientId: `${options.clientId}-doctor` });
      try {
        await withTimeout(8000, redactedUrl(config.mqtt.url), new Promise<void>((resolve, reject) => {
          client.once('connect', () => resolve());
          client.once('error', reject);
        }));
        return { check: 'broker', ok: true, detail: `connected to ${redactedUrl(config.mqtt.url)}` };
      } catch (err) {
        return { check: 'broker', ok: false, detail: `${redactedUrl(config.mqtt.url)}: ${redactSecrets((err as Error).message)}`, fix: 'check mqtt.url, credentials and TLS files, and that the broker runs' };
      } finally {
        client.end(true);
      }
    }],
    // cameras get a connect and one frame read to nowhere (capture/camera-check.ts)
    ['camera', async () => {
      const cameras = resolveCameras(config);
      if (cameras.length === 0) return { check: 'camera', ok: true, detail: 'no camera to record from (none in cameras: has a url)' };
      return Promise.all(cameras.map(async (camera) => ({ check: 'camera', ...(await checkCamera(camera)) })));
    }],
    ['webhooks', async () => {
      const urls = await webhookUrls(config, dataDir);
      if (urls.length === 0) return { check: 'webhooks', ok: true, detail: 'no webhook integration configured' };
      return Promise.all(urls.map(async (raw) => {
        const url = new URL(raw);
        const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
        const err = await whyUnreachable(url.hostname, port, 5000);
        return {
          check: 'webhooks', ok: !err, detail: `${url.origin} ${err ? `unreachable (${err})` : 'reachable'}`,
          fix: 'results wait in the outbox until it answers: check the URL, DNS and the uplink',
        };
      }));
    }],
  ];
}

export async function runDoctor(config: Config): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const [name, check] of doctorChecks(config)) {
    try {
      const out = await check();
      findings.push(...(Array.isArray(out) ? out : [out]));
    } catch (err) {
      findings.push({ check: name, ok: false, detail: (err as Error).message, fix: 'see the message' });
    }
  }
  return findings;
}

export function formatFindings(findings: Finding[]): string {
  return findings.map((f) => `${f.ok ? 'ok  ' : 'FAIL'}  ${f.check.padEnd(12)} ${f.detail}${f.ok || !f.fix ? '' : `\n      -> ${f.fix}`}`).join('\n') + '\n';
}
