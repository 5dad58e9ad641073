// MQTT: every topic sits under <prefix>/<gateway id>, so gateways sharing a
// broker never overwrite each other. Publishes each final result (the JSON of
// GET /api/result/<id>) per tenant and per camera from the outbox, a retained
// state and snapshot per camera, a retained availability (last will "offline",
// "online" on every connect, "offline" on a clean stop too: Home Assistant's
// defaults) and status, Home Assistant discovery (ha-discovery.ts), and turns
// messages on .../cameras/<id>/capture into capture requests. The outbox is the
// source of truth: a row is marked delivered only once the broker acknowledged
// it, so results that finish while the broker is away go out when it is back.
import { redactedUrl, redactSecrets } from '../core/redact.js';
import fs from 'node:fs';
import os from 'node:os';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { EventBus } from '../core/bus.js';
import { ErrorCode, errorMessage } from '../core/errors.js';
import { CAMERA_ID } from '../core/ids.js';
import type { Feature } from '../core/feature.js';
import type { Logger } from '../core/log.js';
import { CoalescingPump } from '../core/pump.js';
import type { ClassificationRow, ClassificationStore } from '../store/classifications.js';
import type { MediaFiles } from '../store/media-files.js';
import { toResultJson } from '../store/result-json.js';
import { Backoff } from './backoff.js';
import type { MqttConfig } from './config.js';
import { cameraSignals, DETECTION_KINDS, type DetectionKind } from './camera-signals.js';
import { discoveryMessages, discoveryPattern, staleStateTopics, type DiscoveryCamera } from './ha-discovery.js';
import { mqttTopics, type MqttTopics } from './mqtt-topics.js';
import type { Outbox, OutboxRow } from './outbox.js';

const BATCH = 20;
/** a burst of queue changes makes one status message */
const STATUS_DEBOUNCE_MS = 500;

/** The gateway id when none is configured: the host name, cut to what a topic segment and an HA id allow. */
export function defaultGatewayId(hostname = os.hostname()): string {
  const id = hostname.split('.')[0]!.toLowerCase().replace(/[^a-z0-9_-]/g, '_').slice(0, 64);
  return id || 'vigil';
}

export function gatewayIdOf(config: Pick<MqttConfig, 'gateway_id'>): string {
  return config.gateway_id || defaultGatewayId();
}

