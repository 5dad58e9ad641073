// The gateway at a glance, for the dashboard: readiness checks, model pack and
// backend, queue, disk against the retention bounds, database size, MQTT,
// uptime, version. Shaped from the gateway's status (status.ts), the read model
// /readyz's checks and /metrics' gauges share, so the dashboard never disagrees with them.
import { redactDeep, redactedUrl } from '../core/redact.js';
import type { GatewayStatusReader } from './status.js';
import type { ReadinessReport } from './readiness.js';

export interface Overview {
  version: string;
  uptime_s: number;
  ready: boolean;
  checks: ReadinessReport['checks'];
  model: {
    pack: string | null;
    backend: string | null;
    backend_reason: string | null;
    error: string | null;
    /** the pack `vigil models rollback` would go back to */
    rollback_target: string | null;
  };
  queue: { queued: number; running: number };
  storage: {
    media_bytes: number;
    classifications: number;
    database_bytes: number;
    disk_free_bytes: number;
    disk_total_bytes: number;
    /** the retention bounds (0 = off) */
    bounds: { max_media_bytes: number; min_free_bytes: number; max_count: number; max_age_days: number };
  };
  mqtt: { enabled: boolean; connected: boolean; url: string | null };
}

/** The parts of the gateway's status the dashboard shows. */
const SHOWN = ['version', 'uptimeS', 'readiness', 'model', 'jobs', 'store', 'disk', 'retentionBounds', 'mqtt'] as const;

/** The dashboard's status (its JSON shape is the dashboard's API), read from the gateway's status. */
export class GatewayOverview {
  constructor(private readonly status: Pick<GatewayStatusReader, 'read'>) {}

  async read(): Promise<Overview> {
    const s = await this.status.read(SHOWN);
    const bounds = s.retentionBounds;
    // readiness details and model errors quote URLs (a model source, a broker): the status shows none of their secrets
    return redactDeep({
      version: s.version,
      uptime_s: s.uptimeS,
      ready: s.readiness.ok,
      checks: s.readiness.checks,
      model: {
        pack: s.model.pack,
        backend: s.model.backend,
        backend_reason: s.model.backendReason,
        error: s.model.error,
        rollback_target: s.model.rollbackTarget,
      },
      queue: { queued: s.jobs.queued ?? 0, running: s.jobs.running ?? 0 },
      storage: {
        media_bytes: s.store.mediaBytes,
        classifications: s.store.classifications,
        database_bytes: s.store.databaseBytes,
        disk_free_bytes: s.disk.freeBytes,
        disk_total_bytes: s.disk.totalBytes,
        bounds: {
          max_media_bytes: bounds.maxMediaBytes,
          min_free_bytes: bounds.minFreeBytes,
          max_count: bounds.maxCount,
          max_age_days: bounds.maxAgeDays,
        },
      },
      mqtt: { enabled: s.mqtt.enabled, connected: s.mqtt.connected, url: s.mqtt.url === null ? null : redactedUrl(s.mqtt.url) },
    });
  }
}
