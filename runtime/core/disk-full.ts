// One test for "the data volume is full", whichever layer noticed it: the file
// system (ENOSPC, EDQUOT) or SQLite (SQLITE_FULL, reported by the sqlite3 module
// as code SQLITE_FULL). A full disk is a state that passes, not a bug: callers
// answer 507 or retry later instead of failing for good.
export function isDiskFull(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null | undefined;
  if (!e) return false;
  if (e.code === 'ENOSPC' || e.code === 'EDQUOT' || e.code === 'SQLITE_FULL') return true;
  return /ENOSPC|EDQUOT|SQLITE_FULL|No space left on device|database or disk is full/.test(String(e.message ?? ''));
}
