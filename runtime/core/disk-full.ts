// One test for "the data volume is full", whichever layer noticed it: the file
// system (ENOSPC, EDQUOT) or SQLite (SQLITE_FULL, reported by the sqlite3 module
// as code SQLITE_FULL). A full disk is a state that passes, not a bug: callers
// answer 507 or retry later instead of failing for good.
import fs from 'node:fs';

export function isDiskFull(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null | undefined;
  if (!e) return false;
  if (e.code === 'ENOSPC' || e.code === 'EDQUOT' || e.code === 'SQLITE_FULL') return true;
  return /ENOSPC|EDQUOT|SQLITE_FULL|No space left on device|database or disk is full/.test(String(e.message ?? ''));
}

/** Free bytes under which a failed write is put down to the volume: a full one shows a few pages at most. */
const NEARLY_FULL_BYTES = 1024 * 1024;

/**
 * A child process that writes files (ffmpeg) does not always say ENOSPC: it may
 * exit 0 with a truncated file or end on "Conversion failed!". Its failure is
 * taken for a full volume when `dir`'s volume has (almost) no room left; call
 * this before removing the partial output, which holds the space it took.
 */
export async function asDiskFullWhenNoRoom(err: unknown, dir: string): Promise<unknown> {
  if (isDiskFull(err)) return err;
  const free = await fs.promises.statfs(dir).then((s) => s.bavail * s.bsize, () => Infinity);
  if (free >= NEARLY_FULL_BYTES) return err;
  const why = err instanceof Error ? err.message : String(err);
  return Object.assign(new Error(`${why} (no space left on the data volume)`), { code: 'ENOSPC', cause: err });
}
