// The job runner: takes queued jobs from the durable queue with bounded
// concurrency, so a burst of uploads waits in SQLite instead of spawning a
// process per clip. A job is in the queue until its result is final, so a
// crash at any point only means the job runs again after the restart.
import type { EventBus } from '../core/bus.js';
import { isDiskFull } from '../core/disk-full.js';
import { CancelledError } from '../core/errors.js';
import { CoalescingPump } from '../core/pump.js';
import type { Feature } from '../core/feature.js';
import type { QueuedJob } from '../store/classifications.js';
import { processJob, type JobContext } from './process-job.js';

/** Why a running job's signal fired. */
class ShutdownAbort extends Error {
  constructor() {
    super('the daemon is stopping');
    this.name = 'ShutdownAbort';
  }
}

export interface RunnerOptions {
  concurrency: number;
  shutdownGraceMs: number;
  /** no job starts before this resolves (the start-up reconciliation of the media folders) */
  holdUntil?: () => Promise<void>;
}

/** After a store failure (a full volume, a locked file) the queue is tried again, waiting longer each time up to the maximum. */
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 15_000;

export class JobRunner implements Feature {
  readonly name = 'jobs';
  /** every job in progress; `classifying` ones hold a slot, the others are rendering their highlight */
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void>; classifying: boolean; tenant: string }>();
  /** when each tenant last got a slot (a claim counter), for round robin between tenants */
  private readonly lastServed = new Map<string, number>();
  private claims = 0;
  private stopping = true;
  private unsubscribe: (() => void) | undefined;
  /** jobs whose run failed in the store: put back in the queue by the next retry, with whether the attempt counts */
  private readonly toRequeue = new Map<string, boolean>();
  private retryTimer: NodeJS.Timeout | undefined;
  private requeueDue = false;
  private retryDelayMs = RETRY_FIRST_MS;
  /** set when a job or the queue failed on a full volume; cleared when a job is final again */
  private spaceWait = false;

  constructor(
    private readonly ctx: JobContext,
    private readonly bus: EventBus,
    private readonly options: RunnerOptions,
  ) {}

  async start(): Promise<void> {
    const requeued = await this.ctx.store.requeueInterrupted();
    if (requeued) this.ctx.log.warn('jobs interrupted by a previous stop were queued again', { count: requeued });
    this.stopping = false;
    const hold = this.options.holdUntil?.();
    if (!hold) return this.listen();
    // in the background: uploads are accepted and queued meanwhile
    void hold.then(() => {
      if (!this.stopping) this.listen();
    });
  }

  private listen(): void {
    this.unsubscribe = this.bus.on('job.accepted', () => this.pump());
    this.pump();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const jobs = [...this.running.values()];
    if (jobs.length === 0) return;
    this.ctx.log.info('waiting for running jobs', { count: jobs.length, grace_ms: this.options.shutdownGraceMs });
    const all = Promise.all(jobs.map((j) => j.done));
    const grace = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), this.options.shutdownGraceMs).unref());
    if ((await Promise.race([all, grace])) === 'timeout') {
      for (const job of this.running.values()) job.controller.abort(new ShutdownAbort());
      await all;
    }
  }

  /** Jobs are stuck on a full data volume: uploads are refused until one ends again (admission asks). */
  get waitingForSpace(): boolean {
    return this.spaceWait;
  }

  get activeCount(): number {
    return this.running.size;
  }

  private get busySlots(): number {
    let n = 0;
    for (const job of this.running.values()) if (job.classifying) n++;
    return n;
  }

  /** Stops a running job (its child processes are killed) and waits until it has let go. */
  async cancel(id: string): Promise<void> {
    const job = this.running.get(id);
    if (!job) return;
    job.controller.abort(new CancelledError('the classification was deleted'));
    await job.done;
  }

  /** Starts queued jobs while there are free slots. */
  private readonly queuePump = new CoalescingPump(
    async () => {
      const retrying = this.requeueDue && this.toRequeue.size > 0;
      if (this.requeueDue) {
        for (const [id, countAttempt] of this.toRequeue) {
          await this.ctx.store.requeue(id, countAttempt);
          this.toRequeue.delete(id);
        }
        this.requeueDue = false;
      }
      while (!this.stopping && this.busySlots < this.options.concurrency) {
        const job = await this.ctx.store.claimNext((candidates) => this.fairest(candidates));
        if (!job) break;
        this.lastServed.set(job.tenant, ++this.claims);
        this.launch(job.id, job.attempts, job.tenant);
      }
      if (!retrying && this.toRequeue.size === 0) this.retryDelayMs = RETRY_FIRST_MS;
    },
    (err) => {
      if (isDiskFull(err)) this.spaceWait = true;
      this.ctx.log.error('could not take jobs from the queue; trying again', { err, retry_in_ms: this.retryDelayMs });
      this.retryLater();
    },
    () => this.stopping,
  );

  /** The queue resumes by itself once the store can be written again (space came back). */
  private retryLater(): void {
    if (this.stopping || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.requeueDue = true;
      this.pump();
    }, this.retryDelayMs);
    this.retryDelayMs = Math.min(this.retryDelayMs * 2, RETRY_MAX_MS);
  }

  private pump(): void {
    this.queuePump.request();
  }

  /**
   * Fair share between tenants: the next slot goes to the tenant classifying the
   * fewest clips now, then to the one served longest ago, so a burst of one NVR's
   * tenant waits behind itself, not in front of the others.
   */
  private fairest(candidates: QueuedJob[]): QueuedJob {
    const busy = new Map<string, number>();
    for (const job of this.running.values()) if (job.classifying) busy.set(job.tenant, (busy.get(job.tenant) ?? 0) + 1);
    const key = (c: QueuedJob): [number, number, number] => [busy.get(c.tenant) ?? 0, this.lastServed.get(c.tenant) ?? 0, c.enqueuedMs];
    return candidates.reduce((best, c) => {
      const [a, b] = [key(c), key(best)];
      for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? c : best;
      return best;
    });
  }

  private launch(id: string, attempts: number, tenant: string): void {
    const controller = new AbortController();
    const entry = { controller, done: Promise.resolve(), classifying: true, tenant };
    this.running.set(id, entry);
    const classified = () => {
      entry.classifying = false;
      this.pump();
    };
    entry.done = this.execute(id, attempts, controller.signal, classified).finally(() => {
      this.running.delete(id);
      this.pump();
    });
  }

  private async execute(id: string, attempts: number, signal: AbortSignal, classified: () => void): Promise<void> {
    const log = this.ctx.log;
    try {
      const row = await this.ctx.store.get(id);
      if (!row) return;
      log.debug('job started', { id, attempt: attempts, running: this.busySlots });
      this.bus.emit('job.started', { id, tenant: row.tenant });
      const final = await processJob(this.ctx, id, attempts, signal, classified);
      if (final) {
        this.spaceWait = false;
        log.info('classification final', { id, error_code: final.errorCode });
        this.bus.emit('result.final', { id, ...final });
      }
    } catch (err) {
      if (err instanceof ShutdownAbort) {
        await this.ctx.store.requeue(id).catch(() => {});
        log.info('job put back in the queue for the next start', { id });
      } else if (err instanceof CancelledError) {
        log.info('job cancelled', { id, reason: err.message });
      } else {
        // The store failed (or a full volume under the render): the job goes back to the queue and
        // is tried again later. A full volume is not the clip's fault and costs no attempt; anything
        // else counts, so a job that always fails ends with 9001 after jobs.max_attempts.
        const full = isDiskFull(err);
        if (full) this.spaceWait = true;
        log.error('job failed in the store; it will be tried again', { id, err, disk_full: full });
        this.toRequeue.set(id, !full);
        this.retryLater();
      }
    }
  }
}
