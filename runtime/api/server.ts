// The HTTP server: small middleware, one concern each, then the routers that
// the daemon mounts, each behind the authentication it declares.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa, { type Middleware } from 'koa';
import type Router from '@koa/router';
import type { EventBus } from '../core/bus.js';
import type { Feature } from '../core/feature.js';
import { withLogFields, type Logger } from '../core/log.js';
import { requireAdmin, requireTenant, type Keys } from './auth.js';
import { errorBody } from './errors.js';

export interface Mount {
  router: Router;
  /** public: no key (health, metrics); tenant: a tenant key; admin: an admin key */
  access: 'public' | 'tenant' | 'admin';
  /** authentication of its own, used instead of the key check of access (the dashboard's session cookie) */
  guard?: Middleware;
}

export interface HttpServerOptions {
  host: string;
  port: number;
  keys: Keys;
  mounts: Mount[];
  log: Logger;
  /** hears of every refused request (request.refused), for the metrics */
  bus?: EventBus;
}

/** A sender's own X-Request-Id is kept when it is a plain token, so its logs and ours line up. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives each request an id (the X-Request-Id header both ways) that every log
 * line written while handling it carries as request_id, and logs its outcome:
 * a warning for each refused request (an error for 5xx) with status, code,
 * tenant when known and remote address, so an installer sees why an NVR's
 * uploads fail. Never the headers, which carry keys.
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
        if (ctx.status >= 400) {
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
  app.proxy = false;
  app.silent = true;
  app.use(requestLog(options.log, options.bus));
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
    const server = http.createServer(app.callback());
    server.requestTimeout = 0; // long uploads and sync waits are bounded by their own limits
    server.keepAliveTimeout = 5000;
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
