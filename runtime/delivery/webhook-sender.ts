// Sends the outbox's webhook rows (spec 6.2): one POST of the result JSON per
// row. Any response ends the delivery (a non-2xx is recorded, never retried);
// no response means no connectivity, so the row stays pending and the endpoint
// is tried again with backoff, oldest row first, one at a time until it
// answers. Each endpoint has its own slots and backoff, so a slow or dead
// receiver never holds up another, and nothing here ever blocks a job.
import type { EventBus } from '../core/bus.js';
import { deadline } from '../core/deadline.js';
import { errorMessage } from '../core/errors.js';
import type { Feature } from '../core/feature.js';
import type { Logger } from '../core/log.js';
import { CoalescingPump } from '../core/pump.js';
import { redactSecrets, urlOrigin } from '../core/redact.js';
import type { ClassificationStore } from '../store/classifications.js';
import { toResultJson } from '../store/result-json.js';
import { Backoff } from './backoff.js';
import type { Outbox, OutboxRow } from './outbox.js';

export interface WebhookSenderOptions {
  timeoutMs: number;
  /** POSTs in flight at once per endpoint while it answers */
  concurrency: number;
  backoffInitialMs: number;
  backoffMaxMs: number;
}

/** The state of one receiver URL, in memory: after a restart every endpoint gets a fresh try. */
class Endpoint {
  readonly inFlight = new Map<number, { classificationId: string; controller: AbortController }>();
  readonly backoff: Backoff;
  retryAt = 0;

  constructor(initialMs: number, maxMs: number) {
    this.backoff = new Backoff(initialMs, maxMs);
  }
}

/**
 * Where a POST goes and how: user info in the URL (https://user:pw@host/...) is
 * sent as HTTP Basic authorization, since fetch refuses URLs that carry it.
 */