function readSecretFile(file: string, what: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new Error(`cannot read ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
}

/** Client options from the config: credentials (also from a file), TLS files, last will. */
export function clientOptions(config: MqttConfig, topics: MqttTopics): IClientOptions {
  const tls = config.tls;
  const password = config.password_file ? readSecretFile(config.password_file, 'mqtt.password_file') : config.password;
  return {
    clientId: config.client_id || `vigil-${os.hostname()}`,
    clean: true,
    connectTimeout: 10_000,
    reconnectPeriod: config.reconnect.initial_s * 1000,
    queueQoSZero: false,
    ...(config.username ? { username: config.username } : {}),
    ...(password ? { password } : {}),
    ...(tls.ca_file ? { ca: readSecretFile(tls.ca_file, 'mqtt.tls.ca_file') } : {}),
    ...(tls.cert_file ? { cert: readSecretFile(tls.cert_file, 'mqtt.tls.cert_file') } : {}),
    ...(tls.key_file ? { key: readSecretFile(tls.key_file, 'mqtt.tls.key_file') } : {}),
    rejectUnauthorized: tls.reject_unauthorized,
    will: { topic: topics.availability, payload: Buffer.from('offline'), qos: config.qos, retain: true },
  };
}

/** The gateway's figures the status message shows. */
export interface StatusFigures {
  /** jobs by state (queued, running) */
  jobs: Record<string, number>;
  outbox: { pending: number; delivered: number; dropped: number };
  disk: { freeBytes: number; totalBytes: number };
  /** the active pack's name and version and its backend; all null while none is active */
  model: { name: string | null; version: string | null; backend: string | null };
}

/** Reads the parts asked for: the gateway's status read model (ops/status.ts), which the daemon passes in. */
export interface StatusSource {
  read<K extends keyof StatusFigures>(parts: readonly K[]): Promise<Pick<StatusFigures, K>>;
}

export interface MqttPublisherDeps {
  outbox: Outbox;
  store: ClassificationStore;
  bus: EventBus;
  config: MqttConfig;
  /** the figures of the status message */
  status: StatusSource;
  files: MediaFiles;
  /** the configured cameras: Home Assistant entities for each */
  cameras: DiscoveryCamera[];
  /** camera id -> its tenant: camera topics carry only clips of the camera's own tenant */
  cameraOwners: Map<string, string>;
  /** the runtime's version, shown on the gateway's Home Assistant device */
  version: string;
  /** the dashboard's address for Home Assistant's device pages; empty: none */
  configurationUrl: string;
  log: Logger;
}

export class MqttPublisher implements Feature {
  readonly name = 'mqtt';
  private client: MqttClient | undefined;
  private readonly topics: MqttTopics;
  private readonly backoff: Backoff;
  private stopping = true;
  private statusTimer: NodeJS.Timeout | undefined;
  private unsubscribe: Array<() => void> = [];
  /** watched cameras whose stream is down, with why: their problem, published again on every connect */
  private streamsDown = new Map<string, { problem: boolean; error_code: number; error_msg: string; time: string; result_id: string }>();
  private readonly gatewayId: string;
  /** discovery topic -> payload of the entities configured now */
  private readonly discovery: Map<string, string>;
  /** detection topic -> the timer that sends its OFF */
  private readonly offTimers = new Map<string, NodeJS.Timeout>();
  private statusSoon: NodeJS.Timeout | undefined;

  constructor(private readonly deps: MqttPublisherDeps) {
    this.gatewayId = gatewayIdOf(deps.config);
    this.topics = mqttTopics(deps.config.prefix, this.gatewayId);
    this.discovery = deps.config.discovery.enabled
      ? discoveryMessages({
          discoveryPrefix: deps.config.discovery.prefix,
          gatewayId: this.gatewayId,
          topics: this.topics,
          cameras: deps.cameras,
          swVersion: deps.version,
          offDelayS: deps.config.discovery.off_delay_s,
          configurationUrl: deps.configurationUrl,
        })
      : new Map();
    this.backoff = new Backoff(deps.config.reconnect.initial_s * 1000, deps.config.reconnect.max_s * 1000);
  }

  /** Does not wait for the broker: a broker that is away must not keep the gateway from starting. */
  async start(): Promise<void> {
    const { config, bus, log } = this.deps;
    const options = clientOptions(config, this.topics);
    this.stopping = false;
    this.unsubscribe = [
      bus.on('result.final', () => this.pump()),
      bus.on('outbox.ready', () => this.pump()),
      // the model, queue and outbox figures change with these: the status follows within STATUS_DEBOUNCE_MS
      bus.on('model.activated', () => this.statusChanged()),
      bus.on('job.accepted', () => this.statusChanged()),
      bus.on('job.started', () => this.statusChanged()),
      bus.on('result.final', () => this.statusChanged()),
      bus.on('delivery.finished', () => this.statusChanged()),
      bus.on('classification.deleted', () => this.statusChanged()),
      bus.on('camera.watch', (change) => this.watchChanged(change)),
    ];
    const client = mqtt.connect(config.url, options);
    this.client = client;
    let connected = false;
    client.on('connect', () => {
      connected = true;
      this.backoff.reset();
      client.options.reconnectPeriod = config.reconnect.initial_s * 1000;
      log.info('connected to the MQTT broker', { url: redactedUrl(config.url), client_id: options.clientId, topics: this.topics.base });
      bus.emit('mqtt.connection', { connected: true });
      void this.onConnect(client);
    });
    // Runs before the client schedules its reconnect, so the new period applies to it.
    client.prependListener('close', () => {
      if (this.stopping) return;
      client.options.reconnectPeriod = this.backoff.miss();
      if (connected) {
        connected = false;
        log.warn('lost the MQTT broker; reconnecting with backoff', { url: redactedUrl(config.url) });
        bus.emit('mqtt.connection', { connected: false });
      }
    });
    client.on('error', (err) => log.warn('MQTT client error', { url: redactedUrl(config.url), error: redactSecrets(errorMessage(err)) }));
    client.on('message', (topic, payload, packet) => this.onMessage(topic, payload, packet.retain));
    this.statusTimer = setInterval(() => void this.publishStatus(), config.status_interval_s * 1000);
    this.statusTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const off of this.unsubscribe) off();
    if (this.statusTimer) clearInterval(this.statusTimer);
    if (this.statusSoon) clearTimeout(this.statusSoon);
    await this.outboxPump.idle();
    const client = this.client;
    const active = [...this.offTimers.keys()];
    for (const timer of this.offTimers.values()) clearTimeout(timer);
    this.offTimers.clear();
    if (!client) return;
    this.client = undefined;
    if (client.connected) {
      // No detection stays on while the gateway is away.
      await Promise.all(active.map((topic) => this.publish(client, topic, 'OFF', true))).catch(() => {});
      // The status says the stop was on purpose, in the shape it always has; availability is Home Assistant's "offline" either way.
      await this.publish(client, this.topics.status, JSON.stringify(await this.statusMessage('stopped')), true).catch(() => {});
      await this.publish(client, this.topics.availability, 'offline', true).catch(() => {});
      await client.endAsync().catch(() => {});
      this.deps.bus.emit('mqtt.connection', { connected: false });
    } else {
      await client.endAsync(true).catch(() => {});
    }
  }

  private async onConnect(client: MqttClient): Promise<void> {
    try {
      await this.publish(client, this.topics.availability, 'online', true);
      await client.subscribeAsync(this.topics.capture, { qos: this.deps.config.qos });
      await this.publishDiscovery(client);
      await this.publishDetectionsOff(client);
      for (const [camera, problem] of this.streamsDown) await this.publish(client, this.topics.cameraProblem(camera), JSON.stringify(problem), true);
    } catch (err) {
      this.deps.log.warn('MQTT setup after connect failed', { error: errorMessage(err) });
    }
    void this.publishStatus();
    this.pump();
  }

  /**
   * A watched camera's stream going down sets its problem sensor (as a failed capture does), and
   * its coming back clears it; a good result clears it too (cameraSignals).
   */
  private watchChanged({ camera, state, reason }: { camera: string; state: string; reason?: string }): void {
    const wasDown = this.streamsDown.has(camera);
    if (state === 'starting' || (state !== 'down' && !wasDown)) return;
    const time = new Date().toISOString();
    const problem = state === 'down'
      ? { problem: true, error_code: ErrorCode.CAPTURE_FAILED, error_msg: redactSecrets(reason ?? 'the stream is down'), time, result_id: '' }
      : { problem: false, error_code: ErrorCode.OK, error_msg: '', time, result_id: '' };
    if (problem.problem) this.streamsDown.set(camera, problem);
    else this.streamsDown.delete(camera);
    const client = this.client;
    if (client?.connected) void this.publish(client, this.topics.cameraProblem(camera), JSON.stringify(problem), true).catch(() => {});
  }

  private onMessage(topic: string, payload: Buffer, retained: boolean): void {
    if (this.deps.config.discovery.enabled && topic.startsWith(`${this.deps.config.discovery.prefix}/`)) return this.onDiscoveryConfig(topic, payload);
    const camera = this.topics.captureCamera(topic);
    if (camera === undefined) return;
    // A retained command would fire again on every reconnect.
    if (retained) return this.deps.log.warn('ignored a retained MQTT capture request', { topic });
    if (!CAMERA_ID.test(camera)) return this.deps.log.warn('ignored an MQTT capture request for an invalid camera id', { topic });
    this.deps.log.info('capture requested over MQTT', { camera, bytes: payload.length });
    this.deps.bus.emit('capture.requested', { camera, source: 'mqtt' });
  }

  /**
   * Publishes the discovery config of every configured entity (retained), then
   * subscribes to this gateway's discovery topics: the broker answers with the
   * retained configs it holds, and those of entities no longer configured (a
   * camera removed) are cleared with an empty retained payload, as Zigbee2MQTT does.
   */
  private async publishDiscovery(client: MqttClient): Promise<void> {
    if (!this.deps.config.discovery.enabled) return;
    await Promise.all([...this.discovery].map(([topic, payload]) => this.publish(client, topic, payload, true)));
    await client.subscribeAsync(discoveryPattern(this.deps.config.discovery.prefix, this.gatewayId), { qos: this.deps.config.qos });
  }

  private onDiscoveryConfig(topic: string, payload: Buffer): void {
    const client = this.client;
    if (!payload.length || this.discovery.has(topic) || !client?.connected) return;
    // its retained state topics (a removed camera's state, snapshot, sensors) go with it
    const configured = new Set(this.deps.cameras.map((c) => c.id));
    const states = staleStateTopics(payload.toString(), this.topics, configured);
    this.deps.log.info('removing a Home Assistant entity that is no longer configured', { topic, states });
    for (const t of [topic, ...states]) {
      this.publish(client, t, '', true).catch((err) => this.deps.log.warn('could not remove a stale retained message', { topic: t, error: errorMessage(err) }));
    }
  }

  /** Retained OFF for each configured camera's detection sensors not on now (an ON left by a crash or a kill). */
  private async publishDetectionsOff(client: MqttClient): Promise<void> {
    const topics = this.deps.cameras.flatMap((c) => DETECTION_KINDS.map((kind) => this.topics.cameraDetection(c.id, kind)));
    await Promise.all(topics.filter((t) => !this.offTimers.has(t)).map((t) => this.publish(client, t, 'OFF', true)));
  }

  /** A detection sensor goes OFF off_delay_s after its last ON (a later ON starts the delay again), so each detection is a new change. */
  private armOff(topic: string): void {
    const previous = this.offTimers.get(topic);
    if (previous) clearTimeout(previous);
    const timer = setTimeout(() => {
      this.offTimers.delete(topic);
      const client = this.client;
      if (this.stopping || !client?.connected) return; // the next connect sends OFF
      this.publish(client, topic, 'OFF', true).catch((err) => this.deps.log.warn('could not turn a detection sensor off', { topic, error: errorMessage(err) }));
    }, this.deps.config.discovery.off_delay_s * 1000);
    timer.unref();
    this.offTimers.set(topic, timer);
  }

  /** Publishes pending result rows, oldest first, while connected. */
  private readonly outboxPump = new CoalescingPump(
    () => this.publishPending(),
    (err) => this.deps.log.error('could not publish results from the outbox', { err }),
    () => this.stopping,
  );

  private pump(): void {
    this.outboxPump.request();
  }

  private async publishPending(): Promise<void> {
    for (;;) {
      const client = this.client;
      if (this.stopping || !client?.connected) return;
      const rows = await this.deps.outbox.pending('mqtt', null, [], BATCH);
      if (!rows.length) return;
      const sent = await Promise.all(rows.map((row) => this.publishResult(client, row)));
      if (sent.includes(false)) return; // the connection went; 'connect' starts again
    }
  }

  private async publishResult(client: MqttClient, row: OutboxRow): Promise<boolean> {
    const classification = await this.deps.store.get(row.classification_id);
    if (!classification) return true; // deleted meanwhile
    try {
      const json = JSON.stringify(toResultJson(classification));
      const camera = this.cameraMessages(classification, json);
      await Promise.all([
        this.publish(client, this.topics.result(row.tenant), json, false),
        ...camera.map(([topic, payload, retain]) => this.publish(client, topic, payload, retain)),
      ]);
      for (const [topic, payload] of camera) if (payload === 'ON' && this.isDetection(topic)) this.armOff(topic);
    } catch (err) {
      await this.deps.outbox.markUnanswered(row.id, errorMessage(err), Date.now());
      return false;
    }
    if (await this.deps.outbox.markDelivered(row.id, null)) {
      this.deps.bus.emit('delivery.finished', { target: 'mqtt', outcome: 'delivered', latencyMs: Date.now() - row.created_ms });
      this.deps.log.debug('result published over MQTT', { id: row.classification_id, tenant: row.tenant });
    }
    return true;
  }

  /**
   * A camera's result, its retained state and snapshot; nothing for a clip whose
   * camera_id is not a configured camera of the clip's own tenant (unknown, or another tenant's).
   */
  private cameraMessages(row: ClassificationRow, json: string): Array<[string, string | Buffer, boolean]> {
    const camera = row.camera_id;
    if (!camera || this.deps.cameraOwners.get(camera) !== row.tenant || !CAMERA_ID.test(camera)) return [];
    const state = { risk: row.risk, labels: JSON.parse(row.labels) as string[], time: row.created_at, result_id: row.id, error_code: row.error_code };
    // Home Assistant's: the event, the detection sensors it turns on, the camera's problem
    const signals = cameraSignals(row);
    const messages: Array<[string, string | Buffer, boolean]> = [
      [this.topics.cameraResult(camera), json, false],
      [this.topics.cameraState(camera), JSON.stringify(state), true],
    ];
    // the snapshot goes first, so an automation fired by the event or a sensor finds this result's image
    try {
      messages.push([this.topics.cameraSnapshot(camera), fs.readFileSync(this.deps.files.snapshotPath(row.id)), true]);
    } catch {
      /* no snapshot (highlight rendering off or failed): the previous one stays */
    }
    messages.push(
      [this.topics.cameraEvent(camera), JSON.stringify(signals.event), false],
      ...signals.detected.map((kind): [string, string, boolean] => [this.topics.cameraDetection(camera, kind), 'ON', true]),
    );
    if (signals.problem) messages.push([this.topics.cameraProblem(camera), JSON.stringify(signals.problem), true]);
    return messages;
  }

  /** Resolves once the broker acknowledged (QoS 1/2) or the packet was written (QoS 0); bounded by publish_timeout_s. */
  private publish(client: MqttClient, topic: string, payload: string | Buffer, retain: boolean): Promise<void> {
    const { qos, publish_timeout_s } = this.deps.config;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no acknowledgement from the broker in time')), publish_timeout_s * 1000);
      client.publish(topic, payload, { qos, retain }, (err) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve();
      });
    });
  }

  private isDetection(topic: string): boolean {
    const camera = this.topics.cameraOf(topic);
    return camera !== undefined && DETECTION_KINDS.some((kind: DetectionKind) => topic === this.topics.cameraDetection(camera, kind));
  }

  /** Something the status shows changed: publish it soon, once for a burst of changes. */
  private statusChanged(): void {
    if (this.statusSoon || this.stopping) return;
    this.statusSoon = setTimeout(() => {
      this.statusSoon = undefined;
      void this.publishStatus();
    }, STATUS_DEBOUNCE_MS);
    this.statusSoon.unref();
  }

  /** The status in the same shape in every state, so templates such as value_json.queue.queued always render. */
  private async statusMessage(state: 'online' | 'stopped'): Promise<Record<string, unknown>> {
    const status = this.deps.status;
    // a figure that cannot be read (the database closing, the data folder gone) does not hold back the others
    const [{ jobs }, { outbox }, disk, { model }] = await Promise.all([
      status.read(['jobs']).catch(() => ({ jobs: { queued: 0, running: 0 } })),
      status.read(['outbox']).catch(() => ({ outbox: { pending: 0, delivered: 0, dropped: 0 } })),
      status.read(['disk']).then((s) => s.disk, () => undefined),
      status.read(['model']),
    ]);
    const active = model.name !== null && model.version !== null;
    return {
      state,
      time: new Date().toISOString(),
      queue: { queued: jobs.queued ?? 0, running: jobs.running ?? 0 },
      model: active ? { name: model.name, version: model.version } : null,
      backend: active ? model.backend : null,
      disk: disk ? { free_bytes: disk.freeBytes, total_bytes: disk.totalBytes } : null,
      outbox: { pending: outbox.pending, delivered: outbox.delivered, dropped: outbox.dropped },
    };
  }

  private async publishStatus(): Promise<void> {
    const client = this.client;
    if (this.stopping || !client?.connected) return;
    try {
      await this.publish(client, this.topics.status, JSON.stringify(await this.statusMessage('online')), true);
    } catch (err) {
      this.deps.log.debug('status message not published', { error: errorMessage(err) });
    }
  }
}
