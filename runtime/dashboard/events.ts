// Live updates for open dashboards: a server-sent event stream per page that
// carries the same result JSON as GET /api/result/<id> (toResultJson) when a
// clip is accepted, starts and becomes final, the id of a deleted one, and a
// "deliveries" event when a delivery ended (the page then asks for its view),
// and a "camera" event with the id of a watched camera whose state changed.
// A tenant's stream carries only that tenant's classifications. Streams end
// in stop() (else HttpServer.stop() would cut them after 2 s) and when their
// session signs out. Streams hold a connection each without a socket timeout,
// so a session and a tenant (the admin counts as one) may hold only so many.
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { ApiError } from '../api/errors.js';
import type { EventBus } from '../core/bus.js';
import { errorMessage } from '../core/errors.js';
import type { Feature } from '../core/feature.js';
import type { Logger } from '../core/log.js';
import type { ClassificationStore } from '../store/classifications.js';
import { toResultJson } from '../store/result-json.js';
import type { Session } from './sessions.js';

interface Stream {
  session: Session;
  out: PassThrough;
}

/** a comment line this often keeps proxies and phones from closing an idle stream */
const HEARTBEAT_MS = 25_000;
/** a burst of deliveries (one result to several webhooks) makes one "deliveries" event */
const DELIVERIES_MS = 300;

export class DashboardEvents implements Feature {
  readonly name = 'dashboard-events';
  private readonly streams = new Set<Stream>();
  private unsubscribe: Array<() => void> = [];
  private heartbeat: NodeJS.Timeout | undefined;
  private deliveriesSoon: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: {
      bus: EventBus;
      store: Pick<ClassificationStore, 'get'>;
      sessionOpen: (id: string) => boolean;
      /** camera id -> its tenant: a camera's changes go to its own tenant's pages only */
      cameraOwners: Map<string, string>;
      /** streams open at once per session and per tenant */
      limits: { perSession: number; perTenant: number };
      log: Logger;
    },
  ) {}

  async start(): Promise<void> {
    const { bus } = this.deps;
    const sendResult = ({ id, tenant }: { id: string; tenant: string }) => this.sendResult(id, tenant);
    this.unsubscribe = [
      bus.on('job.accepted', sendResult),
      bus.on('job.started', sendResult),
      bus.on('result.final', sendResult),
      bus.on('classification.deleted', ({ id, tenant }) => this.send(tenant, 'deleted', { id })),
      bus.on('delivery.finished', () => this.deliveriesChanged()),
      bus.on('camera.watch', ({ camera }) => {
        const tenant = this.deps.cameraOwners.get(camera);
        if (tenant) this.send(tenant, 'camera', { id: camera });
      }),
    ];
    this.heartbeat = setInterval(() => this.sweep(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  async stop(): Promise<void> {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    clearInterval(this.heartbeat);
    clearTimeout(this.deliveriesSoon);
    for (const stream of this.streams) stream.out.end();
    this.streams.clear();
  }

  /** Answers GET .../events with a stream that lasts until the page, the session or the daemon ends it. */
  open(ctx: Context): void {
    const session: Session = ctx.state.session;
    const { perSession, perTenant } = this.deps.limits;
    const streams = [...this.streams];
    if (streams.filter((s) => s.session.id === session.id).length >= perSession) {
      throw new ApiError(429, 'too_many_streams', `this session already has ${perSession} live-event streams open (dashboard.streams_per_session): close a dashboard tab`);
    }
    if (streams.filter((s) => s.session.tenant === session.tenant).length >= perTenant) {
      throw new ApiError(429, 'too_many_streams', `${session.tenant === null ? 'the admin' : 'this tenant'} already has ${perTenant} live-event streams open (dashboard.streams_per_tenant)`);
    }
    const stream: Stream = { session, out: new PassThrough() };
    this.streams.add(stream);
    const drop = () => {
      this.streams.delete(stream);
      stream.out.end();
    };
    ctx.req.once('close', drop);
    ctx.req.socket.setTimeout(0);
    ctx.req.socket.setNoDelay(true);
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Accel-Buffering', 'no');
    ctx.type = 'text/event-stream';
    ctx.status = 200;
    ctx.body = stream.out;
    stream.out.write('retry: 3000\n: connected\n\n');
  }

  /** Ends the streams of a session that signed out. */
  endSession(sessionId: string): void {
    for (const stream of this.streams) {
      if (stream.session.id === sessionId) {
        this.streams.delete(stream);
        stream.out.end();
      }
    }
  }

  private async sendResult(id: string, tenant: string): Promise<void> {
    if (!this.streams.size) return;
    try {
      const row = await this.deps.store.get(id);
      if (row) this.send(tenant, 'result', toResultJson(row));
    } catch (err) {
      this.deps.log.warn('dashboard event not sent', { id, error: errorMessage(err) });
    }
  }

  private send(tenant: string, event: string, data: unknown): void {
    const text = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const stream of this.streams) {
      if (stream.session.tenant !== null && stream.session.tenant !== tenant) continue;
      stream.out.write(text);
    }
  }

  /**
   * Tells every page that deliveries changed, at most once per DELIVERIES_MS: the
   * page asks GET .../deliveries for its own (tenant's) view, so the event
   * carries nothing of any tenant.
   */
  private deliveriesChanged(): void {
    if (this.deliveriesSoon) return;
    this.deliveriesSoon = setTimeout(() => {
      this.deliveriesSoon = undefined;
      for (const stream of this.streams) stream.out.write('event: deliveries\ndata: {}\n\n');
    }, DELIVERIES_MS);
    this.deliveriesSoon.unref();
  }

  private sweep(): void {
    for (const stream of this.streams) {
      if (!this.deps.sessionOpen(stream.session.id)) this.endSession(stream.session.id);
      else stream.out.write(': heartbeat\n\n');
    }
  }
}
