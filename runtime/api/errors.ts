// One JSON error shape for every endpoint: {"error": {"code": "...", "message": "..."}}.
// The rooms below the API refuse with core's Refusal; its HTTP status is decided here.
import type { Middleware } from 'koa';
import { isDiskFull } from '../core/disk-full.js';
import { Refusal, type RefusalKind } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { ErrorBody } from './schemas.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** headers that go with the answer (Retry-After of a 429) */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The HTTP status of each domain refusal (core/errors.ts). */
const REFUSAL_STATUS: Record<RefusalKind, number> = {
  invalid: 400,
  not_found: 404,
  gone: 410,
  timeout: 408,
  too_large: 413,
  unsupported_type: 415,
  unprocessable: 422,
  no_storage: 507,
};

export const notFound = (what = 'classification') => new ApiError(404, 'not_found', `no ${what} with this id`);

/** Turns thrown errors into the JSON error body; unexpected ones are logged and answered 500. */
export function errorBody(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new ApiError(404, 'no_route', `no endpoint ${ctx.method} ${ctx.path}`);
    } catch (err) {
      const e = err as Error & { status?: number; expose?: boolean };
      if (err instanceof ApiError) {
        ctx.status = err.status;
        ctx.set(err.headers);
        ctx.body = { error: { code: err.code, message: err.message } } satisfies ErrorBody;
      } else if (err instanceof Refusal) {
        ctx.status = REFUSAL_STATUS[err.kind];
        ctx.body = { error: { code: err.code, message: err.message } } satisfies ErrorBody;
      } else if (isDiskFull(err)) {
        // the volume filled under this request: a storage state, not an internal error
        log.warn('request refused: the data volume is full', { method: ctx.method, path: ctx.path, error: e.message });
        ctx.status = 507;
        ctx.body = { error: { code: 'insufficient_storage', message: 'the data volume is full: free space (or delete classifications) and retry' } };
      } else if ((err as { code?: unknown }).code === 'SQLITE_BUSY') {
        // another process holds the database (a backup, a sqlite3 shell): passing, so say retry
        log.warn('request refused: the database is locked by another process', { method: ctx.method, path: ctx.path });
        ctx.status = 503;
        ctx.set('Retry-After', '5');
        ctx.body = { error: { code: 'busy', message: 'the database is locked by another process; retry shortly' } };
      } else if (e.status && e.status < 500 && e.expose !== false) {
        // errors from koa and its body parser (400 malformed JSON, 413 too large, ...)
        ctx.status = e.status;
        ctx.body = { error: { code: e.status === 413 ? 'too_large' : 'bad_request', message: e.message } } satisfies ErrorBody;
      } else {
        log.error('request failed', { method: ctx.method, path: ctx.path, err });
        ctx.status = 500;
        ctx.body = { error: { code: 'internal', message: 'internal error; the daemon log has the details' } } satisfies ErrorBody;
      }
    }
  };
}
