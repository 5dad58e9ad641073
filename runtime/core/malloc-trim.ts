// Gives the C heap's free memory back to the system. glibc keeps memory that
// native code freed (frames, tensors, ffmpeg's pipes, SQLite, libvips) in its
// arenas, in pieces it cannot return by itself: measured after 20 clips, the
// daemon held 30 MB and an interpreter worker 18 MB of such free memory, which
// one malloc_trim(0) handed back. Called once idle, after a garbage collection.
// koffi calls libc directly (prebuilt for every architecture we ship, nothing to
// compile); where it or glibc is missing (musl), trimming is skipped.
import { createRequire } from 'node:module';

type Trim = (pad: number) => number;
let trim: Trim | null | undefined;

function load(): Trim | null {
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    return koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as Trim;
  } catch {
    return null;
  }
}

/** Returns free C heap memory to the system; false where that cannot be done here. */
export function trimCHeap(): boolean {
  trim ??= load();
  if (!trim) return false;
  trim(0);
  return true;
}
