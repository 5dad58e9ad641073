// GET /api/openapi.json: the OpenAPI 3.1 description of every endpoint. The
// body schemas are generated from the zod schemas of runtime/api/schemas.ts
// (tied to the code's types) and, for admin request bodies, from the very
// schemas the routes validate with; the paths are listed here once.
import Router from '@koa/router';
import { z } from 'zod';
import { runtimeVersion } from '../ops/version.js';
import { createIntegrationBody, updateIntegrationBody } from './admin-routes.js';
import * as schemas from './schemas.js';

type Json = Record<string, unknown>;

const ref = (id: string): Json => ({ $ref: `#/components/schemas/${id}` });
const json = (schema: Json, description: string): Json => ({ description, content: { 'application/json': { schema } } });

const ERROR_TEXT: Record<number, string> = {
  400: 'the request is malformed (the code names the field)',
  401: 'no key, or a key of no tenant (admin: not an admin key)',
  404: 'no such thing for this key',
  409: 'conflicts with what exists',
  410: 'deleted while the request waited',
  413: 'the upload is over server.max_upload_bytes',
  415: 'an unsupported Content-Type',
  416: 'the byte range lies outside the file',
  422: 'not a video',
  500: 'an internal error (details in the daemon log)',
  503: 'not ready',
  507: 'no room on the data volume and pruning cannot make any',
};
const errors = (...statuses: number[]): Json =>
  Object.fromEntries([...statuses, 500].map((s) => [String(s), json(ref('Error'), ERROR_TEXT[s])]));

const idParam = (name: string, description: string): Json => ({ name, in: 'path', required: true, description, schema: { type: 'string' } });
const queryParam = (name: string, description: string, schema: Json = { type: 'string' }): Json => ({ name, in: 'query', required: false, description, schema });
const SYNC = queryParam('sync', 'true, 1 or yes: answer with the final result (200), or with the result so far (202) after server.sync_timeout_s');
const UPLOAD_FIELDS: Record<string, string> = {
  metadata: 'JSON object text, returned as submitted',
  analyse_id: 'an integer, returned as analyse_id',
  parent_id: "the sender's id for the clip (e.g. the NVR's event id)",
  flow: "which webhook integrations receive the result; the tenant's default_flow when absent",
  camera_id: 'used for camera_id when metadata has none',
};
const accepted = (syncText: string): Json => ({
  '200': json(ref('Result'), `${syncText}: the final result`),
  '202': json({ oneOf: [ref('Acceptance'), ref('Result')] }, `the acceptance record; ${syncText}: the result so far, not final within server.sync_timeout_s`),
});

const TENANT = [{ tenantKey: [] }];
const ADMIN = [{ adminKey: [] }];
const PUBLIC: Json[] = [];

/** A zod schema as a JSON Schema inside the document (no $schema of its own). */
function inline(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  return rest;
}

