// Dashboard sign-in sessions. A browser signs in once with an admin or tenant
// key and then holds only a random session token in an HttpOnly, SameSite=Strict
// cookie, so the key never sits in a URL, in page script or in the browser's
// storage. Tokens are kept hashed, like the keys (api/auth.ts), and live in
// memory: a restart signs everyone out, which an appliance can afford. Each key
// holds a bounded number of sessions of its own, so signing in in a loop with
// one key ends only that key's oldest sessions, never the admin's or another
// tenant's; and every session ends after an absolute lifetime however busy.
import crypto from 'node:crypto';

export interface Session {
  /** sha256 of the cookie's token */
  id: string;
  role: 'admin' | 'tenant';
  /** the tenant of a tenant session; null for the admin, who sees every tenant */
  tenant: string | null;
  /** sent back by the page in X-CSRF-Token on every request that changes something */
  csrf: string;
  /** sha256 of the key that signed in: the sessions of one key are bounded together */
  keyId: string;
  createdMs: number;
  /** the end of its idle time; it ends at createdMs + the absolute lifetime at the latest */
  expiresMs: number;
}

export interface SessionLimits {
  /** the absolute lifetime of a session, however often it is used */
  maxAgeMs: number;
  /** sessions one key holds at most; the key's oldest goes first */
  perKey: number;
}

export const SESSION_COOKIE = 'vigil_session';
/** a session ends this long after its last use */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const DEFAULT_SESSION_LIMITS: SessionLimits = { maxAgeMs: 7 * 24 * 60 * 60 * 1000, perKey: 20 };

const digest = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

export class Sessions {
  /** in the order they were opened */
  private readonly byId = new Map<string, Session>();

  constructor(
    private readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Opens a session for the key that signed in; returns the cookie token (never stored) and the session. */
  open(role: Session['role'], tenant: string | null, key: string): { token: string; session: Session } {
    const now = this.now();
    const token = crypto.randomBytes(32).toString('base64url');
    const session: Session = {
      id: digest(token), role, tenant, csrf: crypto.randomBytes(24).toString('base64url'),
      keyId: digest(key), createdMs: now, expiresMs: now + SESSION_IDLE_MS,
    };
    // ended sessions go, then this key's oldest ones beyond its bound (only this key's)
    const own: Session[] = [];
    for (const s of this.byId.values()) {
      if (!this.live(s, now)) this.byId.delete(s.id);
      else if (s.keyId === session.keyId) own.push(s);
    }
    for (const old of own.slice(0, Math.max(0, own.length - this.limits.perKey + 1))) this.byId.delete(old.id);
    this.byId.set(session.id, session);
    return { token, session };
  }

  /** The live session of a cookie token (its idle time starts again), or undefined. */
  find(token: string | undefined): Session | undefined {
    if (!token) return undefined;
    const session = this.byId.get(digest(token));
    if (!session) return undefined;
    const now = this.now();
    if (!this.live(session, now)) {
      this.byId.delete(session.id);
      return undefined;
    }
    session.expiresMs = now + SESSION_IDLE_MS;
    return session;
  }

  close(id: string): void {
    this.byId.delete(id);
  }

  isOpen(id: string): boolean {
    const s = this.byId.get(id);
    return !!s && this.live(s, this.now());
  }

  private live(s: Session, now: number): boolean {
    return s.expiresMs > now && s.createdMs + this.limits.maxAgeMs > now;
  }
}

/** Compares two secrets in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}
