// One job, start to final: classify the stored clip, render its highlight,
// then make the result final (which queues its deliveries).
import fs from 'node:fs';
import type { Analysis, CameraRules, ClipInfo, FrameCopy } from '../core/analysis.js';
import { isDiskFull } from '../core/disk-full.js';
import { ErrorCode, PipelineError, errorMessage } from '../core/errors.js';
import type { EventBus } from '../core/bus.js';
import type { Logger } from '../core/log.js';
import type { Semaphore } from '../core/semaphore.js';
import type { ClassificationOutcome, ClassificationStore, ClassificationRow, VideoOutcome } from '../store/classifications.js';
import type { MediaFiles } from '../store/media-files.js';
import type { ClassifierSource, HighlightStage } from './stages.js';

export interface JobContext {
  store: ClassificationStore;
  files: MediaFiles;
  classifiers: ClassifierSource;
  highlight: HighlightStage | null;
  /** bounds how many highlights render at once, apart from the classification slots */
  renderSlots: Semaphore;
  maxAttempts: number;
  log: Logger;
  /** told of each successful classification (metrics) */
  bus?: EventBus;
  /** the masks, zones and label filters of a configured camera of the clip's tenant, by the clip's camera_id */
  cameraRules?: (tenant: string, cameraId: string) => CameraRules | undefined;
}

export type FinalInfo = { tenant: string; flow: string; errorCode: number };

/**
 * Runs one claimed job. `classified` is called once the classification is
 * stored, so the runner can give the slot to the next clip while the highlight
 * renders. Rejects only when the signal fired (cancelled or shutting down).
 */
export async function processJob(
  ctx: JobContext,
  id: string,
  attempts: number,
  signal: AbortSignal,
  classified: () => void = () => {},
): Promise<FinalInfo | undefined> {
  const row = await ctx.store.get(id);
  if (!row) return undefined;
  const started = Date.now();

  const alreadyClassified = row.status_classify === 'done' || row.status_classify === 'error';
  if (attempts > ctx.maxAttempts) {
    if (alreadyClassified) {
      // What crashed was the highlight: give up the render only, the classification stands.
      ctx.log.error('highlight given up after repeated crashes; the classification is kept', { id, attempts });
      return ctx.store.finalize(id, noVideo(`not rendered: rendering stopped the runtime ${attempts - 1} times and was given up`), Date.now() - started);
    }
    await ctx.store.markStarted(id);
    ctx.log.error('job gave up after repeated crashes', { id, attempts });
    const outcome = failure(new PipelineError(ErrorCode.GAVE_UP, `processing stopped the runtime ${attempts - 1} times; the clip was given up`));
    await ctx.store.saveOutcome(id, outcome, Date.now() - started, 'error');
    return ctx.store.finalize(id, noVideo('not rendered: the classification was given up'), Date.now() - started);
  }

  const clip = clipOf(ctx, row);
  // The highlight's frames, copied by the classification's decode. Kept when the job
  // stops unfinished (a full volume, a shutdown): its next run may render from them.
  const frames = ctx.highlight?.framesFor(clip, ctx.files.highlightPath(id));
  // A job interrupted after its classification was stored (e.g. while its
  // highlight rendered) resumes from the stored outcome instead of classifying again.
  let analysis = storedAnalysis(row);
  if (!alreadyClassified) {
    await ctx.store.markStarted(id);
    analysis = await classifyClip(ctx, id, clip, signal, started, row.camera_id ? ctx.cameraRules?.(row.tenant, row.camera_id) : undefined, frames);
  }
  classified();

  let video: VideoOutcome;
  if (analysis && ctx.highlight) {
    const release = await ctx.renderSlots.acquire(signal);
    try {
      await ctx.store.markVideoProcessing(id);
      video = await render(ctx, id, clip, analysis, signal);
    } finally {
      release();
    }
  } else {
    video = noVideo(ctx.highlight ? 'not rendered: the classification failed' : 'highlight rendering is disabled');
  }
  await ctx.highlight?.discardFrames(ctx.files.highlightPath(id)); // the folder is clean once the result is final
  return ctx.store.finalize(id, video, Date.now() - started);
}

