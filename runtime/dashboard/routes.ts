// The dashboard's JSON API under /dashboard/api (session cookie, see guard.ts):
// sign-in and sign-out, the status, recent classifications, live events,
// deliveries, camera cards (camera-cards.ts) and watch folders, and the model packs. The per-clip
// routes (upload, result, highlight, delete) are the API's own handlers
// mounted again under /dashboard (see wiring.ts), so they answer the same JSON.
import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import { z } from 'zod';
import { ApiError } from '../api/errors.js';
import type { Keys } from '../api/auth.js';
import type { WatchFolder } from '../capture/resolve.js';
import type { CameraWatchStatus } from '../capture/watch.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../core/log.js';
import { redactDeep, redactSecrets, redactedUrl, urlOrigin } from '../core/redact.js';
import type { Integrations } from '../delivery/integrations.js';
import { BUNDLED_PACKS } from '../models/manifest.js';
import { modelsActivate, modelsPull, modelsRollback, packStoreOf } from '../models/commands.js';
import type { GatewayOverview } from '../ops/overview.js';
import type { Queryable } from '../store/db.js';
import { toResultJson } from '../store/result-json.js';
import { cameraCards } from './camera-cards.js';
import type { DashboardEvents } from './events.js';
import { requireSameOrigin, sessionGuard } from './guard.js';
import { deliveryKey, deliveryStates, lastCapture, recentClassifications, type DeliveryState } from './queries.js';
import { SESSION_COOKIE, type Sessions } from './sessions.js';
import type { SignInThrottle } from './sign-in-throttle.js';

export interface DashboardRoutesDeps {
  config: Config;
  keys: Keys;
  sessions: Sessions;
  /** tenant id -> its default flow */
  tenants: Map<string, string>;
  db: Queryable;
  status: GatewayOverview;
  events: DashboardEvents;
  integrations: Integrations;
  watchFolders: WatchFolder[];
  /** a watched camera's state and last events; undefined for one not watched */
  watchStatus: (camera: string) => CameraWatchStatus | undefined;
  log: Logger;
}

const json = koaBody({ json: true, jsonStrict: true, jsonLimit: '4kb', multipart: false, urlencoded: false, text: false });

function parse<T>(schema: z.ZodType<T>, ctx: Context): T {
  const parsed = schema.safeParse(ctx.request.body ?? {});
  if (parsed.success) return parsed.data;
  throw new ApiError(400, 'invalid_request', parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; '));
}

const adminOnly = (ctx: Context) => {
  if (ctx.state.session.role !== 'admin') throw new ApiError(403, 'admin_only', 'sign in with an admin key for this');
};

export interface SignInDeps {
  keys: Keys;
  sessions: Sessions;
  throttle: SignInThrottle;
  log: Logger;
}

/**
 * The session cookie: HttpOnly, SameSite=Strict, and Secure when the request
 * came over TLS (directly, or through a trusted proxy: server.trust_proxy).
 * A browser-session cookie (no expiry): the daemon ends the session itself.
 */
function setSessionCookie(ctx: Context, token: string): void {
  ctx.cookies.set(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'strict', path: '/', secure: ctx.secure, overwrite: true, ...(token ? {} : { maxAge: 0 }) });
}

/** The request logger leaves these refusals alone: the sign-in route logs them itself, at most once per address and minute. */
const loggedHere = (ctx: Context) => void ((ctx.state as { refusalLogged?: boolean }).refusalLogged = true);

export function signInRoutes(deps: SignInDeps): Router {
  const router = new Router({ prefix: '/dashboard/api' });
  // Sign-in takes the key in a JSON body (never a URL), from this origin only, so
  // no other site can sign a browser in to a session of its choosing.
  router.post('/session', json, async (ctx) => {
    requireSameOrigin(ctx);
    const address = ctx.ip;
    const wait = deps.throttle.waitS(address);
    if (wait > 0) {
      loggedHere(ctx);
      throw new ApiError(429, 'too_many_sign_ins', `too many failed sign-ins from this address: try again in ${wait} s`, { 'Retry-After': String(wait) });
    }
    const { key } = parse(z.strictObject({ key: z.string().min(1).max(512) }), ctx);
    const admin = deps.keys.isAdmin(key);
    const tenant = admin ? undefined : deps.keys.tenantOf(key);
    if (!admin && !tenant) {
      loggedHere(ctx);
      const failure = deps.throttle.failed(address);
      if (failure.first) deps.log.warn('dashboard sign-in refused: unknown key', { ip: address });
      if (failure.throttled) deps.log.warn('dashboard sign-ins throttled: too many unknown keys from one address', { ip: address, retry_after_s: deps.throttle.waitS(address) });
      throw new ApiError(401, 'unauthorized', 'this key is neither an admin key nor a tenant key');
    }
    const { token, session } = deps.sessions.open(admin ? 'admin' : 'tenant', tenant ?? null, key);
    setSessionCookie(ctx, token);
    deps.log.info('dashboard sign-in', { role: session.role, tenant: session.tenant });
    ctx.body = { role: session.role, tenant: session.tenant };
  });
  return router;
}

