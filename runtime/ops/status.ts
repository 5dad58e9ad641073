// The gateway's status, the one read model behind every view of it: /metrics
// (metrics.ts sets its gauges from it at each scrape), the dashboard's status
// (overview.ts) and MQTT's status message (delivery/mqtt-publisher.ts, which
// gets it from the daemon). Each figure is read here, from where it lives (the
// database, the data volume, /proc, the model service, the readiness checks)
// whenever asked, so it is right after a restart too; only the MQTT connection
// is known from events. A view asks for the parts it shows and shapes them for
// its output.
import type { EventBus } from '../core/bus.js';
import { diskSpace } from '../core/disk-space.js';
import type { Feature } from '../core/feature.js';
import { Outbox } from '../delivery/outbox.js';
import type { ModelService } from '../models/model-service.js';
import type { RetentionConfig } from '../retention/config.js';
import { RetentionQueries } from '../retention/retention-queries.js';
import type { Database } from '../store/db.js';
import { ChildrenSampler, type ChildKind, type ChildrenSample } from './children.js';
import type { Readiness, ReadinessReport } from './readiness.js';
import { databaseBytes as databaseFileBytes, mediaBytes as storedMediaBytes } from './store-size.js';

export interface StatusDeps {
  db: Database;
  bus: EventBus;
  readiness: Readiness;
  models: Pick<ModelService, 'status' | 'packStore'>;
  dataDir: string;
  /** the SQLite file (its -wal and -shm companions are counted too) */
  databaseFile: string;
  retention: Pick<RetentionConfig, 'max_age_days' | 'max_count' | 'max_media_bytes' | 'min_free_bytes'>;
  mqtt: { enabled: boolean; url: string };
  version: string;
}

export interface GatewayStatus {
  version: string;
  uptimeS: number;
  /** every readiness check, as /readyz runs them */
  readiness: ReadinessReport;
  model: {
    /** the active pack's id, name and version; null while none is active */
    pack: string | null;
    name: string | null;
    version: string | null;
    backend: string | null;
    /** why the backend was chosen */
    backendReason: string | null;
    error: string | null;
    /** the pack `vigil models rollback` would go back to */
    rollbackTarget: string | null;
  };
  /** jobs in the durable queue by state; queued and running are always present */
  jobs: Record<string, number>;
  /** deliveries in the outbox by state, and those pending by target (webhook and mqtt always present) */
  outbox: { pending: number; delivered: number; dropped: number; pendingByTarget: Record<string, number> };
  store: {
    /** bytes of stored clips and highlights */
    mediaBytes: number;
    /** the count retention.max_count is checked against */
    classifications: number;
    /** bytes of the SQLite file with its WAL */
    databaseBytes: number;
  };
  disk: { freeBytes: number; totalBytes: number };
  /** the retention bounds (0 = off) */
  retentionBounds: { maxMediaBytes: number; minFreeBytes: number; maxCount: number; maxAgeDays: number };
  mqtt: { enabled: boolean; connected: boolean; url: string | null };
  /** running child processes: interpreter workers, ffmpeg/ffprobe, other */
  children: Record<ChildKind, { count: number; residentBytes: number }>;
  /** CPU seconds of the children by kind since the daemon started (grows only) */
  childrenCpuSeconds: Record<ChildKind, number>;
}

export type StatusPart = keyof GatewayStatus;

export const JOB_STATES = ['queued', 'running'];
export const DELIVERY_TARGETS = ['webhook', 'mqtt'];

/** Keeps what is only known from events (the MQTT connection) and reads the rest when asked. */
export class GatewayStatusReader implements Feature {
  readonly name = 'status';
  private mqttConnected = false;
  private unsubscribe: Array<() => void> = [];
  private readonly sampler = new ChildrenSampler();
  private readonly outbox: Outbox;
  private readonly retention: RetentionQueries;

  /** how each part is read; `children` gives one sample of /proc to both children parts of a read */
  private readonly parts: { [K in StatusPart]: (children: () => ChildrenSample) => GatewayStatus[K] | Promise<GatewayStatus[K]> };

  constructor(private readonly deps: StatusDeps) {
    this.outbox = new Outbox(deps.db);
    this.retention = new RetentionQueries(deps.db);
    this.parts = {
      version: () => deps.version,
      uptimeS: () => Math.round(process.uptime()),
      readiness: () => deps.readiness.run(),
      model: () => this.model(),
      jobs: () => this.jobs(),
      outbox: () => this.outboxFigures(),
      store: async () => {
        const [mediaBytes, classifications, databaseBytes] = await Promise.all([
          storedMediaBytes(deps.db),
          this.retention.totals().then((t) => t.count),
          databaseFileBytes(deps.databaseFile),
        ]);
        return { mediaBytes, classifications, databaseBytes };
      },
      disk: async () => {
        const { freeBytes, totalBytes } = await diskSpace(deps.dataDir);
        return { freeBytes, totalBytes };
      },
      retentionBounds: () => ({
        maxMediaBytes: deps.retention.max_media_bytes,
        minFreeBytes: deps.retention.min_free_bytes,
        maxCount: deps.retention.max_count,
        maxAgeDays: deps.retention.max_age_days,
      }),
      mqtt: () => ({ enabled: deps.mqtt.enabled, connected: deps.mqtt.enabled && this.mqttConnected, url: deps.mqtt.enabled ? deps.mqtt.url : null }),
      children: (children) => children().running,
      childrenCpuSeconds: (children) => children().cpuSeconds,
    };
  }

  async start(): Promise<void> {
    this.unsubscribe = [this.deps.bus.on('mqtt.connection', ({ connected }) => void (this.mqttConnected = connected))];
  }

  async stop(): Promise<void> {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
  }

  /** The parts asked for, read afresh and at once. */
  async read<K extends StatusPart>(wanted: readonly K[]): Promise<Pick<GatewayStatus, K>> {
    let sample: ChildrenSample | undefined;
    const children = () => (sample ??= this.sampler.sample());
    const status = {} as Pick<GatewayStatus, K>;
    await Promise.all(wanted.map(async (part) => void (status[part] = await this.parts[part](children))));
    return status;
  }

  private model(): GatewayStatus['model'] {
    const { models } = this.deps;
    const status = models.status;
    const packs = models.packStore;
    return {
      pack: status.pack,
      name: status.name,
      version: status.version,
      backend: status.backend,
      backendReason: status.reason,
      error: status.error,
      rollbackTarget: packs?.history().find((id) => packs.get(id)) ?? null,
    };
  }

  private async jobs(): Promise<Record<string, number>> {
    const out: Record<string, number> = Object.fromEntries(JOB_STATES.map((k) => [k, 0]));
    for (const row of await this.deps.db.all<{ k: string; n: number }>('SELECT state AS k, COUNT(*) AS n FROM jobs GROUP BY state')) out[row.k] = row.n;
    return out;
  }

  private async outboxFigures(): Promise<GatewayStatus['outbox']> {
    const summary = await this.outbox.summary();
    const pendingByTarget: Record<string, number> = Object.fromEntries(DELIVERY_TARGETS.map((t) => [t, 0]));
    for (const [target, counts] of Object.entries(summary.by_target)) pendingByTarget[target] = counts.pending;
    return { pending: summary.pending, delivered: summary.delivered, dropped: summary.dropped, pendingByTarget };
  }
}