/** Classifies and stores the outcome; returns the analysis when it succeeded. */
async function classifyClip(
  ctx: JobContext, id: string, clip: ClipInfo, signal: AbortSignal, started: number, rules: CameraRules | undefined, frames: FrameCopy | undefined,
): Promise<Analysis | undefined> {
  let analysis: Analysis | undefined;
  let outcome: ClassificationOutcome;
  const lease = await ctx.classifiers.acquire().catch((err: unknown) => err as Error);
  try {
    if (lease instanceof Error) throw lease;
    analysis = await lease.classifier.classify(clip, signal, rules, frames);
    outcome = success(analysis);
    const { stats } = analysis;
    ctx.log.info('clip classified', {
      id, risk: analysis.risk, labels: analysis.labels, model: `${analysis.model}@${analysis.version}`, backend: analysis.backend,
      frames_inferred: stats.framesInferred, motion_ms: Math.round(stats.motionMs), decode_ms: Math.round(stats.decodeMs),
      inference_ms: Math.round(stats.inferenceMs), total_ms: Math.round(stats.totalMs),
    });
    ctx.bus?.emit('classification.stats', { id, backend: analysis.backend, model: `${analysis.model}@${analysis.version}`, stats });
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    outcome = failure(err, lease instanceof Error ? undefined : lease.classifier);
    ctx.log.warn('classification failed', { id, error_code: outcome.errorCode, error: outcome.errorMsg });
  } finally {
    if (!(lease instanceof Error)) lease.release();
  }
  const willRender = analysis !== undefined && ctx.highlight !== null;
  await ctx.store.saveOutcome(id, outcome, Date.now() - started, willRender ? 'queued' : 'error');
  return analysis;
}

/** The analysis of an already classified row, if it has one. */
function storedAnalysis(row: ClassificationRow): Analysis | undefined {
  if (row.status_classify !== 'done' || !row.analysis) return undefined;
  const saved = JSON.parse(row.analysis) as Pick<Analysis, 'keyframes' | 'stats'> | null;
  if (!saved) return undefined;
  return {
    risk: row.risk as Analysis['risk'],
    labels: JSON.parse(row.labels),
    scores: JSON.parse(row.scores),
    keyframes: saved.keyframes,
    stats: saved.stats,
    model: row.model,
    version: row.version,
    backend: row.backend,
  };
}

function clipOf(ctx: JobContext, row: ClassificationRow): ClipInfo {
  const specs = JSON.parse(row.original_specs) as Omit<ClipInfo, 'path'>;
  return { ...specs, path: ctx.files.clipPath(row.id, row.filename) };
}

async function render(ctx: JobContext, id: string, clip: ClipInfo, analysis: Analysis, signal: AbortSignal): Promise<VideoOutcome> {
  const outPath = ctx.files.highlightPath(id);
  try {
    const probed = await ctx.highlight!.render({ clip, analysis, outPath, signal });
    // the snapshots rendered beside it count as highlight bytes (retention's byte bound)
    const sizes = await Promise.all([outPath, ctx.files.snapshotPath(id), ctx.files.snapshotPath(id, true)].map((f) => fs.promises.stat(f).then((s) => s.size, () => 0)));
    const size = sizes.reduce((a, b) => a + b, 0);
    return {
      state: 'done',
      error: '',
      processedSpecs: { width: probed.width, height: probed.height, duration: probed.duration, fps: probed.fps, nframes: probed.nframes },
      highlightBytes: size,
    };
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    await fs.promises.rm(outPath, { force: true }).catch(() => {});
    // a full volume passes: the job is tried again later instead of losing its highlight for good
    if (isDiskFull(err)) throw err;
    ctx.log.warn('highlight rendering failed', { id, error: errorMessage(err) });
    return noVideo(`rendering failed: ${errorMessage(err)}`);
  }
}

function success(a: Analysis): ClassificationOutcome {
  return {
    errorCode: ErrorCode.OK,
    errorMsg: '',
    risk: a.risk,
    labels: a.labels,
    scores: a.scores as Record<string, number>,
    result: 'classified',
    model: a.model,
    version: a.version,
    backend: a.backend,
    analysis: { keyframes: a.keyframes, stats: a.stats },
  };
}

function failure(err: unknown, classifier?: { model: string; version: string }): ClassificationOutcome {
  const known = err instanceof PipelineError;
  return {
    errorCode: known ? err.code : ErrorCode.INTERNAL,
    errorMsg: known ? err.message : `internal error: ${errorMessage(err)}`,
    risk: '',
    labels: [],
    scores: {},
    result: 'error',
    model: classifier?.model ?? '',
    version: classifier?.version ?? '',
    backend: '',
    analysis: null,
  };
}

function noVideo(error: string): VideoOutcome {
  return { state: 'error', error, processedSpecs: null, highlightBytes: 0 };
}
