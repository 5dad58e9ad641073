// Builds the dashboard for the composition root: its mounts on the one HTTP
// server (the page and sign-in, its JSON API, and the API's per-clip routes
// again under /dashboard behind the session cookie) and its live-event feature.
import type Router from '@koa/router';
import type { Keys } from '../api/auth.js';
import { classificationRoutes, type ClassificationRoutesDeps } from '../api/classification-routes.js';
import { cameraOwners, resolveWatchFolders } from '../capture/resolve.js';
import type { CameraWatchStatus } from '../capture/watch.js';
import type { Config } from '../config/schema.js';
import type { Feature } from '../core/feature.js';
import type { Mount } from '../core/http-mount.js';
import type { Logger } from '../core/log.js';
import { Integrations } from '../delivery/integrations.js';
import type { GatewayOverview } from '../ops/overview.js';
import type { Database } from '../store/db.js';
import { DashboardEvents } from './events.js';
import { requireTenantChoice } from './guard.js';
import { pageRoutes } from './page.js';
import { dashboardRoutes, signInRoutes } from './routes.js';
import { Sessions } from './sessions.js';
import { SignInThrottle } from './sign-in-throttle.js';

export interface DashboardDeps {
  keys: Keys;
  /** tenant id -> its default flow */
  tenants: Map<string, string>;
  db: Database;
  status: GatewayOverview;
  classification: Omit<ClassificationRoutesDeps, 'prefix'>;
  /** POST /dashboard/api/cameras/<id>/capture: the capture route under /dashboard */
  capture: Router;
  /** a watched camera's state and last events (capture/watch.ts); undefined for one not watched */
  watchStatus: (camera: string) => CameraWatchStatus | undefined;
  log: Logger;
}

export function buildDashboard(config: Config, deps: DashboardDeps): { features: Feature[]; mounts: Mount[] } {
  const log = deps.log.child('dashboard');
  const limits = config.dashboard;
  const sessions = new Sessions({ maxAgeMs: limits.session_max_age_h * 3600_000, perKey: limits.sessions_per_key });
  const events = new DashboardEvents({
    bus: deps.classification.bus, store: deps.classification.store, sessionOpen: (id) => sessions.isOpen(id), cameraOwners: cameraOwners(config),
    limits: { perSession: limits.streams_per_session, perTenant: limits.streams_per_tenant }, log,
  });
  const api = dashboardRoutes({
    config, keys: deps.keys, sessions, tenants: deps.tenants, db: deps.db, status: deps.status, events,
    integrations: new Integrations(deps.db),
    watchFolders: resolveWatchFolders(config),
    watchStatus: deps.watchStatus,
    log,
  });
  const perClip = classificationRoutes({ ...deps.classification, prefix: '/dashboard' });
  return {
    features: [events],
    mounts: [
      { access: 'public', router: pageRoutes() },
      { access: 'public', router: signInRoutes({ keys: deps.keys, sessions, throttle: new SignInThrottle(limits.sign_in_failures_per_min), log }) },
      { access: 'tenant', guard: api.guard, router: api.router },
      { access: 'tenant', guard: (ctx, next) => api.guard(ctx, () => requireTenantChoice(ctx, next)), router: perClip },
      { access: 'tenant', guard: (ctx, next) => api.guard(ctx, () => requireTenantChoice(ctx, next)), router: deps.capture },
    ],
  };
}
