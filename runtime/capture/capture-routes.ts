// POST /api/cameras/<id>/capture: records from a camera of the caller's tenant
// and answers like POST /api/classify: 202 with the acceptance record, or with
// ?sync=true the final result (200), or the result so far (202) after
// server.sync_timeout_s. A camera that is down gives a final result with
// error_code 3001, so the answer is a result id in every case. A trigger
// during a watched camera's motion event answers with that event's clip.
// GET /api/cameras/<id>/watch: a watched camera's state and last events.
import Router from '@koa/router';
import type { Context } from 'koa';
import type { EventBus } from '../core/bus.js';
import { Refusal } from '../core/errors.js';
import { answerAccepted } from '../ingest/answer-accepted.js';
import type { ClassificationStore } from '../store/classifications.js';
import type { CameraCapture, CaptureFields } from './camera-capture.js';
import type { CameraWatchStatus } from './watch.js';

export interface CaptureRoutesDeps {
  capture: CameraCapture;
  store: ClassificationStore;
  bus: EventBus;
  syncTimeoutMs: number;
  /** extra checks before recording (e.g. disk pressure -> 507) */
  admission?: (ctx: Context) => Promise<void>;
  /** mounted again under this prefix (the dashboard's capture button: /dashboard) */
  prefix?: string;
  /** a watched camera's status; undefined for a camera that is not watched */
  watchStatus?: (cameraId: string) => CameraWatchStatus | undefined;
}

const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

export function captureRoutes(deps: CaptureRoutesDeps): Router {
  const router = new Router(deps.prefix ? { prefix: deps.prefix } : {});

  router.post('/api/cameras/:camera/capture', async (ctx) => {
    const camera = deps.capture.camera(ctx.params.camera, ctx.state.tenant);
    if (!camera) throw new Refusal('not_found', 'not_found', 'no camera with this id');
    await deps.admission?.(ctx);
    const fields: CaptureFields = {};
    for (const key of ['parent_id', 'analyse_id', 'flow'] as const) {
      const value = text(ctx.query[key]);
      if (value !== undefined) fields[key] = value;
    }
    await answerAccepted(ctx, deps, () => deps.capture.capture(camera.id, 'http', fields));
  });

  router.get('/api/cameras/:camera/watch', async (ctx) => {
    const camera = deps.capture.camera(ctx.params.camera, ctx.state.tenant);
    if (!camera) throw new Refusal('not_found', 'not_found', 'no camera with this id');
    const status = deps.watchStatus?.(camera.id);
    if (!status) throw new Refusal('not_found', 'not_watched', 'this camera is not watched (cameras[].watch.enabled)');
    ctx.body = status;
  });

  return router;
}
