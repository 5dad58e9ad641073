// The SQL retention needs: totals, oldest-first candidates, clip removal marks,
// and giving freed pages back to the disk. Candidates are always final and not
// already being deleted; queued and processing classifications are never pruned.
import type { Database } from '../store/db.js';

export interface Candidate {
  id: string;
  tenant: string;
  bytes: number;
  /** outbox rows still waiting to be delivered */
  pending: number;
}

export interface Totals {
  count: number;
  mediaBytes: number;
}

const PENDING = `(SELECT COUNT(*) FROM outbox o WHERE o.classification_id = c.id AND o.state = 'pending')`;

export class RetentionQueries {
  constructor(private readonly db: Database) {}

  async totals(): Promise<Totals> {
    const row = await this.db.get<{ classifications: number; media_bytes: number }>('SELECT classifications, media_bytes FROM media_totals WHERE id = 1');
    return { count: row?.classifications ?? 0, mediaBytes: row?.media_bytes ?? 0 };
  }

  /** Count and media bytes of each tenant (one pass over the table; only asked for when tenant bounds are set). */
  async tenantTotals(): Promise<Array<{ tenant: string; count: number; mediaBytes: number }>> {
    return this.db.all(
      `SELECT tenant, COUNT(*) AS count, COALESCE(SUM(clip_bytes + highlight_bytes), 0) AS mediaBytes
       FROM classifications WHERE deleting = 0 GROUP BY tenant`,
    );
  }

  /** Media bytes of final classifications (what the byte and free-space bounds can win back), of one tenant or all. */
  async prunableBytes(tenant?: string): Promise<number> {
    const row = await this.db.get<{ n: number }>(
      `SELECT COALESCE(SUM(clip_bytes + highlight_bytes), 0) AS n FROM classifications WHERE final = 1 AND deleting = 0${tenant === undefined ? '' : ' AND tenant = ?'}`,
      tenant === undefined ? [] : [tenant],
    );
    return row?.n ?? 0;
  }

  /** Oldest final classifications; with `deliveredOnly`, those with a pending delivery are skipped. */
  oldest(limit: number, opts: { deliveredOnly: boolean; createdBefore?: number; withMedia?: boolean; tenant?: string }): Promise<Candidate[]> {
    const where = ['c.final = 1', 'c.deleting = 0'];
    const params: unknown[] = [];
    if (opts.tenant !== undefined) {
      where.push('c.tenant = ?');
      params.push(opts.tenant);
    }
    if (opts.createdBefore !== undefined) {
      where.push('c.created_ms < ?');
      params.push(opts.createdBefore);
    }
    if (opts.withMedia) where.push('c.clip_bytes + c.highlight_bytes > 0');
    if (opts.deliveredOnly) where.push(`NOT EXISTS (SELECT 1 FROM outbox o WHERE o.classification_id = c.id AND o.state = 'pending')`);
    params.push(limit);
    return this.db.all<Candidate>(
      `SELECT c.id, c.tenant, c.clip_bytes + c.highlight_bytes AS bytes, ${PENDING} AS pending
       FROM classifications c WHERE ${where.join(' AND ')} ORDER BY c.created_ms, c.rowid LIMIT ?`,
      params,
    );
  }

  /** Hides a batch at once; a crash after this leaves them for the start-up reconciliation to finish. */
  async markDeleting(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.run(`UPDATE classifications SET deleting = 1 WHERE id IN (${ids.map(() => '?').join(',')})`, ids);
  }

  /** Final classifications whose original clip is older than the cutoff and still stored. */
  expiredClips(createdBefore: number, limit: number): Promise<Array<{ id: string; filename: string }>> {
    return this.db.all(
      `SELECT id, filename FROM classifications WHERE final = 1 AND deleting = 0 AND clip_deleted = 0 AND created_ms < ?
       ORDER BY created_ms, rowid LIMIT ?`,
      [createdBefore, limit],
    );
  }

  async markClipDeleted(id: string): Promise<void> {
    await this.db.run('UPDATE classifications SET clip_deleted = 1, clip_bytes = 0 WHERE id = ?', [id]);
  }

  async markHighlightDeleted(id: string): Promise<void> {
    await this.db.run('UPDATE classifications SET highlight_deleted = 1, highlight_bytes = 0 WHERE id = ?', [id]);
  }

  /** Rows whose files should exist, for the start-up check (in pages, by rowid). */
  mediaRows(afterRowid: number, limit: number): Promise<Array<{ rowid: number; id: string; filename: string; clip: number; highlight: number }>> {
    return this.db.all(
      `SELECT rowid, id, filename, clip_deleted = 0 AS clip, (status_video = 'done' AND highlight_deleted = 0) AS highlight
       FROM classifications WHERE deleting = 0 AND rowid > ? ORDER BY rowid LIMIT ?`,
      [afterRowid, limit],
    );
  }

  /**
   * Gives free pages back to the file system in small steps, so reads interleave,
   * then truncates the WAL. Returns the pages released.
   */
  async vacuum(pagesPerStep = 256): Promise<number> {
    let released = 0;
    for (;;) {
      const before = (await this.db.get<{ freelist_count: number }>('PRAGMA freelist_count'))?.freelist_count ?? 0;
      if (before === 0) break;
      // all() steps the pragma to the end: each step releases one page
      await this.db.all(`PRAGMA incremental_vacuum(${pagesPerStep})`);
      const after = (await this.db.get<{ freelist_count: number }>('PRAGMA freelist_count'))?.freelist_count ?? 0;
      released += before - after;
      if (after >= before) break; // auto_vacuum is off in this file (created before it was set): nothing to do
    }
    if (released > 0) await this.db.all('PRAGMA wal_checkpoint(TRUNCATE)');
    return released;
  }
}
