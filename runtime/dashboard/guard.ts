// The dashboard's authentication: the session cookie instead of a bearer key,
// and protection against cross-site requests for every request that changes
// something. SameSite=Strict already keeps the cookie off requests from other
// sites; same-site pages (another port of the gateway, a sibling host) still
// send it, so a changing request must also come from this origin and carry
// the session's CSRF token in a header, which no form and no cross-origin
// script can add without the token.
import type { Context, Middleware } from 'koa';
import { ApiError } from '../api/errors.js';
import { SESSION_COOKIE, sameSecret, type Session, type Sessions } from './sessions.js';

declare module 'koa' {
  interface DefaultState {
    session: Session;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined; // "null" (a sandboxed or file page) matches no host
  }
}

/** Refuses a request that a browser says comes from another origin. */
export function requireSameOrigin(ctx: Context): void {
  const site = ctx.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') {
    throw new ApiError(403, 'cross_site', `refused a ${site} request: the dashboard acts only on requests from its own pages`);
  }
  // Hosts, not schemes, are compared: behind a TLS proxy the page is https and the daemon sees http.
  const origin = ctx.get('origin');
  if (origin && hostOf(origin) !== ctx.host) {
    throw new ApiError(403, 'cross_site', `refused a request from ${origin}: the dashboard acts only on requests from its own pages`);
  }
}

export interface GuardOptions {
  sessions: Sessions;
  /** the configured tenants: an admin session names the tenant it acts on with ?tenant= */
  tenants: ReadonlySet<string>;
}

/**
 * Sets ctx.state.session, and ctx.state.tenant for the tenant-scoped routes:
 * a tenant session's own tenant, or for the admin the ?tenant= it names.
 */
export function sessionGuard(options: GuardOptions): Middleware {
  return async (ctx, next) => {
    const session = options.sessions.find(ctx.cookies.get(SESSION_COOKIE));
    if (!session) throw new ApiError(401, 'unauthorized', 'not signed in (or the session ended): sign in on the dashboard');
    if (!SAFE_METHODS.has(ctx.method)) {
      requireSameOrigin(ctx);
      if (!sameSecret(ctx.get('x-csrf-token'), session.csrf)) {
        throw new ApiError(403, 'csrf', 'missing or wrong X-CSRF-Token: reload the dashboard');
      }
    }
    ctx.state.session = session;
    if (session.tenant) {
      ctx.state.tenant = session.tenant;
    } else {
      const wanted = typeof ctx.query.tenant === 'string' ? ctx.query.tenant : '';
      if (wanted && !options.tenants.has(wanted)) throw new ApiError(400, 'unknown_tenant', `no tenant "${wanted}" is configured`);
      ctx.state.tenant = wanted;
    }
    await next();
  };
}

/** For the classification routes: an admin must say which tenant it acts for. */
export const requireTenantChoice: Middleware = async (ctx, next) => {
  if (!ctx.state.tenant) throw new ApiError(400, 'tenant_required', 'as the admin, name the tenant: ?tenant=<id>');
  await next();
};
