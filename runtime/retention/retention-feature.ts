// The retention feature: at start marks media that vanished and runs a full
// prune (which also applies limits lowered since the last run); node-cron runs
// the full prune on the configured schedule; every accepted upload and final
// result triggers the cheap check, so a burst cannot overshoot between runs.
import cron, { type ScheduledTask } from 'node-cron';
import type { EventBus } from '../core/bus.js';
import type { Feature } from '../core/feature.js';
import type { Logger } from '../core/log.js';
import type { MediaFiles } from '../store/media-files.js';
import type { Pruner } from './pruner.js';
import type { RetentionQueries } from './retention-queries.js';
import { markVanishedMedia } from './vanished-media.js';

export interface RetentionDeps {
  pruner: Pruner;
  queries: RetentionQueries;
  files: MediaFiles;
  bus: EventBus;
  /** node-cron expression of the full prune */
  schedule: string;
  log: Logger;
}

export class Retention implements Feature {
  readonly name = 'retention';
  private task: ScheduledTask | undefined;
  private unsubscribe: Array<() => void> = [];
  /** the start-up check of every row's files and the first prune */
  private startup: Promise<void> = Promise.resolve();

  constructor(private readonly deps: RetentionDeps) {}

  async start(): Promise<void> {
    const { bus, log } = this.deps;
    this.unsubscribe = [
      bus.on('job.accepted', () => this.check()),
      bus.on('result.final', () => this.check()),
    ];
    this.task = cron.schedule(this.deps.schedule, () => this.prune(), {
      name: 'retention',
      noOverlap: true,
      logger: {
        info: (m) => log.debug(m),
        warn: (m) => log.debug(m),
        error: (m) => log.error(String(m)),
        debug: (m) => log.debug(String(m)),
      },
    });
    // Every stored row's files are looked at once, then the first prune runs: in the background,
    // so with a large store (100,000 results) the API is not held up.
    this.startup = markVanishedMedia(this.deps.queries, this.deps.files).then(
      (vanished) => {
        if (vanished.clips || vanished.highlights) log.warn('media files vanished; their rows are marked', { ...vanished });
      },
      (err: unknown) => log.error('could not check the stored media files', { err }),
    ).then(() => this.prune());
    log.info('retention scheduled', { schedule: this.deps.schedule });
  }

  async stop(): Promise<void> {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    await this.task?.destroy();
    await this.startup; // the store is closed after this: nothing may still be writing to it
    await this.deps.pruner.stop();
  }

  private async prune(): Promise<void> {
    try {
      await this.deps.pruner.prune();
    } catch (err) {
      this.deps.log.error('retention prune failed', { err });
    }
  }

  private async check(): Promise<void> {
    try {
      await this.deps.pruner.check();
    } catch (err) {
      this.deps.log.error('retention check failed', { err });
    }
  }
}
