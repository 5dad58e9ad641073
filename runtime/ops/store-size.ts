// How big the store is: media bytes and the database file. Read by the
// gateway's status (status.ts), so /metrics and the dashboard show the same numbers.
import fs from 'node:fs';
import type { Queryable } from '../store/db.js';

/** Bytes of stored clips and highlights. */
export async function mediaBytes(db: Queryable): Promise<number> {
  // media_totals is kept by triggers (no table scan); the sum is the fallback for a store without it
  try {
    const row = await db.get<{ n: number }>('SELECT media_bytes AS n FROM media_totals WHERE id = 1');
    if (row) return row.n;
  } catch {
    /* no media_totals table */
  }
  const row = await db.get<{ n: number }>('SELECT COALESCE(SUM(clip_bytes + highlight_bytes), 0) AS n FROM classifications');
  return row?.n ?? 0;
}

/** Bytes of the SQLite file with its -wal and -shm companions. */
export async function databaseBytes(databaseFile: string): Promise<number> {
  let total = 0;
  for (const suffix of ['', '-wal', '-shm']) {
    try {
      total += (await fs.promises.stat(databaseFile + suffix)).size;
    } catch {
      /* the WAL files exist only while the database is open in WAL mode */
    }
  }
  return total;
}
