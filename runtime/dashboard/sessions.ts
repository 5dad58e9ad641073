// Dashboard sign-in sessions. A browser signs in once with an admin or tenant
// key and then holds only a random session token in an HttpOnly, SameSite=Strict
// cookie, so the key never sits in a URL, in page script or in the browser's
// storage. Tokens are kept hashed, like the keys (api/auth.ts), and live in
// memory: a restart signs everyone out, which an appliance can afford.
import crypto from 'node:crypto';

export interface Session {
  /** sha256 of the cookie's token */
  id: string;
  role: 'admin' | 'tenant';
  /** the tenant of a tenant session; null for the admin, who sees every tenant */
  tenant: string | null;
  /** sent back by the page in X-CSRF-Token on every request that changes something */
  csrf: string;
  expiresMs: number;
}

export const SESSION_COOKIE = 'vigil_session';
/** a session ends this long after its last use */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** sessions kept at most; the oldest goes first (a loop signing in cannot fill the memory) */
const MAX_SESSIONS = 1000;

const digest = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

export class Sessions {
  private readonly byId = new Map<string, Session>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Opens a session; returns the cookie token (never stored) and the session. */
  open(role: Session['role'], tenant: string | null): { token: string; session: Session } {
    const token = crypto.randomBytes(32).toString('base64url');
    const session: Session = { id: digest(token), role, tenant, csrf: crypto.randomBytes(24).toString('base64url'), expiresMs: this.now() + SESSION_IDLE_MS };
    if (this.byId.size >= MAX_SESSIONS) this.byId.delete(this.byId.keys().next().value!);
    this.byId.set(session.id, session);
    return { token, session };
  }

  /** The live session of a cookie token (its idle time starts again), or undefined. */
  find(token: string | undefined): Session | undefined {
    if (!token) return undefined;
    const session = this.byId.get(digest(token));
    if (!session) return undefined;
    if (session.expiresMs <= this.now()) {
      this.byId.delete(session.id);
      return undefined;
    }
    session.expiresMs = this.now() + SESSION_IDLE_MS;
    return session;
  }

  close(id: string): void {
    this.byId.delete(id);
  }

  isOpen(id: string): boolean {
    const s = this.byId.get(id);
    return !!s && s.expiresMs > this.now();
  }
}

/** Compares two secrets in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}
