// The four endpoints of spec section 4.
import fs from 'node:fs';
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import type { EventBus } from '../core/bus.js';
import type { Intake } from '../ingest/intake.js';
import { receiveUpload } from '../ingest/upload.js';
import type { Deleter } from '../jobs/deletion.js';
import type { ClassificationStore } from '../store/classifications.js';
import type { MediaFiles } from '../store/media-files.js';
import { ID_PATTERN } from '../store/media-files.js';
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
}

const truthy = (v: unknown) => typeof v === 'string' && ['true', '1', 'yes'].includes(v.toLowerCase());

/** Rejects malformed ids (and so any path trickery) before they reach the store. */
async function checkId(id: string, ctx: Context, next: Next) {
  if (!ID_PATTERN.test(id)) throw new ApiError(400, 'invalid_id', 'a classification id is a lowercase UUID, e.g. 3f2b8c1e-0d4a-4c1b-9a57-2e6f1d0b7c44');
  ctx.state.id = id;
  return next();
}

export function classificationRoutes(deps: ClassificationRoutesDeps): Router {
  const router = new Router();
  router.param('id', checkId);

  router.post('/api/classify', async (ctx) => {
    await deps.admission?.(ctx);
    const upload = await receiveUpload(ctx, deps.files.incomingDir, deps.maxUploadBytes);
    try {
      const sync = truthy(ctx.query.sync);
      // Subscribe before accepting, so a fast job cannot finish unseen.
      const waiter = sync ? waitForFinal(deps.bus, deps.syncTimeoutMs) : undefined;
      let accepted;
      try {
        accepted = await deps.intake.accept(ctx.state.tenant, upload);
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

  router.delete('/api/classify/:id', async (ctx) => {
    const row = await deps.store.getForTenant(ctx.state.id, ctx.state.tenant);
    if (!row) throw notFound();
    await deps.deleter.delete(row.id, row.tenant, 'api');
    ctx.status = 204;
  });

  return router;
}

/** Waits for one classification to become final (or be deleted), up to a timeout. */
function waitForFinal(bus: EventBus, timeoutMs: number) {
  let target: string | undefined;
  let settle: (v: 'final' | 'timeout' | 'deleted') => void = () => {};
  const early: Array<{ id: string; kind: 'final' | 'deleted' }> = [];
  const result = new Promise<'final' | 'timeout' | 'deleted'>((resolve) => (settle = resolve));
  const seen = (id: string, kind: 'final' | 'deleted') => {
    if (target === id) settle(kind);
    else if (target === undefined) early.push({ id, kind });
  };
  const offFinal = bus.on('result.final', ({ id }) => seen(id, 'final'));
  const offDeleted = bus.on('classification.deleted', ({ id }) => seen(id, 'deleted'));
  let timer: NodeJS.Timeout | undefined;
  const cleanup = () => {
    offFinal();
    offDeleted();
    if (timer) clearTimeout(timer);
  };
  return {
    cancel: cleanup,
    async wait(id: string) {
      target = id;
      const seen = early.find((e) => e.id === id);
      if (seen) settle(seen.kind);
      early.length = 0;
      timer = setTimeout(() => settle('timeout'), timeoutMs);
      try {
        return await result;
      } finally {
        cleanup();
      }
    },
  };
}
