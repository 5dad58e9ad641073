// How an accepting endpoint answers (POST /api/classify, POST /api/cameras/<id>/capture):
// 202 with the acceptance record, or with ?sync=true the final result (200), or the
// result so far (202) once server.sync_timeout_s has passed.
import type { Context } from 'koa';
import type { EventBus } from '../core/bus.js';
import { Refusal } from '../core/errors.js';
import type { ClassificationStore } from '../store/classifications.js';
import { isFinal, toResultJson } from '../store/result-json.js';
import type { Acceptance } from './intake.js';

export interface AnswerDeps {
  bus: EventBus;
  store: ClassificationStore;
  syncTimeoutMs: number;
}

const truthy = (v: unknown): boolean => typeof v === 'string' && ['true', '1', 'yes'].includes(v.toLowerCase());

export async function answerAccepted(ctx: Context, deps: AnswerDeps, accept: () => Promise<Acceptance>): Promise<void> {
  // Subscribe before accepting, so a fast job (a refusing camera, a tiny clip) cannot finish unseen.
  const waiter = truthy(ctx.query.sync) ? waitForFinal(deps.bus, deps.syncTimeoutMs) : undefined;
  let accepted: Acceptance;
  try {
    accepted = await accept();
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
  if (!row) throw new Refusal('gone', 'deleted', 'the classification was deleted before it finished');
  ctx.status = outcome === 'final' && isFinal(row) ? 200 : 202;
  ctx.body = toResultJson(row);
}

/** Waits for one classification to become final (or be deleted), up to a timeout; remembers events seen before the id is known. */
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
      const before = early.find((e) => e.id === id);
      if (before) settle(before.kind);
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
