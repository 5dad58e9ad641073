// Keeps the store inside its bounds, oldest first, through the one deletion
// path (so rows, clip and highlight go together). Age and count never take a
// result whose delivery is still pending; the media-byte and free-space bounds
// always win and log each undelivered result they drop. Runs are serialized:
// the scheduled prune, the check after each upload and upload admission never
// overlap.
import fs from 'node:fs';
import type { EventBus } from '../core/bus.js';
import type { Logger } from '../core/log.js';
import type { MediaFiles } from '../store/media-files.js';
import type { RetentionLimits } from './config.js';
import type { DiskReader } from '../core/disk-space.js';
import type { Candidate, RetentionQueries } from './retention-queries.js';

/** The deletion path (runtime/jobs/deletion.ts). */
export interface ClassificationDeleter {
  /** deletes rows already marked deleting, files first, in one batch */
  deleteMarked(items: Array<{ id: string; tenant: string }>, reason: 'api' | 'retention'): Promise<void>;
  /** marks rows deleting with `mark`; on a full volume removes their files first to make room for the mark */
  markOrFreeFirst(ids: string[], mark: (ids: string[]) => Promise<void>): Promise<void>;
}

/** Room to make for what is about to arrive. */
export interface Reserve {
  count: number;
  bytes: number;
  /** the tenant it arrives for: its own bounds are checked too */
  tenant?: string;
}

export type Bound = 'max_age' | 'max_count' | 'max_media_bytes' | 'min_free_bytes' | 'tenant_max_count' | 'tenant_max_media_bytes';

export interface PruneReport {
  pruned: number;
  bytesFreed: number;
  undeliveredDropped: number;
  clipsRemoved: number;
  pagesReleased: number;
  /** why the media-byte or free-space bound is still not met (uploads are refused), or null */
  blocked: string | null;
}

export interface PrunerDeps {
  queries: RetentionQueries;
  deleter: ClassificationDeleter;
  files: MediaFiles;
  disk: DiskReader;
  limits: RetentionLimits;
  log: Logger;
  bus?: EventBus;
  now?: () => number;
}

const NO_RESERVE: Reserve = { count: 0, bytes: 0 };

export class Pruner {
  private chain: Promise<unknown> = Promise.resolve();
  private checkQueued = false;
  private stopping = false;
  private underPressure = false;

  constructor(private readonly deps: PrunerDeps) {}

  /** The full prune: age, clip age, count, media bytes, free space, then the database file. */
  prune(): Promise<PruneReport> {
    return this.exclusive(() => this.enforce(true, NO_RESERVE));
  }

  /** The cheap check after an upload or a final result: count, bytes and free space. Checks already waiting absorb it. */
  check(): Promise<PruneReport | undefined> {
    if (this.checkQueued) return Promise.resolve(undefined);
    this.checkQueued = true;
    return this.exclusive(() => {
      this.checkQueued = false;
      return this.enforce(false, NO_RESERVE);
    });
  }

  /**
   * Before an upload is read: makes room for it. Returns null when it fits, or
   * the reason it cannot (the media-byte or free-space bound). Within bounds it
   * only reads the totals and the free space.
   */
  async admit(reserve: Reserve): Promise<string | null> {
    if (!(await this.needsRoom(reserve))) return null;
    return (await this.exclusive(() => this.enforce(false, reserve))).blocked;
  }

