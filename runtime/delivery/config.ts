// The config sections of delivery: webhook integrations, webhook sending,
// the outbox drop policy and MQTT. Every key has a default, so delivery runs
// (or stays off, for MQTT) without any of them.
import { z } from 'zod';
import { NAME } from '../core/ids.js';

/** An http(s) URL: anything else could never be answered, so it is refused up front. */
export const webhookUrl = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}, 'an http:// or https:// URL');

export const flowName = z.string().regex(NAME, '1 to 64 letters, digits, ".", "_" or "-"');

export const integrationConfigSchema = z.strictObject({
  type: z.literal('webhook').default('webhook'),
  /** the tenant whose results are sent */
  tenant: z.string().min(1),
  /** the flow that triggers this integration (spec 6.1) */
  flow: flowName.default('default'),
  /** the receiver: one POST per final result of the tenant's flow */
  url: webhookUrl,
});

export const webhooksSchema = z.strictObject({
  /** seconds to wait for the receiver's response; no response in time counts as no connectivity */
  timeout_s: z.number().positive().default(10),
  /** POSTs in flight at once to one endpoint (URL); other endpoints are never held up by it */
  concurrency: z.number().int().positive().default(2),
  backoff: z
    .strictObject({
      /** first wait after an endpoint gave no response */
      initial_s: z.number().positive().default(1),
      /** the wait doubles per further miss, up to this */
      max_s: z.number().positive().default(300),
    })
    .prefault({}),
});

export const outboxSchema = z.strictObject({
  /** pending deliveries older than this are dropped (0: never by age) */
  max_pending_age_h: z.number().min(0).default(168),
  /** at most this many pending deliveries are kept; the oldest beyond are dropped (0: no limit) */
  max_pending: z.number().int().min(0).default(10000),
  /** how often the drop policy is checked */
  sweep_interval_s: z.number().positive().default(60),
});

export const mqttSchema = z.strictObject({
  /** publish results, availability and status to a broker */
  enabled: z.boolean().default(false),
  /** mqtt://host:1883 or mqtts://host:8883 (TLS) */
  url: z.string().min(1).default('mqtt://127.0.0.1:1883'),
  username: z.string().default(''),
  password: z.string().default(''),
  /** a file holding the password (keeps it out of this file); wins over password */
  password_file: z.string().default(''),
  /** empty: vigil-<hostname> */
  client_id: z.string().default(''),
  /** every topic sits under <prefix>/<gateway_id>/ (README, Delivery) */
  prefix: z.string().regex(/^[^#+]+$/, 'no MQTT wildcards').default('vigil'),
  /** this gateway's id in every topic and in Home Assistant ids; empty: the host name */
  gateway_id: z.union([z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, '1 to 64 letters, digits, "_" or "-"'), z.literal('')]).default(''),
  /** Home Assistant MQTT discovery (retained configs under <prefix>/<component>/vigil_<gateway_id>/...) */
  discovery: z
    .strictObject({
      enabled: z.boolean().default(true),
      /** Home Assistant's discovery prefix */
      prefix: z.string().regex(/^[^#+]+$/, 'no MQTT wildcards').default('homeassistant'),
      /** seconds a detection sensor (intrusion, person, vehicle, animal) stays on after the result that set it: about a clip's length */
      off_delay_s: z.number().int().min(1).max(3600).default(10),
    })
    .prefault({}),
  qos: z.union([z.literal(0), z.literal(1), z.literal(2)]).default(1),
  /** seconds between retained status messages */
  status_interval_s: z.number().positive().default(60),
  /** seconds to wait for the broker to acknowledge a publish before it is tried again */
  publish_timeout_s: z.number().positive().default(30),
  reconnect: z
    .strictObject({
      initial_s: z.number().positive().default(1),
      max_s: z.number().positive().default(60),
    })
    .prefault({}),
  tls: z
    .strictObject({
      /** CA bundle to trust (PEM); empty: the system's */
      ca_file: z.string().default(''),
      /** client certificate and key (PEM) for brokers that require them */
      cert_file: z.string().default(''),
      key_file: z.string().default(''),
      reject_unauthorized: z.boolean().default(true),
    })
    .prefault({}),
});

export type IntegrationConfig = z.infer<typeof integrationConfigSchema>;
export type WebhooksConfig = z.infer<typeof webhooksSchema>;
export type OutboxConfig = z.infer<typeof outboxSchema>;
export type MqttConfig = z.infer<typeof mqttSchema>;
