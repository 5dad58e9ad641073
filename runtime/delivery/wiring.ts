// Builds the delivery parts from the config, for the composition root: the
// config integrations synced into the table, the webhook sender, the outbox
// drop policy and the MQTT publisher (when enabled), and what the admin API
// (api/admin-routes.ts, mounted by the daemon) reads.
import { cameraOwners } from '../capture/resolve.js';
import type { Config } from '../config/schema.js';
import type { EventBus } from '../core/bus.js';
import type { Feature } from '../core/feature.js';
import type { Logger } from '../core/log.js';
import type { ClassificationStore } from '../store/classifications.js';
import type { Database } from '../store/db.js';
import type { MediaFiles } from '../store/media-files.js';
import { OutboxDropPolicy } from './drop-policy.js';
import type { StatusSource } from './mqtt-publisher.js';
import { Integrations } from './integrations.js';
import { Outbox } from './outbox.js';
import { WebhookSender } from './webhook-sender.js';

export interface DeliveryParts {
  /** webhook sender, drop policy, MQTT publisher: start them before the job runner, so results finishing during shutdown still go out */
  features: Feature[];
  /** for the admin API: the integrations table, the outbox, and the deliveries dropped by the outbox policy since start */
  integrations: Integrations;
  outbox: Outbox;
  droppedSinceStart: () => Record<string, number>;
}

export async function buildDelivery(
  config: Config,
  deps: {
    db: Database; store: ClassificationStore; files: MediaFiles; bus: EventBus; defaultFlows: Map<string, string>; version: string; configurationUrl: string; log: Logger;
    /** the gateway's status, for MQTT's status message */
    status: StatusSource;
  },
): Promise<DeliveryParts> {
  const { db, store, bus, log } = deps;
  for (const i of config.integrations) {
    if (!deps.defaultFlows.has(i.tenant)) throw new Error(`integrations: no tenant "${i.tenant}" is configured (${i.flow})`);
  }
  const integrations = new Integrations(db);
  const synced = await integrations.syncConfig(config.integrations);
  if (synced.added || synced.removed) log.info('config integrations synced', synced);

  const outbox = new Outbox(db);
  const dropPolicy = new OutboxDropPolicy(outbox, bus, config.outbox, log.child('outbox'));
  const webhooks = new WebhookSender(outbox, store, bus, {
    timeoutMs: config.webhooks.timeout_s * 1000,
    concurrency: config.webhooks.concurrency,
    backoffInitialMs: config.webhooks.backoff.initial_s * 1000,
    backoffMaxMs: config.webhooks.backoff.max_s * 1000,
  }, log.child('webhooks'));
  const features: Feature[] = [dropPolicy, webhooks];
  if (config.mqtt.enabled) {
    // the broker client is loaded only when MQTT is on (it is the largest module the daemon would load)
    const { MqttPublisher } = await import('./mqtt-publisher.js');
    const cameras = config.cameras.map((c) => ({ id: c.id, name: c.name || c.id, records: Boolean(c.url) }));
    features.push(new MqttPublisher({
      outbox, store, bus, config: config.mqtt, status: deps.status, files: deps.files, cameras, cameraOwners: cameraOwners(config),
      version: deps.version, configurationUrl: deps.configurationUrl, log: log.child('mqtt'),
    }));
  }
  return { features, integrations, outbox, droppedSinceStart: () => Object.fromEntries(dropPolicy.dropped) };
}
