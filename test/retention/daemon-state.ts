// Reads a daemon's data folder from the outside: its SQLite rows (through a
// second connection, as WAL allows) and its media files on disk.
import fs from 'node:fs';
import path from 'node:path';
import { Database } from '../../runtime/store/db.js';
import { CLASSIFICATION_ID } from '../../runtime/core/ids.js';

export interface StoreState {
  /** ids of rows not being deleted, oldest first */
  rowIds: string[];
  deleting: number;
  rowBytes: number;
  totals: { count: number; mediaBytes: number };
  folderIds: string[];
  fileBytes: number;
}

export async function withDb<T>(dataDir: string, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await Database.open(path.join(dataDir, 'vigil.db'));
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

export function mediaOnDisk(dataDir: string): { folderIds: string[]; fileBytes: number } {
  const media = path.join(dataDir, 'media');
  const folderIds: string[] = [];
  let fileBytes = 0;
  // a prune may be removing folders while this runs: what vanished meanwhile is not there
  for (const id of fs.readdirSync(media).filter((n) => CLASSIFICATION_ID.test(n)).sort()) {
    let names: string[];
    try {
      names = fs.readdirSync(path.join(media, id));
    } catch {
      continue;
    }
    folderIds.push(id);
    for (const name of names) fileBytes += fs.statSync(path.join(media, id, name), { throwIfNoEntry: false })?.size ?? 0;
  }
  return { folderIds, fileBytes };
}

export async function storeState(dataDir: string): Promise<StoreState> {
  return withDb(dataDir, async (db) => {
    const rows = await db.all<{ id: string; bytes: number; deleting: number }>(
      'SELECT id, clip_bytes + highlight_bytes AS bytes, deleting FROM classifications ORDER BY created_ms, rowid',
    );
    const totals = (await db.get<{ classifications: number; media_bytes: number }>('SELECT * FROM media_totals'))!;
    const live = rows.filter((r) => r.deleting === 0);
    return {
      rowIds: live.map((r) => r.id),
      deleting: rows.length - live.length,
      rowBytes: rows.reduce((s, r) => s + r.bytes, 0),
      totals: { count: totals.classifications, mediaBytes: totals.media_bytes },
      ...mediaOnDisk(dataDir),
    };
  });
}

/** Polls until `ok(state)` or the timeout; returns the last state either way. */
export async function settle(dataDir: string, ok: (s: StoreState) => boolean, timeoutMs = 15_000): Promise<StoreState> {
  const deadline = Date.now() + timeoutMs;
  let state = await storeState(dataDir);
  while (!ok(state) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    state = await storeState(dataDir);
  }
  return state;
}
