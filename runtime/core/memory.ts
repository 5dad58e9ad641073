// Giving memory back to the system once work is done. Where each part lives:
// - V8's flags (--expose-gc, a young generation of 1 MB semi-spaces) and glibc's
//   (two malloc arenas, a fixed mmap threshold): the systemd unit's Environment=
//   lines for the daemon, WORKER_EXEC_ARGV and WORKER_ENV in inference/pool.ts
//   for the interpreter workers;
// - when to collect: ops/idle-collector.ts (the daemon, once no job ran for a
//   moment) and inference/worker.ts (a worker, once no inference came for a moment);
// - how, here: one full collection, then the C heap trimmed.
// glibc keeps memory that native code freed (frames, tensors, ffmpeg's pipes,
// SQLite, libvips) in its arenas, in pieces it cannot return by itself:
// measured after 20 clips, the daemon held 30 MB and an interpreter worker 18 MB
// of such free memory, which one malloc_trim(0) handed back. Where glibc is not
// there (core/libc.ts), trimming is skipped.
import { glibc } from './libc.js';

/** V8 frees dead buffers' memory on a background task after a collection: the trim waits for it. */
const TRIM_AFTER_GC_MS = 250;

type Trim = (pad: number) => number;
let trim: Trim | null | undefined;

/** Returns free C heap memory to the system; false where that cannot be done here. */
export function trimCHeap(): boolean {
  if (trim === undefined) trim = (glibc()?.func('int malloc_trim(size_t pad)') as Trim | undefined) ?? null;
  if (!trim) return false;
  trim(0);
  return true;
}

/**
 * One full collection (when gc is exposed), then the C heap trimmed once V8 has freed what
 * it collected. Returns the timer of the trim, to cancel it if work comes back first.
 */
export function collectThenTrim(): NodeJS.Timeout {
  globalThis.gc?.();
  return setTimeout(trimCHeap, TRIM_AFTER_GC_MS);
}