  /** Stops between batches and waits for the run in progress. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.chain.catch(() => {});
  }

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const next = this.chain.then(task, task);
    this.chain = next.catch((err) => this.deps.log.error('retention run failed', { err }));
    return next;
  }

  private async needsRoom(reserve: Reserve): Promise<boolean> {
    const { limits, queries, disk } = this.deps;
    const totals = await queries.totals();
    if (limits.maxCount > 0 && totals.count + reserve.count > limits.maxCount) return true;
    if (limits.maxMediaBytes > 0 && totals.mediaBytes + reserve.bytes > limits.maxMediaBytes) return true;
    if (reserve.tenant !== undefined && (limits.tenantMaxCount > 0 || limits.tenantMaxMediaBytes > 0)) {
      const own = (await queries.tenantTotals()).find((t) => t.tenant === reserve.tenant);
      if (own && limits.tenantMaxCount > 0 && own.count + reserve.count > limits.tenantMaxCount) return true;
      if (limits.tenantMaxMediaBytes > 0 && (own?.mediaBytes ?? 0) + reserve.bytes > limits.tenantMaxMediaBytes) return true;
    }
    return (await disk()).freeBytes < limits.minFreeBytes + reserve.bytes;
  }

  private async enforce(full: boolean, reserve: Reserve): Promise<PruneReport> {
    const started = Date.now();
    const report: PruneReport = { pruned: 0, bytesFreed: 0, undeliveredDropped: 0, clipsRemoved: 0, pagesReleased: 0, blocked: null };
    if (full) {
      await this.pruneByAge(report);
      await this.removeOldClips(report);
    }
    await this.pruneTenants(reserve, report);
    await this.pruneByCount(reserve, report);
    await this.pruneByMediaBytes(reserve, report);
    await this.pruneForFreeSpace(reserve, report);
    if (report.pruned > 0 || report.clipsRemoved > 0 || full) report.pagesReleased = await this.deps.queries.vacuum();
    report.blocked = await this.shortfall(reserve);
    await this.notePressure(reserve === NO_RESERVE ? report.blocked : await this.shortfall(NO_RESERVE));
    if (report.pruned || report.clipsRemoved || report.pagesReleased) {
      this.deps.log.info('retention pruned', { ...report, full, duration_ms: Date.now() - started });
    }
    return report;
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  private async pruneByAge(report: PruneReport): Promise<void> {
    const { limits, queries } = this.deps;
    if (limits.maxAgeMs <= 0) return;
    const cutoff = this.now() - limits.maxAgeMs;
    while (!this.stopping) {
      const batch = await queries.oldest(limits.batchSize, { deliveredOnly: true, createdBefore: cutoff });
      if (batch.length === 0) return;
      await this.deleteAll(batch, 'max_age', report);
    }
  }

  /** Removes only the heavy original clip of older results; the result and its highlight stay. */
  private async removeOldClips(report: PruneReport): Promise<void> {
    const { limits, queries, files } = this.deps;
    if (limits.clipMaxAgeMs <= 0) return;
    const cutoff = this.now() - limits.clipMaxAgeMs;
    while (!this.stopping) {
      const batch = await queries.expiredClips(cutoff, limits.batchSize);
      if (batch.length === 0) return;
      for (const { id, filename } of batch) {
        // file first: a crash in between leaves a row whose clip vanished, which the start-up check marks
        await fs.promises.rm(files.clipPath(id, filename), { force: true });
        await queries.markClipDeleted(id);
        report.clipsRemoved++;
      }
    }
  }

  private async pruneByCount(reserve: Reserve, report: PruneReport): Promise<void> {
    const { limits, queries } = this.deps;
    if (limits.maxCount <= 0) return;
    while (!this.stopping) {
      const excess = (await queries.totals()).count + reserve.count - limits.maxCount;
      if (excess <= 0) return;
      const batch = await queries.oldest(Math.min(excess, limits.batchSize), { deliveredOnly: true });
      if (batch.length === 0) return; // the rest is queued or waiting for delivery: kept past the bound
      await this.deleteAll(batch, 'max_count', report);
    }
  }

  /**
   * Each tenant within its own count and byte bounds, pruning only its own oldest:
   * one tenant's burst never evicts another's results. Count keeps pending
   * deliveries past the bound, bytes do not (as the global bounds).
   */
  private async pruneTenants(reserve: Reserve, report: PruneReport): Promise<void> {
    const { limits, queries } = this.deps;
    if (limits.tenantMaxCount <= 0 && limits.tenantMaxMediaBytes <= 0) return;
    const extra = (tenant: string) => (tenant === reserve.tenant ? reserve : NO_RESERVE);
    const ownTotals = async (tenant: string) => (await queries.tenantTotals()).find((t) => t.tenant === tenant) ?? { tenant, count: 0, mediaBytes: 0 };
    for (const { tenant } of await queries.tenantTotals()) {
      if (limits.tenantMaxCount > 0) {
        while (!this.stopping) {
          const excess = (await ownTotals(tenant)).count + extra(tenant).count - limits.tenantMaxCount;
          if (excess <= 0) break;
          const batch = await queries.oldest(Math.min(excess, limits.batchSize), { deliveredOnly: true, tenant });
          if (batch.length === 0) break;
          await this.deleteAll(batch, 'tenant_max_count', report);
        }
      }
      if (limits.tenantMaxMediaBytes > 0) {
        await this.freeUntil('tenant_max_media_bytes', report,
          async () => (await ownTotals(tenant)).mediaBytes + extra(tenant).bytes - limits.tenantMaxMediaBytes, tenant);
      }
    }
  }

  private async pruneByMediaBytes(reserve: Reserve, report: PruneReport): Promise<void> {
    const { limits, queries } = this.deps;
    if (limits.maxMediaBytes <= 0) return;
    await this.freeUntil('max_media_bytes', report, async () => (await queries.totals()).mediaBytes + reserve.bytes - limits.maxMediaBytes);
  }

