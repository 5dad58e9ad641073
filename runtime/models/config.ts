// Config sections `models` (which pack, where it comes from, updates) and
// `inference` (device, pool shape, time bounds, frames per clip).
import cron from 'node-cron';
import { z } from 'zod';

export const modelsSchema = z.strictObject({
  /** the pack to run: a folder name under models/ of the runtime */
  pack: z.string().regex(/^[a-z0-9_-]+$/).default('default'),
  /** where model files come from: an http(s) URL or a mirror folder; empty = each file's upstream URL in the manifest */
  source: z.string().default(''),
  /** fetch and activate the pack at start when none is active */
  auto_pull: z.boolean().default(true),
  /** cron expression for checking the source for a newer pack; empty = never */
  update_schedule: z.string().refine((s) => s === '' || cron.validate(s), 'not a valid cron expression').default(''),
  /** installed packs kept on disk, besides the active one and the rollback target */
  keep: z.number().int().min(0).default(1),
  /** a download slower than this fails, seconds */
  fetch_timeout_s: z.number().int().positive().default(300),
});

export const inferenceSchema = z.strictObject({
  /** cpu, edgetpu (a Coral is required), or auto (the Coral when present and the pack has Edge TPU models) */
  device: z.enum(['auto', 'cpu', 'edgetpu']).default('auto'),
  /** interpreter worker processes, each with one interpreter per model; "auto" = one per CPU core. One by default: more gave no more clips per minute on two cores and cost ~50 MB each */
  workers: z.union([z.literal('auto'), z.number().int().positive()]).default(1),
  /** threads inside each interpreter (one measured fastest on small ARM and x86 boards) */
  threads: z.number().int().positive().default(1),
  /** an inference slower than this is a hung accelerator: the interpreter is rebuilt and the clip fails with 2003 */
  timeout_ms: z.number().int().positive().default(20000),
  /** frames of one clip sent to the networks, at most (crops around small moving regions come on top) */
  max_frames: z.number().int().min(1).max(64).default(8),
});

export type ModelsConfig = z.infer<typeof modelsSchema>;
export type InferenceConfig = z.infer<typeof inferenceSchema>;
