// The HTTP server: small middleware, one concern each, then the routers that
// the daemon mounts, each behind the authentication it declares.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa, { type Middleware } from 'koa';
import type { Feature } from '../core/feature.js';
import type { Mount } from '../core/http-mount.js';
import { withLogFields, type Logger } from '../core/log.js';
import { requireAdmin, requireTenant, type Keys } from './auth.js';
import type { EventBus } from '../core/bus.js';
import { Refusal } from '../core/errors.js';
import { errorBody } from './errors.js';

export interface HttpServerOptions {
  host: string;
  port: number;
  keys: Keys;
  mounts: Mount[];
  log: Logger;
  /** longest silence allowed between two bytes of a request body (0: none) */
  bodyIdleTimeoutMs?: number;
  /** longest time allowed to receive a request's headers */
  headersTimeoutMs?: number;
  /** told of each refused request (request.refused, for the metrics) and each one closed for stalling */
  bus?: EventBus;
  /** believe a reverse proxy's X-Forwarded-Proto, -Host and -For (server.trust_proxy) */
  trustProxy?: boolean;
}

const stalledAnswer = (message: string) => JSON.stringify({ error: { code: 'request_timeout', message } });

/**
 * A client that stops sending in the middle of a body (a slowloris, a dead NVR)
 * would hold its connection and its upload folder forever: after the idle limit
 * it gets 408 and the connection is closed, which fails the upload and removes
 * what it wrote. Silence after the body is complete (a sync wait, a slow reader
 * of a download) is not a stall.
 */
