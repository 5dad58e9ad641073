// POST /api/cameras/<id>/capture: records from a camera of the caller's tenant
// and answers like POST /api/classify: 202 with the acceptance record, or with
// ?sync=true the final result (200), or the result so far (202) after
// server.sync_timeout_s. A camera that is down gives a final result with
// error_code 3001, so the answer is a result id in every case.
import Router from '@koa/router';
import type { Context } from 'koa';
import { answerAccepted } from '../api/answer-accepted.js';
import { ApiError } from '../api/errors.js';
import type { EventBus } from '../core/bus.js';
import type { ClassificationStore } from '../store/classifications.js';
import type { CameraCapture, CaptureFields } from './camera-capture.js';

export interface CaptureRoutesDeps {
  capture: CameraCapture;
  store: ClassificationStore;
  bus: EventBus;
  syncTimeoutMs: number;
  /** extra checks before recording (e.g. disk pressure -> 507) */
  admission?: (ctx: Context) => Promise<void>;
  /** mounted again under this prefix (the dashboard's capture button: /dashboard) */
  prefix?: string;
}

const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

export function captureRoutes(deps: CaptureRoutesDeps): Router {
  const router = new Router(deps.prefix ? { prefix: deps.prefix } : {});

  router.post('/api/cameras/:camera/capture', async (ctx) => {
    const camera = deps.capture.camera(ctx.params.camera, ctx.state.tenant);
    if (!camera) throw new ApiError(404, 'not_found', 'no camera with this id');
    await deps.admission?.(ctx);
    const fields: CaptureFields = {};
    for (const key of ['parent_id', 'analyse_id', 'flow'] as const) {
      const value = text(ctx.query[key]);
      if (value !== undefined) fields[key] = value;
    }
    await answerAccepted(ctx, deps, () => deps.capture.capture(camera.id, 'http', fields));
  });

  return router;
}
