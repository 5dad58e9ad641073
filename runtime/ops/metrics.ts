// The daemon's metrics through prom-client, with its standard process and
// Node.js metrics (CPU, memory, heap, event-loop lag, open file descriptors).
// Counts and durations come from bus events; gauges of the stored state (jobs,
// outbox, media, disk), of the MQTT connection and of the child processes are
// set from the gateway's status (status.ts) at each scrape.
import client from 'prom-client';
import type { BusEvents, EventBus } from '../core/bus.js';
import type { Feature } from '../core/feature.js';
import type { Queryable } from '../store/db.js';
import { CHILD_KINDS, type ChildKind } from './children.js';
import { DELIVERY_TARGETS, type GatewayStatus, type GatewayStatusReader } from './status.js';

export interface MetricsDeps {
  bus: EventBus;
  db: Queryable;
  /** the gateway's status, read at each scrape */
  status: Pick<GatewayStatusReader, 'read'>;
  /** the runtime's version, for vigil_build_info */
  version: string;
}

/** The parts of the gateway's status the gauges show. */
const GAUGED = ['jobs', 'outbox', 'store', 'disk', 'mqtt', 'children', 'childrenCpuSeconds'] as const;
type Gauged = Pick<GatewayStatus, (typeof GAUGED)[number]>;

const SECONDS_PER_CLIP = [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];
const INFERENCE_SECONDS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const DELIVERY_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400];
const DELIVERY_OUTCOMES: Array<BusEvents['delivery.finished']['outcome']> = ['delivered', 'failed_status', 'dropped'];
const CAPTURE_OUTCOMES: Array<BusEvents['capture.finished']['outcome']> = ['recorded', 'camera_failed', 'refused'];
/** a job that never becomes final (deleted while running) must not keep its start time forever */
const MAX_TRACKED_STARTS = 10_000;

export const PROMETHEUS_CONTENT_TYPE = client.Registry.PROMETHEUS_CONTENT_TYPE;

export class Metrics implements Feature {
  readonly name = 'metrics';
  private registry: client.Registry | undefined;
  private refresh: ((s: Gauged) => void) | undefined;
  private unsubscribe: Array<() => void> = [];

  constructor(private readonly deps: MetricsDeps) {}

  async start(): Promise<void> {
    const { bus, db } = this.deps;
    const registers = [(this.registry = new client.Registry())];
    client.collectDefaultMetrics({ register: this.registry });
    // gauges named like counters, which `promtool check metrics` rejects; the sum of their per-type series is the same
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) this.registry.removeSingleMetric(name);
    const gauge = <L extends string>(name: string, help: string, labelNames: L[] = []) => new client.Gauge<L>({ name, help, labelNames, registers });
    const counter = <L extends string>(name: string, help: string, labelNames: L[] = []) => new client.Counter<L>({ name, help, labelNames, registers });
    const histogram = <L extends string>(name: string, help: string, buckets: number[], labelNames: L[] = []) =>
      new client.Histogram<L>({ name, help, buckets, labelNames, registers });

