// Bearer-key authentication: a tenant key opens the tenant's classifications,
// an admin key opens the admin API. Keys are compared by hash, never logged.
import crypto from 'node:crypto';
import type { Middleware } from 'koa';
import { ApiError } from './errors.js';

export interface KeyRing {
  /** key -> tenant id */
  tenants: Map<string, string>;
  admin: Set<string>;
}

const digest = (key: string) => crypto.createHash('sha256').update(key).digest('hex');

export class Keys {
  private readonly tenantByDigest = new Map<string, string>();
  private readonly adminDigests = new Set<string>();

  constructor(ring: KeyRing) {
    for (const [key, tenant] of ring.tenants) this.tenantByDigest.set(digest(key), tenant);
    for (const key of ring.admin) this.adminDigests.add(digest(key));
  }
  tenantOf(key: string): string | undefined {
    return this.tenantByDigest.get(digest(key));
  }
  isAdmin(key: string): boolean {
    return this.adminDigests.has(digest(key));
  }
}

function bearer(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

declare module 'koa' {
  interface DefaultState {
    tenant: string;
    /** the classification id of the request path, once checked */
    id: string;
  }
}

export function requireTenant(keys: Keys): Middleware {
  return async (ctx, next) => {
    const key = bearer(ctx.get('authorization'));
    if (!key) throw new ApiError(401, 'unauthorized', 'missing API key: send Authorization: Bearer <key>');
    const tenant = keys.tenantOf(key);
    if (!tenant) throw new ApiError(401, 'unauthorized', 'unknown API key');
    ctx.state.tenant = tenant;
    await next();
  };
}

export function requireAdmin(keys: Keys): Middleware {
  return async (ctx, next) => {
    const key = bearer(ctx.get('authorization'));
    if (!key) throw new ApiError(401, 'unauthorized', 'missing admin key: send Authorization: Bearer <admin key>');
    if (!keys.isAdmin(key)) throw new ApiError(401, 'unauthorized', 'not an admin key');
    await next();
  };
}
