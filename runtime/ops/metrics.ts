// The daemon's metrics. Counts and durations come from bus events; gauges that
// mirror the stored state (jobs, outbox, media, disk) are read at scrape time
// with read-only SQL and statfs, so they are right after a restart too.
import fs from 'node:fs';
import type { BusEvents, EventBus } from '../core/bus.js';
import type { Feature } from '../core/feature.js';
import type { Queryable } from '../store/db.js';
import { volumeSpace } from './core-checks.js';
import { Registry } from './prometheus.js';

export interface MetricsDeps {
  bus: EventBus;
  db: Queryable;
  dataDir: string;
  /** the SQLite file (its -wal and -shm companions are counted too) */
  databaseFile: string;
  /** the runtime's version, for vigil_build_info */
  version: string;
}

const SECONDS_PER_CLIP = [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];
const INFERENCE_SECONDS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const JOB_STATES = ['queued', 'running'];
const DELIVERY_TARGETS: Array<BusEvents['delivery.finished']['target']> = ['webhook', 'mqtt'];
const DELIVERY_OUTCOMES: Array<BusEvents['delivery.finished']['outcome']> = ['delivered', 'failed_status', 'dropped'];
/** a job that never becomes final (deleted while running) must not keep its start time forever */
const MAX_TRACKED_STARTS = 10_000;

export class Metrics implements Feature {
  readonly name = 'metrics';
  private registry: Registry | undefined;
  private unsubscribe: Array<() => void> = [];

  constructor(private readonly deps: MetricsDeps) {}

