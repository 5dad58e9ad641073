// Queries on the store-and-forward outbox. ClassificationStore.finalize writes
// the rows (in the transaction that makes a result final); this module reads
// what is due and records how each delivery ended. A row is `pending` until
// the destination answered (`delivered`, with the HTTP status for webhooks)
// or the drop policy gave it up (`dropped`).
import type { Database } from '../store/db.js';

export type OutboxTarget = 'webhook' | 'mqtt';
export type OutboxState = 'pending' | 'delivered' | 'dropped';

export interface OutboxRow {
  id: number;
  classification_id: string;
  tenant: string;
  target: OutboxTarget;
  integration_id: string | null;
  url: string | null;
  state: OutboxState;
  attempts: number;
  next_attempt_ms: number;
  status_code: number | null;
  last_error: string;
  created_ms: number;
  finished_ms: number | null;
}

export interface OutboxSummary {
  total: number;
  pending: number;
  delivered: number;
  dropped: number;
  by_target: Record<string, { pending: number; delivered: number; dropped: number }>;
  oldest_pending_ms: number | null;
}

// Rows of a classification that is being deleted are never sent again.
const LIVE = 'JOIN classifications c ON c.id = o.classification_id AND c.deleting = 0';

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(',');

export class Outbox {
  constructor(private readonly db: Database) {}

  /** The webhook endpoints (URLs) that have pending deliveries. */
  async pendingEndpoints(): Promise<string[]> {
    const rows = await this.db.all<{ url: string }>(
      `SELECT DISTINCT o.url FROM outbox o ${LIVE} WHERE o.state = 'pending' AND o.target = 'webhook' AND o.url IS NOT NULL`,
    );
    return rows.map((r) => r.url);
  }

  /** The oldest pending rows of one target (and URL for webhooks), skipping those already in flight. */
  pending(target: OutboxTarget, url: string | null, skip: number[], limit: number): Promise<OutboxRow[]> {
    const params: unknown[] = [target];
    let where = `o.state = 'pending' AND o.target = ?`;
    if (url !== null) {
      where += ' AND o.url = ?';
      params.push(url);
    }
    if (skip.length) {
      where += ` AND o.id NOT IN (${placeholders(skip.length)})`;
      params.push(...skip);
    }
    params.push(limit);
    return this.db.all<OutboxRow>(`SELECT o.* FROM outbox o ${LIVE} WHERE ${where} ORDER BY o.id LIMIT ?`, params);
  }

  /** The destination answered: the delivery is over, whatever the status. Returns false if the row is gone or no longer pending. */
  async markDelivered(id: number, statusCode: number | null): Promise<boolean> {
    const { changes } = await this.db.run(
      `UPDATE outbox SET state = 'delivered', status_code = ?, attempts = attempts + 1, last_error = '', finished_ms = ?
       WHERE id = ? AND state = 'pending'`,
      [statusCode, Date.now(), id],
    );
    return changes > 0;
  }

  /** No answer (no connectivity): the row stays pending for a later try. */
  async markUnanswered(id: number, error: string, nextAttemptMs: number): Promise<void> {
    await this.db.run(
      `UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_attempt_ms = ? WHERE id = ? AND state = 'pending'`,
      [error.slice(0, 500), nextAttemptMs, id],
    );
  }

  /**
   * The drop policy: pending rows created before `olderThanMs`, then the oldest
   * beyond `maxPending`, become `dropped`. Returns the rows dropped.
   */
  async dropByPolicy(olderThanMs: number | null, maxPending: number | null): Promise<Array<OutboxRow & { reason: string }>> {
    return this.db.transaction(async (tx) => {
      const dropped: Array<OutboxRow & { reason: string }> = [];
      const now = Date.now();
      const drop = async (rows: OutboxRow[], reason: string) => {
        for (const row of rows) {
          await tx.run(`UPDATE outbox SET state = 'dropped', last_error = ?, finished_ms = ? WHERE id = ?`, [reason, now, row.id]);
          dropped.push({ ...row, reason });
        }
      };
      if (olderThanMs !== null) {
        await drop(await tx.all<OutboxRow>(`SELECT * FROM outbox WHERE state = 'pending' AND created_ms < ? ORDER BY id`, [olderThanMs]), 'max_pending_age');
      }
      if (maxPending !== null) {
        await drop(
          await tx.all<OutboxRow>(`SELECT * FROM outbox WHERE state = 'pending' ORDER BY id DESC LIMIT -1 OFFSET ?`, [maxPending]),
          'max_pending',
        );
      }
      return dropped;
    });
  }

  /** Every delivery of one classification, oldest first. */
  forClassification(classificationId: string): Promise<OutboxRow[]> {
    return this.db.all<OutboxRow>('SELECT * FROM outbox WHERE classification_id = ? ORDER BY id', [classificationId]);
  }

  async summary(): Promise<OutboxSummary> {
    const rows = await this.db.all<{ target: string; state: OutboxState; n: number; oldest: number }>(
      'SELECT target, state, COUNT(*) AS n, MIN(created_ms) AS oldest FROM outbox GROUP BY target, state',
    );
    const out: OutboxSummary = { total: 0, pending: 0, delivered: 0, dropped: 0, by_target: {}, oldest_pending_ms: null };
    for (const target of ['webhook', 'mqtt']) out.by_target[target] = { pending: 0, delivered: 0, dropped: 0 };
    for (const r of rows) {
      const t = (out.by_target[r.target] ??= { pending: 0, delivered: 0, dropped: 0 });
      if (r.state in t) {
        t[r.state] += r.n;
        out[r.state] += r.n;
      }
      out.total += r.n;
      if (r.state === 'pending') out.oldest_pending_ms = Math.min(out.oldest_pending_ms ?? r.oldest, r.oldest);
    }
    return out;
  }

  /** Pending deliveries, for the status message and metrics. */
  async pendingCount(): Promise<number> {
    const row = await this.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM outbox WHERE state = 'pending'`);
    return row?.n ?? 0;
  }
}
