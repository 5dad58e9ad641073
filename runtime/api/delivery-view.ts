// One delivery of a classification as the admin API shows it (GET
// /api/admin/deliveries/<id>); its own module, so the OpenAPI
// schemas can check their shape against it without importing the routes.
import { redactSecrets } from '../core/redact.js';
import type { OutboxRow } from '../delivery/outbox.js';
import { isoNow } from '../store/time.js';

const iso = (ms: number | null) => (ms === null ? null : isoNow(new Date(ms)));

export function deliveryView(row: OutboxRow) {
  return {
    id: row.id,
    target: row.target,
    integration_id: row.integration_id,
    url: row.url,
    state: row.state,
    status_code: row.status_code,
    attempts: row.attempts,
    last_error: redactSecrets(row.last_error, { originOnly: row.url ? [row.url] : [] }),
    created_at: iso(row.created_ms),
    finished_at: iso(row.finished_ms),
    next_attempt_at: row.state === 'pending' ? iso(row.next_attempt_ms) : null,
  };
}