  async start(): Promise<void> {
    const { bus, db } = this.deps;
    const r = new Registry();

    const buildInfo = r.gauge('vigil_build_info', 'The running Vigil version (always 1).');
    buildInfo.set(1, { version: this.deps.version });
    const startTime = r.gauge('process_start_time_seconds', 'Start time of the process since the Unix epoch, in seconds.');
    startTime.set(Math.round(Date.now() / 1000 - process.uptime()));
    const rss = r.gauge('process_resident_memory_bytes', 'Resident memory of the daemon process, in bytes.');

    const jobs = r.gauge('vigil_jobs', 'Jobs in the durable queue by state (queued, running).');
    const queueDepth = r.gauge('vigil_queue_depth', 'Jobs waiting for a processing slot.');
    const finished = r.counter('vigil_classifications_finished_total', 'Classifications that became final since the start, by result (classified or error).');
    const errors = r.counter('vigil_classification_errors_total', 'Final classifications with an error, by error_code.');
    const clipSeconds = r.histogram('vigil_clip_processing_seconds', 'Time from the start of processing a clip to its final result.', SECONDS_PER_CLIP);
    const inferenceSeconds = r.histogram('vigil_inference_duration_seconds', 'Inference time spent on one clip (all its frames).', INFERENCE_SECONDS);
    const frames = r.counter('vigil_frames_inferred_total', 'Frames run through a model, by backend.');
    const backend = r.gauge('vigil_inference_backend', 'The inference backend in use (1 for the backend label that is active).');
    const model = r.gauge('vigil_model_info', 'The active model pack (1 for its name and version).');
    const outbox = r.gauge('vigil_outbox_pending', 'Deliveries waiting in the outbox, by target.');
    const deliveries = r.counter('vigil_deliveries_total', 'Deliveries that ended since the start, by target and outcome.');
    const mqtt = r.gauge('vigil_mqtt_connected', 'Whether the MQTT client is connected to its broker (1) or not (0).');
    const mediaBytes = r.gauge('vigil_media_bytes', 'Bytes of stored clips and highlight videos.');
    const databaseBytes = r.gauge('vigil_database_bytes', 'Bytes of the SQLite database (with its WAL).');
    const diskFree = r.gauge('vigil_disk_free_bytes', 'Free bytes on the data volume (usable without root).');
    const stalled = r.counter('vigil_requests_stalled_total', 'Requests whose client stopped sending mid-way and were closed, by phase (headers or body).');
    const diskTotal = r.gauge('vigil_disk_total_bytes', 'Size of the data volume in bytes.');

    clipSeconds.touch();
    inferenceSeconds.touch();
    for (const result of ['classified', 'error']) finished.touch({ result });
    for (const target of DELIVERY_TARGETS) for (const outcome of DELIVERY_OUTCOMES) deliveries.touch({ target, outcome });
    mqtt.set(0);
    for (const phase of ['headers', 'body']) stalled.touch({ phase });

    const started = new Map<string, number>();
    this.unsubscribe = [
      bus.on('job.started', ({ id }) => {
        if (started.size >= MAX_TRACKED_STARTS) started.delete(started.keys().next().value!);
        started.set(id, performance.now());
      }),
      bus.on('result.final', ({ id, errorCode }) => {
        finished.inc({ result: errorCode === 0 ? 'classified' : 'error' });
        if (errorCode !== 0) errors.inc({ error_code: String(errorCode) });
        const t0 = started.get(id);
        started.delete(id);
        if (t0 !== undefined) clipSeconds.observe((performance.now() - t0) / 1000);
      }),
      bus.on('classification.deleted', ({ id }) => void started.delete(id)),
      bus.on('classification.stats', (e) => {
        inferenceSeconds.observe(e.stats.inferenceMs / 1000);
        frames.inc({ backend: e.backend }, e.stats.framesInferred);
        backend.replace([{ labels: { backend: e.backend }, value: 1 }]);
      }),
      bus.on('model.activated', (e) => {
        model.replace([{ labels: { name: e.name, version: e.version }, value: 1 }]);
        backend.replace([{ labels: { backend: e.backend }, value: 1 }]);
      }),
      bus.on('delivery.finished', ({ target, outcome }) => deliveries.inc({ target, outcome })),
      bus.on('mqtt.connection', ({ connected }) => mqtt.set(connected ? 1 : 0)),
      bus.on('request.stalled', ({ phase }) => stalled.inc({ phase })),
    ];

    r.collect(async () => {
      rss.set(process.memoryUsage.rss());
    });
    r.collect(async () => {
      const rows = await db.all<{ state: string; n: number }>('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state');
      const count = (s: string) => rows.find((row) => row.state === s)?.n ?? 0;
      const states = new Set([...JOB_STATES, ...rows.map((row) => row.state)]);
      jobs.replace([...states].map((state) => ({ labels: { state }, value: count(state) })));
      queueDepth.set(count('queued'));
    });
    r.collect(async () => {
      const rows = await db.all<{ target: string; n: number }>(`SELECT target, COUNT(*) AS n FROM outbox WHERE state = 'pending' GROUP BY target`);
      const targets = new Set<string>([...DELIVERY_TARGETS, ...rows.map((row) => row.target)]);
      outbox.replace([...targets].map((target) => ({ labels: { target }, value: rows.find((row) => row.target === target)?.n ?? 0 })));
    });
    r.collect(async () => mediaBytes.set(await this.mediaBytes()));
    r.collect(async () => databaseBytes.set(await this.databaseBytes()));
    r.collect(async () => {
      const space = await volumeSpace(this.deps.dataDir);
      diskFree.set(space.freeBytes);
      diskTotal.set(space.totalBytes);
    });
    this.registry = r;
  }

  async stop(): Promise<void> {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
  }

  /** The Prometheus text of every metric. */
  async render(): Promise<string> {
    if (!this.registry) throw new Error('metrics are not started');
    return this.registry.render();
  }

  private async mediaBytes(): Promise<number> {
    // media_totals is kept by triggers (no table scan); the sum is the fallback for a store without it
    try {
      const row = await this.deps.db.get<{ n: number }>('SELECT media_bytes AS n FROM media_totals WHERE id = 1');
      if (row) return row.n;
    } catch {
      /* no media_totals table */
    }
    const row = await this.deps.db.get<{ n: number }>('SELECT COALESCE(SUM(clip_bytes + highlight_bytes), 0) AS n FROM classifications');
    return row?.n ?? 0;
  }

  private async databaseBytes(): Promise<number> {
    let total = 0;
    for (const suffix of ['', '-wal', '-shm']) {
      try {
        total += (await fs.promises.stat(this.deps.databaseFile + suffix)).size;
      } catch {
        /* the WAL files exist only while the database is open in WAL mode */
      }
    }
    return total;
  }
}
