// POST /api/cameras/<id>/capture: records from a camera of the caller's tenant
// and answers like POST /api/classify: 202 with the acceptance record, or with
// ?sync=true the final result (200), or the result so far (202) after
// server.sync_timeout_s. A camera that is down gives a final result with
// error_code 3001, so the answer is a result id in every case.
import Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError } from '../api/errors.js';
import type { EventBus } from '../core/bus.js';
import type { ClassificationStore } from '../store/classifications.js';
import { isFinal, toResultJson } from '../store/result-json.js';
import type { CameraCapture, CaptureFields } from './camera-capture.js';

export interface CaptureRoutesDeps {
  capture: CameraCapture;
  store: ClassificationStore;
  bus: EventBus;
  syncTimeoutMs: number;
  /** extra checks before recording (e.g. disk pressure -> 507) */
  admission?: (ctx: Context) => Promise<void>;
}

const truthy = (v: unknown) => typeof v === 'string' && ['true', '1', 'yes'].includes(v.toLowerCase());
const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

export function captureRoutes(deps: CaptureRoutesDeps): Router {
  const router = new Router();

  router.post('/api/cameras/:camera/capture', async (ctx) => {
    const camera = deps.capture.camera(ctx.params.camera);
    // another tenant's camera is as good as unknown
    if (!camera || camera.tenant !== ctx.state.tenant) throw new ApiError(404, 'not_found', 'no camera with this id');
    await deps.admission?.(ctx);
    const fields: CaptureFields = {};
    for (const key of ['parent_id', 'analyse_id', 'flow'] as const) {
      const value = text(ctx.query[key]);
      if (value !== undefined) fields[key] = value;
    }
    // Subscribe before triggering, so a fast result (a refusing camera) cannot finish unseen.
    const waiter = truthy(ctx.query.sync) ? finalWaiter(deps.bus, deps.syncTimeoutMs) : undefined;
    let accepted;
    try {
      accepted = await deps.capture.capture(camera.id, 'http', fields);
    } catch (err) {
      waiter?.cancel();
      throw err;
    }
    if (!waiter) {
      ctx.status = 202;
      ctx.body = accepted;
      return;
    }
    const outcome = await waiter.wait(accepted.id);
    const row = await deps.store.get(accepted.id);
    if (!row) throw new ApiError(410, 'deleted', 'the classification was deleted before it finished');
    ctx.status = outcome === 'final' && isFinal(row) ? 200 : 202;
    ctx.body = toResultJson(row);
  });

  return router;
}

/** Waits for one classification to become final (or be deleted), up to a timeout; remembers events seen before the id is known. */
function finalWaiter(bus: EventBus, timeoutMs: number) {
  const seen = new Map<string, 'final' | 'deleted'>();
  let target: string | undefined;
  let settle: (v: 'final' | 'timeout' | 'deleted') => void = () => {};
  const result = new Promise<'final' | 'timeout' | 'deleted'>((resolve) => (settle = resolve));
  const note = (id: string, kind: 'final' | 'deleted') => {
    if (target === undefined) seen.set(id, kind);
    else if (id === target) settle(kind);
  };
  const offFinal = bus.on('result.final', ({ id }) => note(id, 'final'));
  const offDeleted = bus.on('classification.deleted', ({ id }) => note(id, 'deleted'));
  let timer: NodeJS.Timeout | undefined;
  const cancel = () => {
    offFinal();
    offDeleted();
    if (timer) clearTimeout(timer);
  };
  return {
    cancel,
    async wait(id: string) {
      target = id;
      const early = seen.get(id);
      seen.clear();
      if (early) settle(early);
      timer = setTimeout(() => settle('timeout'), timeoutMs);
      try {
        return await result;
      } finally {
        cancel();
      }
    },
  };
}