export function webhookRequest(url: string): { target: string; headers: Record<string, string> } {
  const u = new URL(url);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (u.username || u.password) {
    const credentials = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
    headers.authorization = `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
    u.username = '';
    u.password = '';
  }
  return { target: u.toString(), headers };
}

/** Why fetch got no response, in a few words (ECONNREFUSED, timeout, ...). */
function noResponseReason(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return 'timeout: no response in time';
  return e?.cause?.code ?? e?.cause?.message ?? errorMessage(err);
}

export class WebhookSender implements Feature {
  readonly name = 'webhooks';
  private readonly endpoints = new Map<string, Endpoint>();
  private stopping = true;
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeAt = 0;
  private readonly sending = new Set<Promise<void>>();
  private unsubscribe: Array<() => void> = [];

  constructor(
    private readonly outbox: Outbox,
    private readonly store: ClassificationStore,
    private readonly bus: EventBus,
    private readonly options: WebhookSenderOptions,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.stopping = false;
    this.unsubscribe = [
      this.bus.on('result.final', () => this.pump()),
      this.bus.on('outbox.ready', () => this.pump()),
      this.bus.on('classification.deleted', ({ id }) => this.abortFor(id)),
    ];
    this.pump();
  }

  /** In-flight POSTs are abandoned; their rows stay pending for the next start. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const off of this.unsubscribe) off();
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    for (const ep of this.endpoints.values()) for (const f of ep.inFlight.values()) f.controller.abort();
    await Promise.allSettled([...this.sending]);
  }

  /** Starts due rows while endpoints have free slots. */
  private readonly outboxPump = new CoalescingPump(
    () => this.fill(),
    (err) => {
      this.log.error('could not read the outbox', { err });
      this.wakeIn(this.options.backoffInitialMs);
    },
    () => this.stopping,
  );

  private pump(): void {
    this.outboxPump.request();
  }

  private async fill(): Promise<void> {
    if (this.stopping) return;
    const now = Date.now();
    for (const url of await this.outbox.pendingEndpoints()) {
      const ep = this.endpoint(url);
      if (ep.retryAt > now) {
        this.wakeIn(ep.retryAt - now);
        continue;
      }
      // An endpoint that stopped answering is probed with its oldest row alone.
      const slots = (ep.backoff.misses > 0 ? 1 : this.options.concurrency) - ep.inFlight.size;
      if (slots <= 0) continue;
      const rows = await this.outbox.pending('webhook', url, [...ep.inFlight.keys()], slots);
      for (const row of rows) if (!this.stopping) this.launch(ep, row);
    }
  }

  private endpoint(url: string): Endpoint {
    let ep = this.endpoints.get(url);
    if (!ep) this.endpoints.set(url, (ep = new Endpoint(this.options.backoffInitialMs, this.options.backoffMaxMs)));
    return ep;
  }

  private launch(ep: Endpoint, row: OutboxRow): void {
    const controller = new AbortController();
    ep.inFlight.set(row.id, { classificationId: row.classification_id, controller });
    const sending = this.send(ep, row, controller.signal)
      .catch((err) => this.log.error('webhook delivery failed unexpectedly', { delivery: row.id, err }))
      .finally(() => {
        ep.inFlight.delete(row.id);
        this.sending.delete(sending);
        if (!this.stopping) this.pump();
      });
    this.sending.add(sending);
  }

  private async send(ep: Endpoint, row: OutboxRow, cancelled: AbortSignal): Promise<void> {
    const classification = await this.store.get(row.classification_id);
    if (!classification) return; // deleted meanwhile: its rows are going away with it
    const url = row.url!;
    // only the origin is shown: receivers may keep a secret in the URL's path (spec 5)
    const fields = { delivery: row.id, id: row.classification_id, integration: row.integration_id, endpoint: urlOrigin(url) };
    let response: Response;
    // a receiver that never answers holds its delivery no longer than the timeout (core/deadline.ts)
    const due = deadline(cancelled, this.options.timeoutMs);
    try {
      const { target, headers } = webhookRequest(url);
      response = await fetch(target, {
        method: 'POST',
        headers,
        body: JSON.stringify(toResultJson(classification)),
        // a redirect is the receiver's answer, not an instruction to post elsewhere
        redirect: 'manual',
        signal: due.signal,
      });
    } catch (err) {
      if (cancelled.aborted) return; // stopping, or the classification was deleted
      // stored as last_error (shown on the dashboard) and logged: never the URL's path or credentials
      const reason = redactSecrets(noResponseReason(err), { originOnly: [url] });
      const wait = ep.backoff.miss();
      ep.retryAt = Date.now() + wait;
      await this.outbox.markUnanswered(row.id, reason, ep.retryAt);
      this.log.warn('webhook receiver did not answer; the delivery stays pending', { ...fields, reason, attempt: row.attempts + 1, retry_in_ms: wait });
      this.wakeIn(wait);
      return;
    } finally {
      due.clear();
    }
    ep.backoff.reset();
    ep.retryAt = 0;
    await response.body?.cancel().catch(() => {}); // the receiver's body is not interpreted (spec 6.2)
    if (!(await this.outbox.markDelivered(row.id, response.status))) return;
    const outcome = response.ok ? 'delivered' : 'failed_status';
    this.bus.emit('delivery.finished', { target: 'webhook', outcome, statusCode: response.status, latencyMs: Date.now() - row.created_ms });
    if (response.ok) this.log.info('webhook delivered', { ...fields, status: response.status });
    else this.log.warn('webhook receiver answered with an error status; recorded, not retried (spec 6.2)', { ...fields, status: response.status });
  }

  /** A deleted classification is never sent: POSTs already on the way are cut off. */
  private abortFor(classificationId: string): void {
    for (const ep of this.endpoints.values()) {
      for (const f of ep.inFlight.values()) if (f.classificationId === classificationId) f.controller.abort();
    }
  }

  private wakeIn(ms: number): void {
    if (this.stopping) return;
    const at = Date.now() + ms;
    if (this.wakeTimer && this.wakeAt <= at) return;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.pump();
    }, Math.max(0, ms) + 5);
    this.wakeTimer.unref();
  }
}
