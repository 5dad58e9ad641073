// The bodies the HTTP API answers with, as zod schemas: the source of the
// OpenAPI document (runtime/api/openapi.ts). Each is tied to the type the code
// builds the body with (the `Agrees` checks below), so the document cannot
// drift from the answers without the build failing; the OpenAPI test then
// validates real answers of the daemon against the document.
import { z } from 'zod';
import { RISKS } from '../core/analysis.js';
import { CLASSIFICATION_ID } from '../core/ids.js';
import type { Integration } from '../delivery/integrations.js';
import type { deliveryView } from './delivery-view.js';
import type { OutboxSummary } from '../delivery/outbox.js';
import type { Acceptance } from '../ingest/intake.js';
import type { CheckResult } from '../ops/readiness.js';
import type { ResultJson } from '../store/result-json.js';

const timestamp = z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601 with a UTC offset and milliseconds, e.g. 2026-11-23T03:10:00.123+00:00' });
const uuid = z.string().regex(CLASSIFICATION_ID).meta({ description: 'a classification id (lowercase UUID)' });
const processingState = z.enum(['queued', 'processing', 'done', 'error']);

export const errorBodySchema = z
  .strictObject({
    error: z.strictObject({
      code: z.string().meta({ description: 'machine-readable: the README lists the codes of each status' }),
      message: z.string().meta({ description: 'human-readable: names the problem' }),
    }),
  })
  .meta({ id: 'Error', description: 'Every error answer of the API' });
export type ErrorBody = z.infer<typeof errorBodySchema>;

export const acceptanceSchema = z
  .strictObject({ id: uuid, accepted_at: timestamp })
  .meta({ id: 'Acceptance', description: 'A clip was accepted and its job queued' });

const specsSchema = z
  .strictObject({
    width: z.number(),
    height: z.number(),
    duration: z.number(),
    fps: z.number(),
    nframes: z.number(),
    'original.width': z.number(),
    'original.height': z.number(),
    'original.fps': z.number(),
    'original.nframes': z.number(),
  })
  .meta({ description: 'width..nframes describe the annotated highlight (the original clip while there is none); original.* the uploaded clip' });

export const videoSchema = z
  .strictObject({
    videoname: z.string().meta({ description: 'the name the sender gave the file, else the stored file name' }),
    filename: z.string().meta({ description: 'the stored file name, <id>.<ext>' }),
    filesize: z.number().int().min(0),
    specs: specsSchema,
  })
  .meta({ id: 'Video' });

export const resultSchema = z
  .strictObject({
    id: uuid,
    status: z.strictObject({
      classify: processingState,
      video: z.enum([...processingState.options, 'expired']).meta({ description: 'expired: a rendered highlight is gone from disk' }),
    }),
    parent_id: z.string(),
    camera_id: z.string(),
    analyse_id: z.number().int().optional().meta({ description: 'present only when the request gave one' }),
    tenant: z.string(),
    duration: z.number().meta({ description: 'processing time in milliseconds' }),
    duration_seconds: z.number().int().meta({ description: "the clip's length in whole seconds" }),
    model: z.string(),
    version: z.string(),
    error_code: z.number().int().meta({ description: '0, or one of the error_code values in the README' }),
    error_msg: z.string(),
    risk: z.union([z.enum(RISKS), z.literal('')]).meta({ description: 'empty until classified, and when classification failed' }),
    labels: z.array(z.string()),
    result: z.enum(['classified', 'error', '']),
    scores: z.record(z.string(), z.number()).meta({ description: 'score of each label the models gave' }),
    video: videoSchema,
    metadata: z.record(z.string(), z.unknown()).meta({ description: 'as submitted' }),
    created_at: timestamp,
    started_at: timestamp.nullable().meta({ description: 'null until processing starts (only in a 202)' }),
  })
  .meta({ id: 'Result', description: 'A classification result (final in a 200, what is known so far in a 202)' });

const checkSchema = z.strictObject({ ok: z.boolean(), detail: z.string() });
export const healthSchema = z.strictObject({ status: z.literal('ok') }).meta({ id: 'Health' });
export const readinessSchema = z
  .strictObject({ status: z.enum(['ready', 'not_ready']), checks: z.record(z.string(), checkSchema) })
  .meta({ id: 'Readiness', description: 'Each named check; the status is ready when every check is ok' });

export const integrationSchema = z
  .strictObject({
    id: z.string(),
    type: z.literal('webhook'),
    tenant: z.string(),
    flow: z.string(),
    url: z.string(),
    source: z.enum(['config', 'api']).meta({ description: 'config integrations are changed in the config file, not here' }),
    created_at: timestamp,
  })
  .meta({ id: 'Integration' });
export const integrationListSchema = z.strictObject({ integrations: z.array(integrationSchema) }).meta({ id: 'IntegrationList' });

const stamp = timestamp.nullable();
export const deliverySchema = z
  .strictObject({
    id: z.number().int(),
    target: z.enum(['webhook', 'mqtt']),
    integration_id: z.string().nullable(),
    url: z.string().nullable(),
    state: z.enum(['pending', 'delivered', 'dropped']),
    status_code: z.number().int().nullable(),
    attempts: z.number().int(),
    last_error: z.string(),
    created_at: stamp,
    finished_at: stamp,
    next_attempt_at: stamp,
  })
  .meta({ id: 'Delivery' });
export const deliveriesSchema = z
  .strictObject({ classification_id: uuid, tenant: z.string(), flow: z.string(), final: z.boolean(), deliveries: z.array(deliverySchema) })
  .meta({ id: 'Deliveries' });

const counts = z.strictObject({ pending: z.number().int(), delivered: z.number().int(), dropped: z.number().int() });
export const outboxSchema = z
  .strictObject({
    total: z.number().int(),
    pending: z.number().int(),
    delivered: z.number().int(),
    dropped: z.number().int(),
    by_target: z.record(z.string(), counts),
    oldest_pending_at: stamp,
    dropped_since_start: z.record(z.string(), z.number().int()),
  })
  .meta({ id: 'Outbox' });

// ---- the schemas agree with the types the code answers with -----------------
// A schema's parsed type must fit the code's type, with the same keys: a field
// added to, removed from or retyped in either fails the build here.
type Keys<T> = T extends object ? keyof T : never;
type Agrees<Schema, Code> = [Schema] extends [Code] ? ([Keys<Code>] extends [Keys<Schema>] ? ([Keys<Schema>] extends [Keys<Code>] ? true : false) : false) : false;
const agree = <T extends true>(_: T) => _;
agree<Agrees<z.infer<typeof resultSchema>, ResultJson>>(true);
agree<Agrees<z.infer<typeof resultSchema>['video'], ResultJson['video']>>(true);
agree<Agrees<z.infer<typeof resultSchema>['status'], ResultJson['status']>>(true);
agree<Agrees<z.infer<typeof acceptanceSchema>, Acceptance>>(true);
agree<Agrees<z.infer<typeof integrationSchema>, Integration>>(true);
agree<Agrees<z.infer<typeof checkSchema>, CheckResult>>(true);
agree<Agrees<z.infer<typeof deliverySchema>, ReturnType<typeof deliveryView>>>(true);
agree<Agrees<Omit<z.infer<typeof outboxSchema>, 'oldest_pending_at' | 'dropped_since_start'>, Omit<OutboxSummary, 'oldest_pending_ms'>>>(true);
