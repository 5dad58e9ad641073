// `vigil models ...` and `vigil classify FILE`: the same pack store, puller
// and pipeline as the daemon, without a running daemon. A daemon running on
// the same data folder notices activations and swaps on its next clip.
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { EventBus } from '../core/bus.js';
import type { Logger } from '../core/log.js';
import type { CameraRules } from '../core/analysis.js';
import { probeClip } from '../pipeline/probe.js';
import { bundledManifest } from './manifest.js';
import { ModelService } from './model-service.js';
import { PackStore } from './pack-store.js';
import { pullPack } from './pull.js';

export function packStoreOf(config: Config): PackStore {
  const store = new PackStore(path.resolve(config.storage.data_dir, 'models'));
  store.prepare();
  return store;
}

export interface PullRequest {
  pack?: string;
  source?: string;
  /** install without activating */
  noActivate?: boolean;
}

export async function modelsPull(config: Config, request: PullRequest, log: Logger): Promise<string> {
  const store = packStoreOf(config);
  const manifest = bundledManifest(request.pack ?? config.models.pack);
  const id = await pullPack(manifest, {
    source: request.source ?? config.models.source, store, timeoutMs: config.models.fetch_timeout_s * 1000, log,
  });
  if (!request.noActivate) store.activate(id);
  return id;
}

export function modelsList(config: Config): string {
  const store = packStoreOf(config);
  const active = store.activeId();
  const history = store.history();
  const lines = store.installed().map((p) => {
    const mark = p.id === active ? '*' : history[0] === p.id ? 'r' : ' ';
    return `${mark} ${p.id.padEnd(24)} ${p.manifest.models.map((m) => `${m.id}:${m.file.name}`).join(' ')}`;
  });
  return `${lines.join('\n') || 'no model pack installed: run `vigil models pull`'}\n(* active, r rollback target)\n`;
}

export function modelsActivate(config: Config, id: string): string {
  packStoreOf(config).activate(id);
  return id;
}

export function modelsRollback(config: Config): string {
  return packStoreOf(config).rollback();
}

/** Classifies one clip with the active pack and returns its analysis. */
/** Classifies one clip; with a camera id, with that camera's masks, zones and label filters, as the daemon does for its clips. */
export async function classifyFile(config: Config, file: string, log: Logger, camera?: string) {
  if (camera !== undefined && !config.cameras.some((c) => c.id === camera)) {
    const known = config.cameras.map((c) => c.id);
    throw new Error(`no camera "${camera}" in cameras: of the config (${known.length ? `configured: ${known.join(', ')}` : 'none configured'})`);
  }
  const entry = config.cameras.find((c) => c.id === camera);
  // the rules the daemon applies to the camera's own clips
  const rules: CameraRules | undefined = entry && {
    masks: entry.masks, zones: entry.zones, labels: entry.labels, ...(entry.intrusion_labels ? { intrusionLabels: entry.intrusion_labels } : {}),
  };
  // One clip: one interpreter worker is enough, and its start-up is the fixed cost of the command.
  const inference = { ...config.inference, workers: 1 };
  const service = new ModelService({ models: config.models, inference, dataDir: path.resolve(config.storage.data_dir), oneShot: true }, new EventBus(log), log);
  await service.start();
  // probed while the interpreters load; a bad clip still fails after the load, with the probe's error
  const probing = probeClip(path.resolve(file));
  probing.catch(() => undefined);
  await service.ready();
  try {
    const clip = await probing;
    const lease = await service.acquire();
    try {
      return { clip, analysis: await lease.classifier.classify(clip, new AbortController().signal, rules) };
    } finally {
      lease.release();
    }
  } finally {
    await service.stop();
  }
}
