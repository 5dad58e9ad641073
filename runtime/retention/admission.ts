// Upload admission under disk pressure: before an upload is read, make room for
// it (its Content-Length, when declared) or refuse it with 507, so the disk
// never fills. While jobs already accepted wait for space on a full volume, a
// new clip is refused too: its result could not be stored either. Reads,
// deletes and deliveries do not pass through here.
import type { Context } from 'koa';
import { Refusal } from '../core/errors.js';
import type { Pruner } from './pruner.js';

export function storageAdmission(pruner: Pruner, jobsWaitingForSpace: () => boolean = () => false): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    if (jobsWaitingForSpace()) {
      throw new Refusal('no_storage', 'insufficient_storage', 'not enough storage for this upload: the data volume is full and accepted clips are waiting for space');
    }
    const declared = Number(ctx.get('content-length'));
    const bytes = Number.isSafeInteger(declared) && declared > 0 ? declared : 0;
    const tenant = typeof ctx.state?.tenant === 'string' ? ctx.state.tenant : undefined;
    const reason = await pruner.admit({ count: 1, bytes, tenant });
    if (reason) throw new Refusal('no_storage', 'insufficient_storage', `not enough storage for this upload: ${reason}`);
  };
}
