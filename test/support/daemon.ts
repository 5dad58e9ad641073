// Starts the real daemon (`node dist/runtime/cli.js serve`) as a child process
// on a free loopback port with a temporary data folder, for tests that talk to
// it over HTTP. kill() is a kill -9; restart() starts it again on the same data.
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import YAML from 'yaml';
import { PROJECT_ROOT, SHARED_MODELS } from './paths.js';
import { tempDir } from './clips.js';

export interface DaemonOptions {
  /** extra config, deep-merged over the harness's (server, storage, tenants, admin) */
  config?: Record<string, unknown>;
  /** an existing data folder (to restart on it) */
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
  /** another runtime to start (an installed bundle) and the node that runs it */
  runtime?: { node: string; root: string };
  /** how long to wait for "vigil started" (emulated runs start slowly) */
  startTimeoutMs?: number;
}

export interface LogRecord {
  level: string;
  msg: string;
  component: string;
  [key: string]: unknown;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function merge(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [k, v] of Object.entries(extra)) {
    const b = out[k];
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && b && typeof b === 'object' && !Array.isArray(b)
      ? merge(b as Record<string, unknown>, v as Record<string, unknown>)
      : v;
  }
  return out;
}

export class TestDaemon {
  readonly tenantKey = `tenant-a-${crypto.randomBytes(12).toString('hex')}`;
  readonly otherTenantKey = `tenant-b-${crypto.randomBytes(12).toString('hex')}`;
  readonly adminKey = `admin-${crypto.randomBytes(12).toString('hex')}`;
  readonly dataDir: string;
  readonly configFile: string;
  readonly logs: LogRecord[] = [];
  port = 0;
  private child: ChildProcess | undefined;
  private exited: Promise<number | null> | undefined;

  constructor(private readonly options: DaemonOptions = {}) {
    this.dataDir = options.dataDir ?? tempDir('vigil-data-');
    this.configFile = path.join(this.dataDir, '..', `${path.basename(this.dataDir)}.yaml`);
  }

  get pid(): number {
    if (!this.child?.pid) throw new Error('the daemon is not running');
    return this.child.pid;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Headers of the first tenant ("tenant-a"). */
  auth(key = this.tenantKey): Record<string, string> {
    return { authorization: `Bearer ${key}` };
  }

  async start(): Promise<this> {
    if (!this.port) this.port = await freePort();
    const config = merge(
      {
        server: { host: '127.0.0.1', port: this.port },
        storage: { data_dir: this.dataDir },
        tenants: [
          { id: 'tenant-a', api_keys: [this.tenantKey] },
          { id: 'tenant-b', api_keys: [this.otherTenantKey] },
        ],
        admin: { api_keys: [this.adminKey] },
        jobs: { concurrency: 2 },
        log: { level: 'debug' },
        // The shared test models stand in for the upstream model source.
        models: { source: SHARED_MODELS },
      },
      this.options.config ?? {},
    );
    fs.writeFileSync(this.configFile, YAML.stringify(config));
    const { node, root } = this.options.runtime ?? { node: process.execPath, root: PROJECT_ROOT };
    const child = spawn(node, [path.join(root, 'dist/runtime/cli.js'), 'serve', '--config', this.configFile], {
      cwd: root,
      env: { ...process.env, ...this.options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const listening = new Promise<void>((resolve, reject) => {
      let buffer = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        let nl;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          try {
            const record = JSON.parse(line) as LogRecord;
            this.logs.push(record);
            if (record.msg === 'vigil started') resolve();
          } catch {
            /* not a log line */
          }
        }
      });
      child.once('exit', (code) => reject(new Error(`daemon exited with ${code} before it started: ${stderr}`)));
    });
    const startTimeoutMs = this.options.startTimeoutMs ?? 60_000;
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`daemon did not start within ${startTimeoutMs / 1000} s`)), startTimeoutMs).unref(),
    );
    await Promise.race([listening, timeout]);
    return this;
  }

  /** kill -9: no shutdown code runs. */
  async kill(): Promise<void> {
    if (!this.child || this.child.exitCode !== null) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM and wait for a clean exit; returns the exit code. */
  async stop(): Promise<number | null> {
    if (!this.child || this.child.exitCode !== null) return this.child?.exitCode ?? null;
    this.child.kill('SIGTERM');
    return this.exited!;
  }

  async restart(): Promise<this> {
    await this.kill();
    return this.start();
  }

  /** Removes the data folder and config (after stop or kill). */
  async cleanup(): Promise<void> {
    await this.kill();
    fs.rmSync(this.dataDir, { recursive: true, force: true });
    fs.rmSync(this.configFile, { force: true });
  }

  /** Waits until a log record matches, or fails after the timeout. */
  async waitForLog(match: (r: LogRecord) => boolean, timeoutMs = 30_000): Promise<LogRecord> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = this.logs.find(match);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('log record not seen in time');
  }

  // ---- HTTP helpers ---------------------------------------------------------

  /** POSTs a clip file as multipart/form-data with the given fields. */
  async upload(file: string, fields: Record<string, string> = {}, query = '', key = this.tenantKey, headers: Record<string, string> = {}): Promise<Response> {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('video', new Blob([fs.readFileSync(file)]), path.basename(file));
    return fetch(`${this.url}/api/classify${query}`, { method: 'POST', headers: { ...this.auth(key), ...headers }, body: form });
  }

  /** POSTs a clip as upload() does and answers the id of the accepted job; anything but a 202 fails, with what the daemon answered. */
  async submit(...args: Parameters<TestDaemon['upload']>): Promise<string> {
    const res = await this.upload(...args);
    const text = await res.text();
    if (res.status !== 202) throw new Error(`POST /api/classify answered ${res.status}: ${text}`);
    return (JSON.parse(text) as { id: string }).id;
  }

  /**
   * POSTs a clip with sync=true and answers its final result; anything but a 200 with
   * error_code 0 fails, with what the daemon answered.
   */
  async classified(file: string, fields: Record<string, string> = {}, key = this.tenantKey): Promise<Record<string, any>> {
    const res = await this.upload(file, fields, '?sync=true', key);
    const text = await res.text();
    if (res.status !== 200) throw new Error(`POST /api/classify?sync=true answered ${res.status}: ${text}`);
    const result = JSON.parse(text) as Record<string, any>;
    if (result.error_code !== 0) throw new Error(`the classification of ${path.basename(file)} failed with ${result.error_code}: ${result.error_msg}`);
    return result;
  }

  /** Polls GET /api/result/<id> until the result is final (200). */
  async waitForResult(id: string, timeoutMs = 60_000, key = this.tenantKey): Promise<Record<string, any>> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const res = await fetch(`${this.url}/api/result/${id}`, { headers: this.auth(key) });
      if (res.status === 200) return (await res.json()) as Record<string, any>;
      if (res.status !== 202) throw new Error(`GET /api/result/${id} answered ${res.status}: ${await res.text()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`result ${id} not final within ${timeoutMs} ms`);
  }
}

/**
 * One daemon for the tests of the enclosing describe(): started before them with these
 * options, removed after them. Answers a getter for the running daemon.
 */
export function suiteDaemon(options?: DaemonOptions): () => TestDaemon {
  let daemon: TestDaemon | undefined;
  before(async () => {
    daemon = await new TestDaemon(options).start();
  });
  after(async () => {
    await daemon?.cleanup();
  });
  return () => {
    if (!daemon) throw new Error('the suite\'s daemon has not started');
    return daemon;
  };
}