    gauge('vigil_build_info', 'The running Vigil version (always 1).', ['version']).set({ version: this.deps.version }, 1);
    const jobs = gauge('vigil_jobs', 'Jobs in the durable queue by state (queued, running).', ['state']);
    const queueDepth = gauge('vigil_queue_depth', 'Jobs waiting for a processing slot.');
    const finished = counter('vigil_classifications_finished_total', 'Classifications that became final since the start, by result (classified or error).', ['result']);
    const errors = counter('vigil_classification_errors_total', 'Final classifications with an error, by error_code.', ['error_code']);
    const risks = counter('vigil_results_total', 'Classified clips (error_code 0) since the start, by risk.', ['risk']);
    const labels = counter('vigil_result_labels_total', 'Labels given to classified clips since the start, one count per label of each result.', ['label']);
    const clipSeconds = histogram('vigil_clip_processing_seconds', 'Time from the start of processing a clip to its final result.', SECONDS_PER_CLIP);
    const inferenceSeconds = histogram('vigil_inference_duration_seconds', 'Inference time spent on one clip (all its frames).', INFERENCE_SECONDS);
    const frames = counter('vigil_frames_inferred_total', 'Frames run through a model, by backend.', ['backend']);
    const backend = gauge('vigil_inference_backend', 'The inference backend in use (1 for the backend label that is active).', ['backend']);
    const model = gauge('vigil_model_info', 'The active model pack (1 for its name and version).', ['name', 'version']);
    const refused = counter('vigil_http_refusals_total', 'Requests the HTTP API refused since the start, by status and error code.', ['status', 'code']);
    const captures = counter('vigil_captures_total', 'Camera recordings since the start, by outcome (recorded, camera_failed, refused).', ['outcome']);
    const outbox = gauge('vigil_outbox_pending', 'Deliveries waiting in the outbox, by target.', ['target']);
    const deliveries = counter('vigil_deliveries_total', 'Deliveries that ended since the start, by target and outcome.', ['target', 'outcome']);
    const deliverySeconds = histogram('vigil_delivery_latency_seconds', 'Time from a final result to its delivery being answered (webhook) or published (MQTT), retries included.', DELIVERY_SECONDS, ['target']);
    const mqtt = gauge('vigil_mqtt_connected', 'Whether the MQTT client is connected to its broker (1) or not (0).');
    const mediaBytes = gauge('vigil_media_bytes', 'Bytes of stored clips and highlight videos.');
    const databaseBytes = gauge('vigil_database_bytes', 'Bytes of the SQLite database (with its WAL).');
    const diskFree = gauge('vigil_disk_free_bytes', 'Free bytes on the data volume (usable without root).');
    const diskTotal = gauge('vigil_disk_total_bytes', 'Size of the data volume in bytes.');
    const children = gauge('vigil_child_processes', 'Running child processes by kind (interpreter workers, ffmpeg and ffprobe, other).', ['kind']);
    const childMemory = gauge('vigil_child_resident_memory_bytes', 'Resident memory of the running child processes, by kind.', ['kind']);
    const childCpu = counter('vigil_child_cpu_seconds_total', 'CPU time (user and system) of the child processes since the start, by kind.', ['kind']);
    const cameraUp = gauge('vigil_camera_up', 'Whether a watched camera\'s streams give video (1) or it is down (0), by camera.', ['camera']);
    const cameraEvents = counter('vigil_camera_events_total', 'Motion events of watched cameras since the start, by camera and outcome (accepted, failed).', ['camera', 'outcome']);
    const cameraMotion = counter('vigil_camera_motion_seconds_total', 'Seconds of motion in the events of watched cameras since the start, by camera.', ['camera']);
    const cameraReconnects = counter('vigil_camera_reconnects_total', 'Streams of watched cameras that ended and were reconnected since the start, by camera.', ['camera']);
    const cameraCpu = counter('vigil_camera_ffmpeg_cpu_seconds_total', 'CPU seconds of the ffmpeg watching each camera (decoding its detect stream, writing its segments), by camera.', ['camera']);
    const stalled = counter('vigil_requests_stalled_total', 'Requests whose client stopped sending mid-way and were closed, by phase (headers or body).', ['phase']);

    clipSeconds.zero({});
    inferenceSeconds.zero({});
    for (const result of ['classified', 'error']) finished.inc({ result }, 0);
    for (const target of DELIVERY_TARGETS) {
      deliverySeconds.zero({ target });
      for (const outcome of DELIVERY_OUTCOMES) deliveries.inc({ target, outcome }, 0);
    }
    for (const outcome of CAPTURE_OUTCOMES) captures.inc({ outcome }, 0);
    for (const phase of ['headers', 'body']) stalled.inc({ phase }, 0);

