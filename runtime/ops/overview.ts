// The gateway at a glance, for the dashboard: readiness checks, model pack and
// backend, queue, disk against the retention bounds, database size, MQTT,
// uptime, version.
// Read from the same sources as /readyz and /metrics (the readiness registry,
// the store, statfs, store-size.ts, retention's totals), so the dashboard never disagrees with them.
import type { EventBus } from '../core/bus.js';
import { redactDeep, redactedUrl } from '../core/redact.js';
import type { Feature } from '../core/feature.js';
import type { ModelService } from '../models/model-service.js';
import type { RetentionConfig } from '../retention/config.js';
import type { ClassificationStore } from '../store/classifications.js';
import { RetentionQueries } from '../retention/retention-queries.js';
import type { Database } from '../store/db.js';
import { diskSpace } from '../core/disk-space.js';
import type { ReadinessReport, Readiness } from './readiness.js';
import { databaseBytes, mediaBytes } from './store-size.js';

export interface OverviewDeps {
  readiness: Readiness;
  models: Pick<ModelService, 'status' | 'packStore'>;
  store: Pick<ClassificationStore, 'jobCounts'>;
  db: Database;
  bus: EventBus;
  dataDir: string;
  databaseFile: string;
  retention: Pick<RetentionConfig, 'max_age_days' | 'max_count' | 'max_media_bytes' | 'min_free_bytes'>;
  mqtt: { enabled: boolean; url: string };
  version: string;
}

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

/** Keeps what is only known from events (the MQTT connection) and answers the status. */
export class GatewayOverview implements Feature {
  readonly name = 'overview';
  private mqttConnected = false;
  private unsubscribe: Array<() => void> = [];

  constructor(private readonly deps: OverviewDeps) {}

  async start(): Promise<void> {
    this.unsubscribe = [this.deps.bus.on('mqtt.connection', ({ connected }) => void (this.mqttConnected = connected))];
  }

  async stop(): Promise<void> {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
  }

  async read(): Promise<Overview> {
    const d = this.deps;
    const [report, queue, media, count, dbBytes, space] = await Promise.all([
      d.readiness.run(),
      d.store.jobCounts(),
      mediaBytes(d.db),
      new RetentionQueries(d.db).totals().then((t) => t.count), // the count retention.max_count is checked against
      databaseBytes(d.databaseFile),
      diskSpace(d.dataDir),
    ]);
    const model = d.models.status;
    const packs = d.models.packStore;
    // readiness details and model errors quote URLs (a model source, a broker): the status shows none of their secrets
    return redactDeep({
      version: d.version,
      uptime_s: Math.round(process.uptime()),
      ready: report.ok,
      checks: report.checks,
      model: {
        pack: model.pack,
        backend: model.backend,
        backend_reason: model.reason,
        error: model.error,
        rollback_target: packs?.history().find((id) => packs.get(id)) ?? null,
      },
      queue,
      storage: {
        media_bytes: media,
        classifications: count,
        database_bytes: dbBytes,
        disk_free_bytes: space.freeBytes,
        disk_total_bytes: space.totalBytes,
        bounds: {
          max_media_bytes: d.retention.max_media_bytes,
          min_free_bytes: d.retention.min_free_bytes,
          max_count: d.retention.max_count,
          max_age_days: d.retention.max_age_days,
        },
      },
      mqtt: { enabled: d.mqtt.enabled, connected: d.mqtt.enabled && this.mqttConnected, url: d.mqtt.enabled ? redactedUrl(d.mqtt.url) : null },
    });
  }
}