export function dashboardRoutes(deps: DashboardRoutesDeps): { router: Router; guard: ReturnType<typeof sessionGuard> } {
  const router = new Router({ prefix: '/dashboard/api' });
  const guard = sessionGuard({ sessions: deps.sessions, tenants: new Set(deps.tenants.keys()) });
  const tenantFilter = (ctx: Context) => ctx.state.session.tenant;

  router.get('/session', (ctx) => {
    const { session } = ctx.state;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      role: session.role,
      tenant: session.tenant,
      tenants: session.tenant ? [session.tenant] : [...deps.tenants.keys()],
      csrf: session.csrf,
    };
  });

  router.delete('/session', (ctx) => {
    deps.sessions.close(ctx.state.session.id);
    deps.events.endSession(ctx.state.session.id);
    setSessionCookie(ctx, '');
    ctx.status = 204;
  });

  router.get('/status', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await deps.status.read();
  });

  router.get('/classifications', async (ctx) => {
    const limit = Math.min(200, Math.max(1, Number(ctx.query.limit) || 50));
    const rows = await recentClassifications(deps.db, tenantFilter(ctx), limit);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { classifications: rows.map(toResultJson) };
  });

  router.get('/events', (ctx) => deps.events.open(ctx));

  router.get('/deliveries', async (ctx) => {
    const tenant = tenantFilter(ctx);
    const states = await deliveryStates(deps.db);
    const empty: DeliveryState = { pending: 0, delivered: 0, last_success_at: null, last_error: null, last_error_at: null, retry_at: null };
    // a webhook's path may be its secret: shown by origin, and so is every URL in its errors
    const shown = (state: DeliveryState, secretUrl?: string) => ({
      ...state, last_error: state.last_error === null ? null : redactSecrets(state.last_error, { originOnly: secretUrl ? [secretUrl] : [] }),
    });
    const integrations = (await deps.integrations.list(tenant ? { tenant } : {})).map((i) => ({
      id: i.id, tenant: i.tenant, flow: i.flow, url: urlOrigin(i.url), source: i.source,
      ...shown(states.get(deliveryKey('webhook', i.id)) ?? empty, i.url),
    }));
    const mqtt = tenant === null && deps.config.mqtt.enabled
      ? { url: redactedUrl(deps.config.mqtt.url), ...shown(states.get(deliveryKey('mqtt', null)) ?? empty) }
      : null;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { integrations, mqtt };
  });

  router.get('/cameras', async (ctx) => {
    const tenant = tenantFilter(ctx);
    const mine = <T extends { tenant: string }>(list: T[]) => list.filter((x) => tenant === null || x.tenant === tenant);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = redactDeep({
      cameras: await cameraCards(deps.db, deps.config, [...deps.tenants.keys()], tenant, deps.watchStatus),
      watch_folders: await Promise.all(mine(deps.watchFolders).map(async (w) => ({
        path: w.path, tenant: w.tenant, camera_id: w.cameraId, last_capture_at: await lastCapture(deps.db, w.tenant, w.cameraId),
      }))),
    });
  });

  // Model packs: the same pack store and checks as `vigil models ...`; the
  // running pipeline swaps to a newly active pack on its next clip.
  router.get('/models', (ctx) => {
    adminOnly(ctx);
    const store = packStoreOf(deps.config);
    const active = store.activeId();
    const rollback = store.history().find((id) => store.get(id)) ?? null;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      active,
      rollback_target: rollback,
      installed: store.installed().map((p) => ({
        id: p.id, name: p.manifest.name, version: p.manifest.version,
        models: p.manifest.models.map((m) => m.id), active: p.id === active, rollback_target: p.id === rollback,
      })),
      available: fs.readdirSync(BUNDLED_PACKS).filter((name) => fs.existsSync(path.join(BUNDLED_PACKS, name, 'manifest.json'))).sort(),
      configured: deps.config.models.pack,
    };
  });

  const packCommand = async (ctx: Context, run: () => Promise<string> | string) => {
    adminOnly(ctx);
    try {
      ctx.body = { active: await run() };
    } catch (err) {
      throw new ApiError(409, 'model_pack', (err as Error).message);
    }
  };
  router.post('/models/pull', json, async (ctx) => {
    const { pack } = parse(z.strictObject({ pack: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/).optional() }), ctx);
    await packCommand(ctx, () => modelsPull(deps.config, { pack }, deps.log.child('models')));
  });
  router.post('/models/activate', json, async (ctx) => {
    const { id } = parse(z.strictObject({ id: z.string().min(1).max(200) }), ctx);
    await packCommand(ctx, () => modelsActivate(deps.config, id));
  });
  router.post('/models/rollback', async (ctx) => {
    await packCommand(ctx, () => modelsRollback(deps.config));
  });

  return { router, guard };
}