function components(): Json {
  const ids = [
    schemas.errorBodySchema, schemas.acceptanceSchema, schemas.videoSchema, schemas.resultSchema, schemas.healthSchema,
    schemas.readinessSchema, schemas.integrationSchema, schemas.integrationListSchema, schemas.deliverySchema,
    schemas.deliveriesSchema, schemas.outboxSchema,
  ];
  const registry = z.registry<{ id: string }>();
  for (const s of ids) registry.add(s, { id: (s.meta() as { id: string }).id });
  const out = z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}` }) as { schemas: Record<string, Json> };
  for (const s of Object.values(out.schemas)) delete s.$schema;
  return out.schemas;
}

export function openApiDocument(): Json {
  const uploadForm: Json = {
    type: 'object',
    required: ['video'],
    properties: { video: { type: 'string', contentMediaType: 'application/octet-stream', description: 'the clip' }, ...Object.fromEntries(Object.entries(UPLOAD_FIELDS).map(([k, d]) => [k, { type: 'string', description: d }])) },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Vigil',
      version: runtimeVersion(),
      description: 'Video classification on the gateway: upload or record clips, read results and annotated highlights; admin API for webhook integrations and deliveries.',
    },
    components: {
      securitySchemes: {
        tenantKey: { type: 'http', scheme: 'bearer', description: "a tenant's API key" },
        adminKey: { type: 'http', scheme: 'bearer', description: 'an admin key' },
      },
      schemas: components(),
    },
    paths: {
      '/api/classify': {
        post: {
          operationId: 'classify',
          summary: 'Submit a clip: multipart with a video part, or the clip itself as the body with the fields as query parameters',
          security: TENANT,
          parameters: [SYNC, ...Object.entries({ ...UPLOAD_FIELDS, videoname: "raw uploads: the clip's name" }).map(([k, d]) => queryParam(k, d))],
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': { schema: uploadForm },
              'video/*': { schema: { type: 'string', contentMediaType: 'video/*' } },
              'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
            },
          },
          responses: { ...accepted('with sync=true'), ...errors(400, 401, 410, 413, 415, 422, 507) },
        },
      },
      '/api/result/{id}': {
        get: {
          operationId: 'getResult',
          summary: 'The result of a classification',
          security: TENANT,
          parameters: [idParam('id', 'the classification id')],
          responses: {
            '200': json(ref('Result'), 'the final result'),
            '202': json(ref('Result'), 'queued or processing: what is known so far'),
            ...errors(400, 401, 404),
          },
        },
      },
      '/api/video/annotate/{id}': {
        get: {
          operationId: 'getAnnotatedVideo',
          summary: 'The annotated highlight video, with byte ranges and conditional GET',
          security: TENANT,
          parameters: [idParam('id', 'the classification id')],
          responses: {
            '200': { description: 'the highlight', content: { 'video/mp4': { schema: { type: 'string', contentMediaType: 'video/mp4' } } } },
            '206': { description: 'the requested byte range', content: { 'video/mp4': { schema: { type: 'string', contentMediaType: 'video/mp4' } } } },
            '304': { description: 'not modified (If-None-Match or If-Modified-Since)' },
            ...errors(400, 401, 404, 416),
          },
        },
      },
      '/api/classify/{id}': {
        delete: {
          operationId: 'deleteClassification',
          summary: 'Delete a classification, its clip and its highlight',
          security: TENANT,
          parameters: [idParam('id', 'the classification id')],
          responses: { '204': { description: 'deleted' }, ...errors(400, 401, 404) },
        },
      },
      '/api/cameras/{camera}/capture': {
        post: {
          operationId: 'captureCamera',
          summary: 'Record a clip from a configured camera and classify it',
          security: TENANT,
          parameters: [idParam('camera', 'the camera id from the config'), SYNC, ...['parent_id', 'analyse_id', 'flow'].map((k) => queryParam(k, UPLOAD_FIELDS[k]))],
          responses: { ...accepted('with sync=true'), ...errors(400, 401, 404, 410, 507) },
        },
      },
      '/api/cameras/{camera}/watch': {
        get: {
          operationId: 'cameraWatch',
          summary: "A watched camera's state, totals and last events (README, Watching)",
          security: TENANT,
          parameters: [idParam('camera', 'the camera id from the config')],
          responses: {
            '200': json({
              type: 'object',
              required: ['camera', 'state', 'since', 'reason', 'events_total', 'motion_seconds_total', 'reconnects_total', 'ffmpeg_cpu_seconds_total', 'buffer', 'last_events'],
              properties: {
                camera: { type: 'string' },
                state: { type: 'string', enum: ['starting', 'watching', 'motion', 'event', 'down'] },
                since: { type: 'string', format: 'date-time' },
                reason: { type: ['string', 'null'] },
                events_total: { type: 'integer' },
                motion_seconds_total: { type: 'number' },
                reconnects_total: { type: 'integer' },
                ffmpeg_cpu_seconds_total: { type: 'number' },
                buffer: { type: 'object', properties: { dir: { type: 'string' }, segments: { type: 'integer' }, bytes: { type: 'integer' } } },
                last_events: { type: 'array', items: { type: 'object' } },
              },
            }, 'its state'),
            ...errors(401, 404),
          },
        },
      },
      '/api/admin/integrations': {
        get: {
          operationId: 'listIntegrations',
          summary: 'Webhook integrations, from the config and the API',
          security: ADMIN,
          parameters: [queryParam('tenant', 'only this tenant'), queryParam('flow', 'only this flow')],
          responses: { '200': json(ref('IntegrationList'), 'the integrations'), ...errors(401) },
        },
        post: {
          operationId: 'createIntegration',
          summary: 'Add a webhook integration',
          security: ADMIN,
          requestBody: { required: true, content: { 'application/json': { schema: inline(createIntegrationBody, 'input') } } },
          responses: { '201': json(ref('Integration'), 'created'), ...errors(400, 401, 409) },
        },
      },
      '/api/admin/integrations/{id}': {
        get: {
          operationId: 'getIntegration',
          security: ADMIN,
          parameters: [idParam('id', 'the integration id')],
          responses: { '200': json(ref('Integration'), 'the integration'), ...errors(401, 404) },
        },
        put: {
          operationId: 'updateIntegration',
          summary: 'Change an integration added through the API',
          security: ADMIN,
          parameters: [idParam('id', 'the integration id')],
          requestBody: { required: true, content: { 'application/json': { schema: inline(updateIntegrationBody, 'input') } } },
          responses: { '200': json(ref('Integration'), 'the integration as changed'), ...errors(400, 401, 404, 409) },
        },
        delete: {
          operationId: 'deleteIntegration',
          security: ADMIN,
          parameters: [idParam('id', 'the integration id')],
          responses: { '204': { description: 'deleted' }, ...errors(401, 404, 409) },
        },
      },
      '/api/admin/deliveries/{id}': {
        get: {
          operationId: 'getDeliveries',
          summary: 'The delivery state of one classification',
          security: ADMIN,
          parameters: [idParam('id', 'the classification id')],
          responses: { '200': json(ref('Deliveries'), 'its deliveries'), ...errors(400, 401, 404) },
        },
      },
      '/api/admin/outbox': {
        get: {
          operationId: 'getOutbox',
          summary: 'Outbox counts',
          security: ADMIN,
          responses: { '200': json(ref('Outbox'), 'the counts'), ...errors(401) },
        },
      },
      '/healthz': {
        get: { operationId: 'health', summary: 'Liveness', security: PUBLIC, responses: { '200': json(ref('Health'), 'the process answers') } },
      },
      '/readyz': {
        get: {
          operationId: 'readiness',
          summary: 'Readiness, with each check',
          security: PUBLIC,
          responses: { '200': json(ref('Readiness'), 'every check passes'), '503': json(ref('Readiness'), 'a check fails') },
        },
      },
      '/metrics': {
        get: {
          operationId: 'metrics',
          summary: 'Prometheus metrics',
          security: PUBLIC,
          responses: { '200': { description: 'Prometheus text format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } } },
        },
      },
      '/api/openapi.json': {
        get: {
          operationId: 'openapi',
          summary: 'This document',
          security: PUBLIC,
          responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      },
    },
  };
}

/** The public route serving the document (built once). */
export function openApiRoutes(): Router {
  const router = new Router();
  const document = openApiDocument();
  router.get('/api/openapi.json', (ctx) => {
    ctx.body = document;
  });
  return router;
}
