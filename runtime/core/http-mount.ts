// What a room hands the HTTP server: its router and who may call it. It lives
// below the rooms, so each room's wiring builds its mount without importing api/.
import type Router from '@koa/router';
import type { Middleware } from 'koa';

export interface Mount {
  router: Router;
  /** public: no key (health, metrics); tenant: a tenant key; admin: an admin key */
  access: 'public' | 'tenant' | 'admin';
  /** authentication of its own, used instead of the key check of access (the dashboard's session cookie) */
  guard?: Middleware;
}
