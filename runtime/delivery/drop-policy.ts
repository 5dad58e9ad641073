// The one way a pending delivery ends without reaching its destination: the
// configured age and count limits of the outbox. Every drop is logged, emitted
// as 'delivery.finished' (outcome 'dropped') and stays visible as a `dropped` row.
import type { EventBus } from '../core/bus.js';
import type { Feature } from '../core/feature.js';
import type { Logger } from '../core/log.js';
import { CoalescingPump } from '../core/pump.js';
import type { OutboxConfig } from './config.js';
import type { Outbox } from './outbox.js';

export class OutboxDropPolicy implements Feature {
  readonly name = 'outbox-drop-policy';
  private timer: NodeJS.Timeout | undefined;
  /** set once by stop: no sweep runs again */
  private stopping = false;
  private unsubscribe: (() => void) | undefined;
  /** rows dropped since start, by reason */
  readonly dropped = new Map<string, number>();
  /** one pass at a time; a request during a pass asks for one more */
  private readonly sweeps = new CoalescingPump(
    () => this.once(),
    (err) => this.log.error('outbox drop policy failed', { err }),
    () => this.stopping,
  );

  constructor(
    private readonly outbox: Outbox,
    private readonly bus: EventBus,
    private readonly config: OutboxConfig,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    await this.sweep();
    // A new final result may push the count over the limit.
    this.unsubscribe = this.bus.on('result.final', () => void this.sweep());
    this.timer = setInterval(() => void this.sweep(), this.config.sweep_interval_s * 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await this.sweeps.idle();
  }

  /** Resolves once the pass it asked for (or the one under way, and the one after it) has ended. */
  sweep(): Promise<void> {
    this.sweeps.request();
    return this.sweeps.idle();
  }

  private async once(): Promise<void> {
    const { max_pending_age_h: ageH, max_pending: max } = this.config;
    if (!ageH && !max) return;
    const dropped = await this.outbox.dropByPolicy(ageH ? Date.now() - ageH * 3600_000 : null, max || null);
    if (!dropped.length) return;
    const byReason: Record<string, number> = {};
    for (const row of dropped) {
      byReason[row.reason] = (byReason[row.reason] ?? 0) + 1;
      this.dropped.set(row.reason, (this.dropped.get(row.reason) ?? 0) + 1);
      this.bus.emit('delivery.finished', { target: row.target, outcome: 'dropped' });
    }
    this.log.warn('pending deliveries dropped by the outbox policy', {
      count: dropped.length,
      by_reason: byReason,
      max_pending_age_h: ageH,
      max_pending: max,
      ids: dropped.slice(0, 20).map((r) => r.classification_id),
    });
  }
}
