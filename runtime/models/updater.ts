// Checks the model source on a cron schedule for a newer version of the
// configured pack (a manifest published at <source>/<pack>/manifest.json, or
// the one shipped with the runtime), pulls and verifies it, and activates it.
// The model service notices the activation and swaps.
import { redactedUrl } from '../core/redact.js';
import cron, { type ScheduledTask } from 'node-cron';
import type { Feature } from '../core/feature.js';
import type { Logger } from '../core/log.js';
import type { ModelsConfig } from './config.js';
import type { Manifest } from '../core/model-manifest.js';
import { bundledManifest, compareVersions } from './manifest.js';
import type { PackStore } from './pack-store.js';
import { publishedManifest, pullPack } from './pull.js';

export type UpdateOutcome = { updated: false; reason: string } | { updated: true; id: string };

/** One check: pulls and activates a newer pack when there is one. */
export async function checkForUpdate(config: ModelsConfig, store: PackStore, log: Logger): Promise<UpdateOutcome> {
  const timeoutMs = config.fetch_timeout_s * 1000;
  const candidates: Manifest[] = [bundledManifest(config.pack)];
  const published = await publishedManifest(config.source, config.pack, timeoutMs);
  if (published) candidates.push(published);
  const newest = candidates.sort((a, b) => compareVersions(b.version, a.version))[0]!;
  const active = store.active();
  if (active && active.manifest.name === newest.name && compareVersions(newest.version, active.manifest.version) <= 0) {
    return { updated: false, reason: `${active.id} is the newest` };
  }
  const id = await pullPack(newest, { source: config.source, store, timeoutMs, log });
  store.activate(id);
  store.prune(config.keep);
  log.info('model pack updated', { pack: id, previous: active?.id ?? null });
  return { updated: true, id };
}

export class ModelUpdater implements Feature {
  readonly name = 'model-updates';
  private task: ScheduledTask | undefined;
  private running = false;

  constructor(
    private readonly config: ModelsConfig,
    private readonly store: () => PackStore,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    if (!this.config.update_schedule) return;
    this.task = cron.schedule(this.config.update_schedule, () => void this.check(), { noOverlap: true });
    this.log.info('model updates scheduled', { schedule: this.config.update_schedule, source: this.config.source ? redactedUrl(this.config.source) : 'upstream URLs' });
  }

  async stop(): Promise<void> {
    await this.task?.stop();
    this.task = undefined;
  }

  async check(): Promise<UpdateOutcome | undefined> {
    if (this.running) return undefined;
    this.running = true;
    try {
      return await checkForUpdate(this.config, this.store(), this.log);
    } catch (err) {
      this.log.error('model update failed: the active pack stays', { err: (err as Error).message });
      return undefined;
    } finally {
      this.running = false;
    }
  }
}
