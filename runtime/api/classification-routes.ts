// The four endpoints of spec section 4.
import fs from 'node:fs';
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import type { EventBus } from '../core/bus.js';
import { CLASSIFICATION_ID } from '../core/ids.js';
import { answerAccepted } from '../ingest/answer-accepted.js';
import type { Intake } from '../ingest/intake.js';
import { receiveUpload } from '../ingest/upload.js';
import type { Deleter } from '../jobs/deletion.js';
import type { ClassificationStore } from '../store/classifications.js';
import type { MediaFiles } from '../store/media-files.js';
import { isFinal, toResultJson } from '../store/result-json.js';
import { ApiError, notFound } from './errors.js';
import { sendFile } from './send-file.js';

export interface ClassificationRoutesDeps {
  store: ClassificationStore;
  files: MediaFiles;
  intake: Intake;
  deleter: Deleter;
  bus: EventBus;
  maxUploadBytes: number;
  syncTimeoutMs: number;
  /** extra checks before an upload is read (e.g. disk pressure -> 507) */
  admission?: (ctx: Context) => Promise<void>;
  /** where the routes sit: '' for the API, '/dashboard' for the dashboard's copy behind its session cookie */
  prefix?: string;
}

/** Rejects malformed ids (and so any path trickery) before they reach the store. */
async function checkId(id: string, ctx: Context, next: Next) {
  if (!CLASSIFICATION_ID.test(id)) throw new ApiError(400, 'invalid_id', 'a classification id is a lowercase UUID, e.g. 3f2b8c1e-0d4a-4c1b-9a57-2e6f1d0b7c44');
  ctx.state.id = id;
  return next();
}

export function classificationRoutes(deps: ClassificationRoutesDeps): Router {
  const router = new Router(deps.prefix ? { prefix: deps.prefix } : {});
  router.param('id', checkId);

  router.post('/api/classify', async (ctx) => {
    await deps.admission?.(ctx);
    const upload = await receiveUpload(ctx, deps.files.incomingDir, deps.maxUploadBytes);
    try {
      await answerAccepted(ctx, deps, () => deps.intake.accept(ctx.state.tenant, upload));
    } finally {
      await fs.promises.rm(upload.workDir, { recursive: true, force: true });
    }
  });

  router.get('/api/result/:id', async (ctx) => {
    const row = await deps.store.getForTenant(ctx.state.id, ctx.state.tenant);
    if (!row) throw notFound();
    ctx.status = isFinal(row) ? 200 : 202;
    ctx.body = toResultJson(row);
  });

  router.get('/api/video/annotate/:id', async (ctx) => {
    const row = await deps.store.getForTenant(ctx.state.id, ctx.state.tenant);
    if (!row) throw notFound();
    if (row.status_video !== 'done' || !(await sendFile(ctx, deps.files.highlightPath(row.id), 'video/mp4'))) {
      const state = row.status_video === 'done' ? 'expired' : row.status_video; // done but the file is gone
      throw new ApiError(404, 'no_video', `no annotated video for this classification (status.video: ${state}${row.video_error ? `; ${row.video_error}` : ''})`);
    }
  });

  // The best frame as JPEG, boxes drawn (?clean=1: without); rendered with the highlight, so it shares its lifecycle.
  router.get('/api/snapshot/:id', async (ctx) => {
    const row = await deps.store.getForTenant(ctx.state.id, ctx.state.tenant);
    if (!row) throw notFound();
    const clean = ['1', 'true'].includes(String(ctx.query.clean ?? ''));
    if (row.status_video !== 'done' || !(await sendFile(ctx, deps.files.snapshotPath(row.id, clean), 'image/jpeg'))) {
      const state = row.status_video === 'done' ? 'expired' : row.status_video;
      throw new ApiError(404, 'no_snapshot', `no snapshot for this classification (status.video: ${state}${row.video_error ? `; ${row.video_error}` : ''})`);
    }
  });

  router.delete('/api/classify/:id', async (ctx) => {
    const row = await deps.store.getForTenant(ctx.state.id, ctx.state.tenant);
    if (!row) throw notFound();
    await deps.deleter.delete(row.id, row.tenant, 'api');
    ctx.status = 204;
  });

  return router;
}