function bodyIdleLimit(options: Omit<HttpServerOptions, 'host' | 'port'>): Middleware {
  const ms = options.bodyIdleTimeoutMs ?? 0;
  return async (ctx, next) => {
    const { req, res } = ctx;
    if (ms > 0 && !req.complete) {
      req.setTimeout(ms, () => {
        if (req.complete) return void req.setTimeout(0);
        if (res.writableEnded) return void req.destroy(); // answered already (401, 507...): the unread rest is dropped
        options.log.warn('request body stalled; connection closed', { method: ctx.method, path: ctx.path, idle_ms: ms });
        options.bus?.emit('request.stalled', { phase: 'body' });
        const body = stalledAnswer(`no byte of the request body for ${ms / 1000} s (server.body_idle_timeout_s)`);
        const stalled = new Refusal('timeout', 'request_timeout', 'the request body stalled');
        if (res.headersSent) return void req.destroy(stalled);
        res.writeHead(408, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
        res.end(body, () => req.destroy(stalled));
      });
      // the body is in: from here silence is a sync wait or a slow reader, which Node would otherwise cut
      req.once('end', () => req.setTimeout(0));
    }
    await next();
  };
}

/** A sender's own X-Request-Id is kept when it is a plain token, so its logs and ours line up. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives each request an id (the X-Request-Id header both ways) that every log
 * line written while handling it carries as request_id, and logs its outcome:
 * a warning for each refused request (an error for 5xx) with status, code,
 * tenant when known and remote address, so an installer sees why an NVR's
 * uploads fail. Never the headers, which carry keys. A route whose status is
 * its answer (/readyz's 503 "not ready") is no refusal.
 */
function requestLog(log: Logger, bus?: EventBus): Middleware {
  return async (ctx, next) => {
    const given = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(given) ? given : crypto.randomUUID();
    ctx.set('X-Request-Id', requestId);
    // read now: a request cut off mid-upload has no socket any more when it is logged
    const remote = ctx.req.socket?.remoteAddress ?? 'unknown';
    await withLogFields({ request_id: requestId }, async () => {
      const started = Date.now();
      try {
        await next();
      } finally {
        const line = { method: ctx.method, path: ctx.path, status: ctx.status, ms: Date.now() - started };
        const state = ctx.state as { answeredWithStatus?: boolean; refusalLogged?: boolean };
        if (state.refusalLogged) {
          // its route logs such refusals itself, rate-limited (failed sign-ins): a flood is not a flood of lines
          bus?.emit('request.refused', { status: ctx.status, code: (ctx.body as { error?: { code?: string } } | undefined)?.error?.code ?? 'unknown' });
        } else if (ctx.status >= 400 && !state.answeredWithStatus) {
          const code = (ctx.body as { error?: { code?: string } } | undefined)?.error?.code ?? 'unknown';
          const tenant = (ctx.state as { tenant?: string }).tenant;
          const refusal = { ...line, code, ...(tenant ? { tenant } : {}), remote };
          if (ctx.status >= 500) log.error('request refused', refusal);
          else log.warn('request refused', refusal);
          bus?.emit('request.refused', { status: ctx.status, code, tenant });
        } else {
          log.debug('request', line);
        }
      }
    });
  };
}

function guard(access: Mount['access'], keys: Keys): Middleware | undefined {
  if (access === 'tenant') return requireTenant(keys);
  if (access === 'admin') return requireAdmin(keys);
  return undefined;
}

export function buildApp(options: Omit<HttpServerOptions, 'host' | 'port'>): Koa {
  const app = new Koa();
  // One proxy in front at most: its X-Forwarded-* decide scheme, host and client
  // address, and of X-Forwarded-For only the address it appended itself counts.
  app.proxy = options.trustProxy ?? false;
  app.maxIpsCount = 1;
  app.silent = true;
  app.use(requestLog(options.log, options.bus));
  app.use(bodyIdleLimit(options));
  app.use(errorBody(options.log));
  for (const mount of options.mounts) {
    const auth = mount.guard ?? guard(mount.access, options.keys);
    const routes = mount.router.routes();
    const allowed = mount.router.allowedMethods();
    // Authenticate only requests this router would answer, so one router's guard never hides another's paths.
    app.use(async (ctx, next) => {
      const matched = mount.router.match(ctx.path, ctx.method);
      if (!matched.path.length) return next();
      if (auth) return auth(ctx, () => routes(ctx as never, () => allowed(ctx as never, next)));
      return routes(ctx as never, () => allowed(ctx as never, next));
    });
  }
  return app;
}

export class HttpServer implements Feature {
  readonly name = 'http';
  private server: http.Server | undefined;

  constructor(private readonly options: HttpServerOptions) {}

  async start(): Promise<void> {
    const app = buildApp(this.options);
    const headersTimeout = this.options.headersTimeoutMs ?? 20_000;
    // the headers deadline is checked at this interval, so it must be finer than the deadline
    const server = http.createServer({ connectionsCheckingInterval: Math.min(1000, headersTimeout) }, app.callback());
    server.requestTimeout = 0; // long uploads and sync waits are bounded by the body idle limit and their own limits
    server.headersTimeout = headersTimeout;
    server.keepAliveTimeout = 5000;
    server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
      const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
      const headersTooLarge = err.code === 'HPE_HEADER_OVERFLOW';
      if (timedOut) {
        this.options.log.warn('request headers stalled; connection closed', { timeout_ms: headersTimeout });
        this.options.bus?.emit('request.stalled', { phase: 'headers' });
      }
      // what Node answers without a listener, and the same JSON error shape as every answer
      if (socket.writable && !(socket as { _httpMessage?: unknown })._httpMessage) {
        const [status, body] = timedOut
          ? ['408 Request Timeout', stalledAnswer(`the request headers did not arrive within ${headersTimeout / 1000} s (server.headers_timeout_s)`)]
          : headersTooLarge
            ? ['431 Request Header Fields Too Large', JSON.stringify({ error: { code: 'headers_too_large', message: `the request headers are larger than ${http.maxHeaderSize} bytes` } })]
            : ['400 Bad Request', JSON.stringify({ error: { code: 'bad_request', message: 'malformed HTTP request' } })];
        socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      } else socket.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => resolve());
    });
    this.server = server;
    const { address, port } = server.address() as AddressInfo;
    this.options.log.info('listening', { address, port, url: `http://${address.includes(':') ? `[${address}]` : address}:${port}` });
  }

  get port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? 0;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 2000).unref();
    });
  }
}
