// One test for "the data volume is full", whichever layer noticed it: the file
// system (ENOSPC, EDQUOT) or SQLite (SQLITE_FULL, reported by the sqlite3 module
// as code SQLITE_FULL). A full disk is a state that passes, not a bug: callers
// answer 507 or retry later instead of failing for good.
import { diskSpace } from './disk-space.js';

export function isDiskFull(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null | undefined;
  if (!e) return false;
  if (e.code === 'ENOSPC' || e.code === 'EDQUOT' || e.code === 'SQLITE_FULL') return true;
  return /ENOSPC|EDQUOT|SQLITE_FULL|No space left on device|database or disk is full/.test(String(e.message ?? ''));
}

/** Whether a tool's error output says the volume is full (ffmpeg says so, sometimes with exit code 0). */
export function saysNoSpace(text: string): boolean {
  return /No space left on device|Disk quota exceeded/.test(text);
}

/** Free bytes under which a failed write is put down to the volume: a full one shows a few pages at most. */
const NEARLY_FULL_BYTES = 1024 * 1024;

async function hasNoRoom(dir: string): Promise<boolean> {
  const free = await diskSpace(dir).then((s) => s.freeBytes, () => Infinity);
  return free < NEARLY_FULL_BYTES;
}

/**
 * Runs a writer that cannot be trusted to say ENOSPC, then reads its output
 * back: ffmpeg exits 0 on a failed write (silently with +faststart), so a full
 * volume shows only as an output that does not read back. Such an output is
 * written once more (the volume may have emptied meanwhile). A failure counts
 * as a full volume (code ENOSPC) when `dir`'s volume had (almost) no room
 * before the write or after it. Nothing is retried once `signal` fired.
 */
export async function writeAndReadBack<T>(
  dir: string, signal: AbortSignal, write: () => Promise<void>, readBack: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const fullBefore = await hasNoRoom(dir);
    try {
      await write();
      return await readBack();
    } catch (err) {
      if (signal.aborted || isDiskFull(err)) throw err;
      if (fullBefore || (await hasNoRoom(dir))) {
        const why = err instanceof Error ? err.message : String(err);
        throw Object.assign(new Error(`${why} (no space left on the data volume)`), { code: 'ENOSPC', cause: err });
      }
      if (attempt >= 2) throw err;
    }
  }
}