  private async pruneForFreeSpace(reserve: Reserve, report: PruneReport): Promise<void> {
    const { limits, disk } = this.deps;
    await this.freeUntil('min_free_bytes', report, async () => limits.minFreeBytes + reserve.bytes - (await disk()).freeBytes);
  }

  /**
   * Deletes the oldest final classifications that hold media until `missing()`
   * bytes are won back. When even all of them would not be enough, nothing is
   * deleted: uploads are refused instead of emptying the store for nothing.
   */
  private async freeUntil(bound: Bound, report: PruneReport, missing: () => Promise<number>, tenant?: string): Promise<void> {
    const { limits, queries, log } = this.deps;
    let checkedRecoverable = false;
    while (!this.stopping) {
      const need = await missing();
      if (need <= 0) return;
      if (!checkedRecoverable) {
        const prunable = await queries.prunableBytes(tenant);
        if (prunable < need) {
          log.warn('retention cannot recover the bound by pruning', { bound, tenant, missing_bytes: need, prunable_bytes: prunable });
          return;
        }
        checkedRecoverable = true;
      }
      const candidates = await queries.oldest(limits.batchSize, { deliveredOnly: false, withMedia: true, tenant });
      if (candidates.length === 0) return;
      const batch: Candidate[] = [];
      let sum = 0;
      for (const c of candidates) {
        batch.push(c);
        sum += c.bytes;
        if (sum >= need) break;
      }
      await this.deleteAll(batch, bound, report);
    }
  }

  private async deleteAll(batch: Candidate[], bound: Bound, report: PruneReport): Promise<void> {
    const { queries, deleter, log } = this.deps;
    await deleter.markOrFreeFirst(batch.map((c) => c.id), (ids) => queries.markDeleting(ids));
    for (const c of batch) {
      if (c.pending > 0) {
        log.warn('undelivered result dropped by retention', { id: c.id, tenant: c.tenant, bound, pending_deliveries: c.pending });
        report.undeliveredDropped++;
      }
    }
    await deleter.deleteMarked(batch, 'retention');
    report.pruned += batch.length;
    report.bytesFreed += batch.reduce((sum, c) => sum + c.bytes, 0);
  }

  /** Why the byte or free-space bound is not met with this reserve, or null. */
  private async shortfall(reserve: Reserve): Promise<string | null> {
    const { limits, queries, disk } = this.deps;
    const totals = await queries.totals();
    if (limits.maxMediaBytes > 0 && totals.mediaBytes + reserve.bytes > limits.maxMediaBytes) {
      return `stored media (${totals.mediaBytes} bytes${reserve.bytes ? ` plus this upload's ${reserve.bytes}` : ''}) would exceed retention.max_media_bytes (${limits.maxMediaBytes}) and what is left cannot be pruned yet (queued or processing)`;
    }
    if (reserve.tenant !== undefined && limits.tenantMaxMediaBytes > 0) {
      const own = (await queries.tenantTotals()).find((t) => t.tenant === reserve.tenant)?.mediaBytes ?? 0;
      if (own + reserve.bytes > limits.tenantMaxMediaBytes) {
        return `this tenant's stored media (${own} bytes plus this upload's ${reserve.bytes}) would exceed its bound of ${limits.tenantMaxMediaBytes} bytes (retention.tenant_max_media_bytes) and what is left cannot be pruned yet (queued or processing)`;
      }
    }
    const { freeBytes } = await disk();
    if (freeBytes < limits.minFreeBytes + reserve.bytes) {
      return `the data volume has ${freeBytes} bytes free${reserve.bytes ? ` (this upload needs ${reserve.bytes})` : ''}, below retention.min_free_bytes (${limits.minFreeBytes}), and pruning cannot recover it`;
    }
    return null;
  }

  /** Tells the bus when the store enters or leaves disk pressure (uploads refused with 507). */
  private async notePressure(reason: string | null): Promise<void> {
    const under = reason !== null;
    if (under === this.underPressure) return;
    this.underPressure = under;
    const { freeBytes } = await this.deps.disk();
    if (under) this.deps.log.error('disk pressure: uploads are refused with 507', { reason, free_bytes: freeBytes });
    else this.deps.log.info('disk pressure over: uploads are accepted again', { free_bytes: freeBytes });
    this.deps.bus?.emit('storage.pressure', { underPressure: under, freeBytes, minFreeBytes: this.deps.limits.minFreeBytes, reason: reason ?? '' });
  }
}