    const started = new Map<string, number>();
    this.unsubscribe = [
      bus.on('job.started', ({ id }) => {
        if (started.size >= MAX_TRACKED_STARTS) started.delete(started.keys().next().value!);
        started.set(id, performance.now());
      }),
      bus.on('result.final', async ({ id, errorCode }) => {
        finished.inc({ result: errorCode === 0 ? 'classified' : 'error' });
        if (errorCode !== 0) errors.inc({ error_code: String(errorCode) });
        const t0 = started.get(id);
        started.delete(id);
        if (t0 !== undefined) clipSeconds.observe((performance.now() - t0) / 1000);
        if (errorCode !== 0) return;
        // risk and labels as the result carries them, whatever labels the models give
        const row = await db.get<{ risk: string; labels: string }>('SELECT risk, labels FROM classifications WHERE id = ?', [id]);
        if (!row) return;
        if (row.risk) risks.inc({ risk: row.risk });
        for (const label of new Set(JSON.parse(row.labels) as unknown[])) if (typeof label === 'string') labels.inc({ label });
      }),
      bus.on('classification.deleted', ({ id }) => void started.delete(id)),
      bus.on('classification.stats', (e) => {
        inferenceSeconds.observe(e.stats.inferenceMs / 1000);
        frames.inc({ backend: e.backend }, e.stats.framesInferred);
        backend.reset();
        backend.set({ backend: e.backend }, 1);
      }),
      bus.on('model.activated', (e) => {
        model.reset();
        model.set({ name: e.name, version: e.version }, 1);
        backend.reset();
        backend.set({ backend: e.backend }, 1);
      }),
      bus.on('request.refused', ({ status, code }) => refused.inc({ status: String(status), code })),
      bus.on('capture.finished', ({ outcome }) => captures.inc({ outcome })),
      bus.on('delivery.finished', ({ target, outcome, latencyMs }) => {
        deliveries.inc({ target, outcome });
        if (latencyMs !== undefined && outcome !== 'dropped') deliverySeconds.observe({ target }, latencyMs / 1000);
      }),
      bus.on('request.stalled', ({ phase }) => stalled.inc({ phase })),
      bus.on('camera.watch', ({ camera, state }) => {
        if (state === 'starting') {
          for (const outcome of ['accepted', 'failed']) cameraEvents.inc({ camera, outcome }, 0);
          cameraMotion.inc({ camera }, 0);
          cameraReconnects.inc({ camera }, 0);
          cameraCpu.inc({ camera }, 0);
        }
        cameraUp.set({ camera }, state === 'down' ? 0 : 1);
      }),
      bus.on('camera.event', ({ camera, outcome, motionS }) => {
        cameraEvents.inc({ camera, outcome });
        cameraMotion.inc({ camera }, motionS);
      }),
      bus.on('camera.reconnect', ({ camera }) => cameraReconnects.inc({ camera })),
      bus.on('camera.cpu', ({ camera, seconds }) => cameraCpu.inc({ camera }, seconds)),
    ];

    const cpuCounted = Object.fromEntries(CHILD_KINDS.map((k) => [k, 0])) as Record<ChildKind, number>;
    this.refresh = (s) => {
      jobs.reset();
      for (const [state, n] of Object.entries(s.jobs)) jobs.set({ state }, n);
      queueDepth.set(s.jobs.queued ?? 0);
      outbox.reset();
      for (const [target, n] of Object.entries(s.outbox.pendingByTarget)) outbox.set({ target }, n);
      mediaBytes.set(s.store.mediaBytes);
      databaseBytes.set(s.store.databaseBytes);
      mqtt.set(s.mqtt.connected ? 1 : 0);
      diskFree.set(s.disk.freeBytes);
      diskTotal.set(s.disk.totalBytes);
      for (const kind of CHILD_KINDS) {
        children.set({ kind }, s.children[kind].count);
        childMemory.set({ kind }, s.children[kind].residentBytes);
        // the sampler's totals only grow; the counter follows them
        childCpu.inc({ kind }, Math.max(0, s.childrenCpuSeconds[kind] - cpuCounted[kind]));
        cpuCounted[kind] = Math.max(cpuCounted[kind], s.childrenCpuSeconds[kind]);
      }
    };
  }

  async stop(): Promise<void> {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
  }

  /** The Prometheus text of every metric, the state gauges read afresh. */
  async render(): Promise<string> {
    if (!this.registry || !this.refresh) throw new Error('metrics are not started');
    this.refresh(await this.deps.status.read(GAUGED));
    // prom-client writes a NaN sample as "Nan" (the event-loop lag mean and deviation of a
    // scrape that came within 10 ms of the last one); the text format spells it "NaN"
    return (await this.registry.metrics()).replace(/ Nan$/gm, ' NaN');
  }

  /** Every metric's current values as prom-client's JSON (for views other than Prometheus). */
  async values(): Promise<client.MetricObjectWithValues<client.MetricValue<string>>[]> {
    if (!this.registry || !this.refresh) throw new Error('metrics are not started');
    this.refresh(await this.deps.status.read(GAUGED));
    return this.registry.getMetricsAsJSON();
  }
}
