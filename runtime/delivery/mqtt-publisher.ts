// MQTT: publishes each final result (the JSON of GET /api/result/<id>) on
// <prefix>/<tenant>/result from the outbox, keeps a retained availability
// topic (last will "offline", "online" on every connect, "stopped" on a clean
// shutdown) and a retained status message, and turns messages on
// <prefix>/cameras/<id>/capture into capture requests. The outbox is the source
// of truth: a row is marked delivered only once the broker acknowledged it, so
// results that finish while the broker is away go out when it is back.
import { redactedUrl, redactUrlsIn } from '../core/redact.js';
import fs from 'node:fs';
import os from 'node:os';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { EventBus, BusEvents } from '../core/bus.js';
import { errorMessage } from '../core/errors.js';
import type { Feature } from '../core/feature.js';
import type { Logger } from '../core/log.js';
import { CoalescingPump } from '../core/pump.js';
import { volumeSpace } from '../ops/core-checks.js';
import type { ClassificationStore } from '../store/classifications.js';
import { toResultJson } from '../store/result-json.js';
import { Backoff } from './backoff.js';
import type { MqttConfig } from './config.js';
import type { Outbox, OutboxRow } from './outbox.js';

const CAMERA_ID = /^[A-Za-z0-9._-]{1,64}$/;
const BATCH = 20;

export interface MqttTopics {
  availability: string;
  status: string;
  capture: string;
  result(tenant: string): string;
}

export function mqttTopics(prefix: string): MqttTopics {
  return {
    availability: `${prefix}/gateway/availability`,
    status: `${prefix}/gateway/status`,
    capture: `${prefix}/cameras/+/capture`,
    result: (tenant) => `${prefix}/${tenant}/result`,
  };
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

export interface MqttPublisherDeps {
  outbox: Outbox;
  store: ClassificationStore;
  bus: EventBus;
  config: MqttConfig;
  /** the data folder, for the disk figures of the status message */
  dataDir: string;
  log: Logger;
}

export class MqttPublisher implements Feature {
  readonly name = 'mqtt';
  private client: MqttClient | undefined;
  private readonly topics: MqttTopics;
  private readonly backoff: Backoff;
  private model: BusEvents['model.activated'] | null = null;
  private stopping = true;
  private statusTimer: NodeJS.Timeout | undefined;
  private unsubscribe: Array<() => void> = [];

  constructor(private readonly deps: MqttPublisherDeps) {
    this.topics = mqttTopics(deps.config.prefix);
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
      bus.on('model.activated', (model) => {
        this.model = model;
        void this.publishStatus();
      }),
    ];
    const client = mqtt.connect(config.url, options);
    this.client = client;
    let connected = false;
    client.on('connect', () => {
      connected = true;
      this.backoff.reset();
      client.options.reconnectPeriod = config.reconnect.initial_s * 1000;
      log.info('connected to the MQTT broker', { url: redactedUrl(config.url), client_id: options.clientId });
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
    client.on('error', (err) => log.warn('MQTT client error', { url: redactedUrl(config.url), error: redactUrlsIn(errorMessage(err)) }));
    client.on('message', (topic, payload, packet) => this.onMessage(topic, payload, packet.retain));
    this.statusTimer = setInterval(() => void this.publishStatus(), config.status_interval_s * 1000);
    this.statusTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const off of this.unsubscribe) off();
    if (this.statusTimer) clearInterval(this.statusTimer);
    await this.outboxPump.idle();
    const client = this.client;
    if (!client) return;
    this.client = undefined;
    if (client.connected) {
      // "stopped", not the will's "offline": the gateway was shut down on purpose.
      await this.publish(client, this.topics.availability, 'stopped', true).catch(() => {});
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
    } catch (err) {
      this.deps.log.warn('MQTT setup after connect failed', { error: errorMessage(err) });
    }
    void this.publishStatus();
    this.pump();
  }

  private onMessage(topic: string, payload: Buffer, retained: boolean): void {
    const prefix = `${this.deps.config.prefix}/cameras/`;
    if (!topic.startsWith(prefix) || !topic.endsWith('/capture')) return;
    const camera = topic.slice(prefix.length, -'/capture'.length);
    // A retained command would fire again on every reconnect.
    if (retained) return this.deps.log.warn('ignored a retained MQTT capture request', { topic });
    if (!CAMERA_ID.test(camera)) return this.deps.log.warn('ignored an MQTT capture request for an invalid camera id', { topic });
    this.deps.log.info('capture requested over MQTT', { camera, bytes: payload.length });
    this.deps.bus.emit('capture.requested', { camera, source: 'mqtt' });
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
      await this.publish(client, this.topics.result(row.tenant), JSON.stringify(toResultJson(classification)), false);
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

  /** Resolves once the broker acknowledged (QoS 1/2) or the packet was written (QoS 0); bounded by publish_timeout_s. */
  private publish(client: MqttClient, topic: string, payload: string, retain: boolean): Promise<void> {
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

  private async publishStatus(): Promise<void> {
    const client = this.client;
    if (this.stopping || !client?.connected) return;
    try {
      const [jobs, outbox, disk] = await Promise.all([
        this.deps.store.jobCounts(),
        this.deps.outbox.summary(),
        volumeSpace(this.deps.dataDir).catch(() => undefined),
      ]);
      const status = {
        state: 'online',
        time: new Date().toISOString(),
        queue: { queued: jobs.queued, running: jobs.running },
        model: this.model ? { name: this.model.name, version: this.model.version } : null,
        backend: this.model?.backend ?? null,
        disk: disk ? { free_bytes: disk.freeBytes, total_bytes: disk.totalBytes } : null,
        outbox: { pending: outbox.pending, delivered: outbox.delivered, dropped: outbox.dropped },
      };
      await this.publish(client, this.topics.status, JSON.stringify(status), true);
    } catch (err) {
      this.deps.log.debug('status message not published', { error: errorMessage(err) });
    }
  }
}
