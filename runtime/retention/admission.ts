// Upload admission under disk pressure: before an upload is read, make room for
// it (its Content-Length, when declared) or refuse it with 507, so the disk
// never fills. Reads, deletes and deliveries do not pass through here.
import type { Context } from 'koa';
import { ApiError } from '../api/errors.js';
import type { Pruner } from './pruner.js';

export function storageAdmission(pruner: Pruner): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    const declared = Number(ctx.get('content-length'));
    const bytes = Number.isSafeInteger(declared) && declared > 0 ? declared : 0;
    const tenant = typeof ctx.state?.tenant === 'string' ? ctx.state.tenant : undefined;
    const reason = await pruner.admit({ count: 1, bytes, tenant });
    if (reason) throw new ApiError(507, 'insufficient_storage', `not enough storage for this upload: ${reason}`);
  };
}
