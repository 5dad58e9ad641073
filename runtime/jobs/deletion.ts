// The one deletion path, used by DELETE /api/classify/<id> and by retention:
// hide the row, stop its job, remove its files, then remove its rows. Each step
// is safe to repeat, so a deletion a crash interrupted is finished at start.
import type { EventBus } from '../core/bus.js';
import { isDiskFull } from '../core/disk-full.js';
import type { Logger } from '../core/log.js';
import type { ClassificationStore } from '../store/classifications.js';
import type { MediaFiles } from '../store/media-files.js';

export interface JobCanceller {
  cancel(id: string): Promise<void>;
}

export class Deleter {
  constructor(
    private readonly store: ClassificationStore,
    private readonly files: MediaFiles,
    private readonly jobs: JobCanceller,
    private readonly bus: EventBus,
    private readonly log: Logger,
  ) {}

  async delete(id: string, tenant: string, reason: 'api' | 'retention'): Promise<void> {
    await this.markOrFreeFirst([id], (ids) => this.store.markDeleting(ids[0]));
    await this.jobs.cancel(id);
    await this.files.remove(id);
    await this.store.removeRows(id);
    this.log.info('classification deleted', { id, tenant, reason });
    this.bus.emit('classification.deleted', { id, tenant, reason });
  }

  /**
   * Marks rows deleting. On a full volume SQLite cannot write even that, and
   * deleting is how space comes back: the files go first (a crash right after
   * leaves rows whose media vanished, which the start-up check marks), then the
   * mark is written into the space they freed.
   */
  async markOrFreeFirst(ids: string[], mark: (ids: string[]) => Promise<void>): Promise<void> {
    try {
      await mark(ids);
    } catch (err) {
      if (!isDiskFull(err)) throw err;
      this.log.warn('the data volume is full: removing files before rows', { count: ids.length });
      for (const id of ids) {
        await this.jobs.cancel(id);
        await this.files.remove(id);
      }
      await mark(ids);
    }
  }

  /**
   * The same path for a batch (retention): the rows must already be marked
   * deleting; files go a few at a time, then all rows in one transaction.
   */
  async deleteMarked(items: Array<{ id: string; tenant: string }>, reason: 'api' | 'retention'): Promise<void> {
    for (const { id } of items) await this.jobs.cancel(id);
    for (let i = 0; i < items.length; i += 16) {
      await Promise.all(items.slice(i, i + 16).map(({ id }) => this.files.remove(id)));
    }
    await this.store.removeRowsOf(items.map((i) => i.id));
    for (const { id, tenant } of items) {
      this.log.info('classification deleted', { id, tenant, reason });
      this.bus.emit('classification.deleted', { id, tenant, reason });
    }
  }

  /**
   * Finishes the deletions a stop interrupted (rows still marked deleting, at
   * most a retention batch). Runs at start before retention, whose counts
   * would otherwise include rows already on their way out.
   */
  async finishInterrupted(): Promise<number> {
    const interrupted = await this.store.listDeleting();
    for (const id of interrupted) {
      await this.files.remove(id);
      await this.store.removeRows(id);
    }
    if (interrupted.length) this.log.warn('start-up reconciliation', { deletions_finished: interrupted.length });
    return interrupted.length;
  }
}
