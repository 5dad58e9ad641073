// Read-only queries the dashboard needs and the API has no endpoint for: the
// latest classifications, delivery state per integration, last captures.
import type { ClassificationRow } from '../store/classifications.js';
import type { Queryable } from '../store/db.js';
import { isoNow } from '../store/time.js';

/** The newest classifications first (of one tenant, or of all for null), without those being deleted. */
export function recentClassifications(db: Queryable, tenant: string | null, limit: number): Promise<ClassificationRow[]> {
  return tenant === null
    ? db.all<ClassificationRow>('SELECT * FROM classifications WHERE deleting = 0 ORDER BY created_ms DESC, rowid DESC LIMIT ?', [limit])
    : db.all<ClassificationRow>('SELECT * FROM classifications WHERE deleting = 0 AND tenant = ? ORDER BY created_ms DESC, rowid DESC LIMIT ?', [tenant, limit]);
}

export interface DeliveryState {
  pending: number;
  delivered: number;
  last_success_at: string | null;
  last_error: string | null;
  /** when the delivery with the last error ended (null while it is still pending) */
  last_error_at: string | null;
  /** when that delivery is tried again, while it is pending */
  retry_at: string | null;
}

export const deliveryKey = (target: string, integrationId: string | null) => `${target}:${integrationId ?? ''}`;

const iso = (ms: number | null) => (ms === null ? null : isoNow(new Date(ms)));

interface Grouped {
  target: string;
  integration_id: string | null;
  pending: number;
  delivered: number;
  last_success_ms: number | null;
}

/**
 * Delivery state by target and integration ("mqtt" has no integration id).
 * An error is an answer other than 2xx, or the reason a delivery still waits.
 */
export async function deliveryStates(db: Queryable): Promise<Map<string, DeliveryState>> {
  const groups = await db.all<Grouped>(
    `SELECT target, integration_id,
            SUM(state = 'pending') AS pending,
            SUM(state = 'delivered') AS delivered,
            MAX(CASE WHEN state = 'delivered' AND (status_code IS NULL OR status_code BETWEEN 200 AND 299) THEN finished_ms END) AS last_success_ms
       FROM outbox GROUP BY target, integration_id`,
  );
  // SQLite takes the bare columns from the row holding MAX(id): the newest error of each group.
  const errors = await db.all<{ target: string; integration_id: string | null; error: string; at: number | null; retry: number | null }>(
    `SELECT target, integration_id, MAX(id) AS newest,
            CASE WHEN last_error <> '' THEN last_error ELSE 'HTTP ' || status_code END AS error,
            finished_ms AS at, CASE WHEN state = 'pending' THEN next_attempt_ms END AS retry
       FROM outbox
      WHERE last_error <> '' OR (status_code IS NOT NULL AND status_code NOT BETWEEN 200 AND 299)
      GROUP BY target, integration_id`,
  );
  const states = new Map<string, DeliveryState>();
  for (const g of groups) {
    states.set(deliveryKey(g.target, g.integration_id), {
      pending: g.pending, delivered: g.delivered, last_success_at: iso(g.last_success_ms), last_error: null, last_error_at: null, retry_at: null,
    });
  }
  for (const e of errors) {
    const state = states.get(deliveryKey(e.target, e.integration_id));
    if (state) Object.assign(state, { last_error: e.error, last_error_at: iso(e.at), retry_at: iso(e.retry) });
  }
  return states;
}

/** When the newest classification of a tenant's camera id was made, or null. */
export async function lastCapture(db: Queryable, tenant: string, cameraId: string): Promise<string | null> {
  if (!cameraId) return null;
  const row = await db.get<{ at: string | null }>(
    'SELECT created_at AS at FROM classifications WHERE tenant = ? AND camera_id = ? ORDER BY created_ms DESC LIMIT 1',
    [tenant, cameraId],
  );
  return row?.at ?? null;
}
