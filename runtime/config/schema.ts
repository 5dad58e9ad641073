// The one configuration schema. Every key has a default, so an empty file (or
// none) runs the daemon on its embedded defaults; unknown keys and wrong types
// are errors reported with their key path. Feature sections live beside their
// feature and are assembled here.
import os from 'node:os';
import { z } from 'zod';
// each room's config.ts is a leaf (it imports only core/ and other rooms' config.ts), so it sits on this floor
import { integrationConfigSchema, mqttSchema, outboxSchema, webhooksSchema } from '../delivery/config.js';
import { retentionSchema } from '../retention/config.js';
import { inferenceSchema, modelsSchema } from '../models/config.js';
import { camerasSchema, watchFolderSchema } from '../capture/config.js';
import { dashboardSchema } from '../dashboard/config.js';
import { NAME } from '../core/ids.js';

const port = z.number().int().min(0).max(65535);
const positiveInt = z.number().int().positive();

export const tenantSchema = z.strictObject({
  /** appears as `tenant` in results; letters, digits, dot, dash, underscore */
  id: z.string().regex(NAME, 'letters, digits, ".", "_" or "-", at most 64'),
  /** Bearer keys of this tenant */
  api_keys: z.array(z.string().min(16, 'an API key needs at least 16 characters')).default([]),
  /** files holding one key each (secrets kept out of the config file) */
  api_key_files: z.array(z.string()).default([]),
  /** the flow a classification joins when the request names none */
  default_flow: z.string().min(1).default('default'),
});

export const serverSchema = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: port.default(8080),
  /** the address people open the dashboard at (http://gateway.local:8080/), linked from Home Assistant's device pages; empty: derived from host and port when they are reachable from elsewhere */
  public_url: z.union([z.url({ protocol: /^https?$/ }), z.literal('')]).default(''),
  /** largest accepted upload, bytes (413 beyond) */
  max_upload_bytes: positiveInt.default(512 * 1024 * 1024),
  /** how long POST /api/classify?sync=true waits for the final result before answering 202 */
  sync_timeout_s: positiveInt.default(300),
  /** longest silence between two bytes of a request body before the request gets 408 and its connection is closed (0: none) */
  body_idle_timeout_s: z.number().min(0).default(30),
  /** longest time to receive a request's headers before 408 and the connection is closed */
  headers_timeout_s: z.number().positive().default(20),
  /**
   * behind a TLS reverse proxy: believe its X-Forwarded-Proto (Secure cookies),
   * X-Forwarded-Host and the last address of X-Forwarded-For (sign-in throttle); off: the
   * connection's own scheme, Host and peer address. Only with a proxy that sets these headers itself.
   */
  trust_proxy: z.boolean().default(false),
});

export const storageSchema = z.strictObject({
  /** the data folder: database, clips, highlights, models; relative paths are from the working directory */
  data_dir: z.string().min(1).default('data'),
  /** the SQLite file; relative paths are inside data_dir */
  database: z.string().min(1).default('vigil.db'),
  /** the umask of the daemon (octal): what it creates is private to its user by default (clips are CCTV footage) */
  umask: z.string().regex(/^0?[0-7]{3}$/, 'an octal umask such as "0077" or "0027"').default('0077'),
});

export const jobsSchema = z.strictObject({
  /** clips processed at once, or "auto" for one per CPU core; more are queued */
  concurrency: z.union([z.literal('auto'), positiveInt]).default('auto'),
  /** highlight videos rendered at once; rendering does not hold a classification slot */
  render_concurrency: positiveInt.default(1),
  /** a job that crashed the daemon this many times ends with error_code 9001 */
  max_attempts: positiveInt.default(3),
  /** on SIGTERM, how long running jobs may finish before they are put back in the queue */
  shutdown_grace_s: z.number().int().min(0).default(10),
});

export const logSchema = z.strictObject({
  level: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
});

export const configSchema = z.strictObject({
  server: serverSchema.prefault({}),
  storage: storageSchema.prefault({}),
  /** tenants and their API keys; with none, a tenant "default" is created with a generated key file */
  tenants: z.array(tenantSchema).default([]),
  admin: z
    .strictObject({
      /** keys for the admin API (integrations, deliveries); with none, a key file is generated */
      api_keys: z.array(z.string().min(16)).default([]),
      api_key_files: z.array(z.string()).default([]),
    })
    .prefault({}),
  jobs: jobsSchema.prefault({}),
  log: logSchema.prefault({}),
  /** sessions, sign-in throttle and live-event streams of the web dashboard */
  dashboard: dashboardSchema.prefault({}),
  /** the model pack: which, from where, updates */
  models: modelsSchema.prefault({}),
  /** where and how the networks run */
  inference: inferenceSchema.prefault({}),
  /** webhook integrations from the config (more come from the admin API) */
  integrations: z.array(integrationConfigSchema).default([]),
  webhooks: webhooksSchema.prefault({}),
  outbox: outboxSchema.prefault({}),
  mqtt: mqttSchema.prefault({}),
  /** bounds of the store: age, count, media bytes, free space; pruning schedule */
  retention: retentionSchema.prefault({}),
  /** cameras Vigil records from itself (HTTP, MQTT or schedule triggers) */
  cameras: camerasSchema.default([]),
  /** folders where NVRs and cameras drop alarm clips */
  watch_folders: z.array(watchFolderSchema).default([]),
});

export type Config = z.infer<typeof configSchema>;

/** jobs.concurrency as a number. */
export function jobConcurrency(config: Config): number {
  const c = config.jobs.concurrency;
  return c === 'auto' ? Math.max(1, os.availableParallelism()) : c;
}
export type TenantConfig = z.infer<typeof tenantSchema>;
