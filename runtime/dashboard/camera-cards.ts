// The dashboard's camera cards: one per camera of a tenant, whether Vigil
// records from it or it only posts clips. A configured camera has a card from
// the start; a camera that is not configured gets one once a clip with its
// camera_id was classified. Each card carries the camera's last result, the
// result whose snapshot to show, and its problem: set by a failed capture
// (error_code 3001), cleared by a good result, as on MQTT; and a watched
// camera's state (watching, motion, recording an event, down) with its last events.
import type { CameraWatchStatus } from '../capture/watch.js';
import type { Config } from '../config/schema.js';
import { ErrorCode } from '../core/errors.js';
import { redactedUrl } from '../core/redact.js';
import type { ClassificationRow } from '../store/classifications.js';
import type { Queryable } from '../store/db.js';
import { toResultJson, type ResultJson } from '../store/result-json.js';

export interface CameraCard {
  id: string;
  /** its name in the config, else the id */
  name: string;
  tenant: string;
  /** the stream Vigil records from, credentials and query values hidden; empty for a camera that only posts clips */
  url: string;
  /** Vigil records from it: the card has a capture button */
  records: boolean;
  configured: boolean;
  last_result: ResultJson | null;
  /** the newest result of the camera with a snapshot (GET .../snapshot/<id>) */
  snapshot_id: string | null;
  /** the failed capture that set the camera's problem, while no good result followed it */
  problem: { result_id: string; error_msg: string; time: string } | null;
  /** a watched camera's state, since when, why it is down, and its last events; null when not watched */
  watch: Pick<CameraWatchStatus, 'state' | 'since' | 'reason' | 'events_total' | 'last_events'> | null;
}

type Grouped<T> = T & { tenant: string; camera_id: string };
const key = (tenant: string, camera: string) => `${tenant}\n${camera}`;

/** Per (tenant, camera id), the columns of its newest row that matches `where` (SQLite takes bare columns from the MAX row). */
async function newest<T>(db: Queryable, columns: string, where: string, tenant: string | null): Promise<Map<string, Grouped<T>>> {
  const rows = await db.all<Grouped<T>>(
    `SELECT ${columns}, tenant, camera_id, MAX(created_ms) AS newest_ms FROM classifications
      WHERE camera_id <> '' AND deleting = 0 AND ${where} ${tenant === null ? '' : 'AND tenant = ?'}
      GROUP BY tenant, camera_id`,
    tenant === null ? [] : [tenant],
  );
  return new Map(rows.map((r) => [key(r.tenant, r.camera_id), r]));
}

export async function cameraCards(
  db: Queryable,
  config: Pick<Config, 'cameras'>,
  /** tenant ids in config order: a camera naming no tenant is the first one's */
  tenants: string[],
  /** null: the admin, every tenant */
  tenant: string | null,
  watchStatus: (camera: string) => CameraWatchStatus | undefined = () => undefined,
): Promise<CameraCard[]> {
  const [latest, snapshots, problems] = await Promise.all([
    newest<ClassificationRow>(db, '*', '1', tenant),
    newest<{ id: string }>(db, 'id', "status_video = 'done'", tenant),
    newest<{ id: string; error_code: number; error_msg: string; created_at: string }>(
      db, 'id, error_code, error_msg, created_at', `error_code IN (${ErrorCode.OK}, ${ErrorCode.CAPTURE_FAILED})`, tenant,
    ),
  ]);
  const cards = new Map<string, CameraCard>();
  const add = (id: string, owner: string, extra: Partial<CameraCard>) => {
    const k = key(owner, id);
    const row = latest.get(k);
    const problem = problems.get(k);
    const watched = extra.configured ? watchStatus(id) : undefined;
    cards.set(k, {
      id, name: id, tenant: owner, url: '', records: false, configured: false,
      last_result: row ? toResultJson(row) : null,
      snapshot_id: snapshots.get(k)?.id ?? null,
      problem: problem && problem.error_code === ErrorCode.CAPTURE_FAILED
        ? { result_id: problem.id, error_msg: problem.error_msg, time: problem.created_at }
        : null,
      watch: watched
        ? { state: watched.state, since: watched.since, reason: watched.reason, events_total: watched.events_total, last_events: watched.last_events }
        : null,
      ...extra,
    });
  };
  for (const c of config.cameras) {
    const owner = c.tenant ?? tenants[0] ?? 'default';
    if (tenant !== null && owner !== tenant) continue;
    add(c.id, owner, { name: c.name || c.id, url: c.url ? redactedUrl(c.url) : '', records: Boolean(c.url), configured: true });
  }
  for (const row of latest.values()) if (!cards.has(key(row.tenant, row.camera_id))) add(row.camera_id, row.tenant, {});
  return [...cards.values()].sort((a, b) => a.tenant.localeCompare(b.tenant) || a.name.localeCompare(b.name));
}
