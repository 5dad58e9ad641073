// GET /api/openapi.json: the OpenAPI 3.1 description of every endpoint of the
// key-based API and of the operations endpoints (the dashboard's own JSON API,
// made for its page, is left out). The body schemas are generated from the zod
// schemas of runtime/api/schemas.ts (tied to the code's types) and, for admin
// request bodies, from the very schemas the routes validate with; the paths are
// listed here once, and test/api/openapi.test.ts checks them against the routers.
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
  408: 'the request body stalled: no byte for server.body_idle_timeout_s; the connection is closed and what was uploaded is removed',
  409: 'conflicts with what exists',
  410: 'deleted while the request waited',
  413: 'the body is too large',
  415: 'an unsupported Content-Type',
  416: 'the byte range lies outside the file',
  422: 'not a video',
  500: 'an internal error (details in the daemon log)',
  503: 'busy: another process holds the database locked (e.g. a backup); nothing of the request is kept, retry after Retry-After seconds',
  507: 'no room on the data volume and pruning cannot make any',
};
const RETRY_AFTER: Json = { 'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } } };

/** The error answers of an operation (500 always): a status, or a status with a text of its own. */
const errors = (...statuses: Array<number | [number, string]>): Json =>
  Object.fromEntries(
    [...statuses, 500].map((entry) => {
      const [status, text] = Array.isArray(entry) ? entry : [entry, ERROR_TEXT[entry]];
      const answer = json(ref('Error'), text);
      return [String(status), status === 503 ? { ...answer, headers: RETRY_AFTER } : answer];
    }),
  );

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
const TOO_LARGE_UPLOAD: [number, string] = [413, 'the upload is over server.max_upload_bytes, or the form\'s text fields over 131072 bytes'];
const TOO_LARGE_JSON: [number, string] = [413, 'the JSON body is over 64 KiB'];
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
  // zod gives each schema its $schema and an $id equal to its place here; inside the document
  // the place is its name, and an $id holding a fragment is not a valid JSON Schema 2020-12 $id
  for (const s of Object.values(out.schemas)) {
    delete s.$schema;
    delete s.$id;
  }
  return out.schemas;
}

const binary = (type: string): Json => ({ type: 'string', contentMediaType: type });
const fileAnswers = (type: string, what: string): Json => ({
  '200': { description: what, content: { [type]: { schema: binary(type) } } },
  '206': { description: 'the requested byte range (Range, If-Range)', content: { [type]: { schema: binary(type) } } },
  '304': { description: 'not modified (If-None-Match)' },
});

const DESCRIPTION = [
  'Video classification on the gateway: upload or record clips, read results, annotated highlights and snapshots; admin API for webhook integrations and deliveries.',
  '',
  'Every answer carries an X-Request-Id header (the sender\'s own when it is a plain token, else a new UUID); every error has the body of the Error schema.',
  'Before a request reaches an endpoint, the server may answer it, whatever its path, with 400 `bad_request` (malformed HTTP), 408 `request_timeout` (headers not complete within server.headers_timeout_s) or 431 `headers_too_large`, and closes the connection; these are not repeated under each operation.',
  'The dashboard\'s JSON API under /dashboard/api serves the web page at / with a sign-in session and may change with it: it is not part of this document.',
].join('\n');

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
      description: DESCRIPTION,
      license: { name: 'Apache License 2.0', identifier: 'Apache-2.0' },
    },
    // relative: the daemon that serves this document, at whatever address it was reached
    servers: [{ url: '/', description: 'this gateway' }],
    tags: [
      { name: 'classifications', description: 'Clips in, results, highlights and snapshots out (tenant key)' },
      { name: 'cameras', description: 'Recording from configured cameras and their watch state (tenant key)' },
      { name: 'admin', description: 'Webhook integrations, deliveries and the outbox (admin key)' },
      { name: 'operations', description: 'Health, readiness, metrics and this document (no key)' },
    ],
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
          tags: ['classifications'],
          summary: 'Submit a clip: multipart with a video part, or the clip itself as the body with the fields as query parameters',
          security: TENANT,
          parameters: [SYNC, ...Object.entries({ ...UPLOAD_FIELDS, videoname: "raw uploads: the clip's name" }).map(([k, d]) => queryParam(k, d))],
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': { schema: uploadForm },
              'video/*': { schema: binary('video/*') },
              'application/octet-stream': { schema: binary('application/octet-stream') },
            },
          },
          responses: { ...accepted('with sync=true'), ...errors(400, 401, 408, 410, TOO_LARGE_UPLOAD, 415, 422, 503, 507) },
        },
      },
      '/api/result/{id}': {
        get: {
          operationId: 'getResult',
          tags: ['classifications'],
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
          tags: ['classifications'],
          summary: 'The annotated highlight video, with byte ranges and conditional GET',
          security: TENANT,
          parameters: [idParam('id', 'the classification id')],
          responses: {
            ...fileAnswers('video/mp4', 'the highlight'),
            ...errors(400, 401, [404, 'no such classification for this key (not_found), or no highlight: not rendered yet, rendering failed or pruned (no_video)'], 416),
          },
        },
      },
      '/api/snapshot/{id}': {
        get: {
          operationId: 'getSnapshot',
          tags: ['classifications'],
          summary: "The best frame as JPEG with its boxes drawn; rendered with the highlight and kept, deleted and pruned with it",
          security: TENANT,
          parameters: [idParam('id', 'the classification id'), queryParam('clean', '1 or true: the frame without boxes')],
          responses: {
            ...fileAnswers('image/jpeg', 'the snapshot'),
            ...errors(400, 401, [404, 'no such classification for this key (not_found), or no snapshot: not rendered yet, rendering failed or off, or pruned (no_snapshot)'], 416),
          },
        },
      },
      '/api/classify/{id}': {
        delete: {
          operationId: 'deleteClassification',
          tags: ['classifications'],
          summary: 'Delete a classification, its clip, its highlight and its snapshots',
          security: TENANT,
          parameters: [idParam('id', 'the classification id')],
          responses: { '204': { description: 'deleted' }, ...errors(400, 401, 404, 503) },
        },
      },
      '/api/cameras/{camera}/capture': {
        post: {
          operationId: 'captureCamera',
          tags: ['cameras'],
          summary: 'Record a clip from a configured camera and classify it',
          security: TENANT,
          parameters: [idParam('camera', 'the camera id from the config'), SYNC, ...['parent_id', 'analyse_id', 'flow'].map((k) => queryParam(k, UPLOAD_FIELDS[k]))],
          responses: { ...accepted('with sync=true'), ...errors(400, 401, 404, 410, 503, 507) },
        },
      },
      '/api/cameras/{camera}/watch': {
        get: {
          operationId: 'cameraWatch',
          tags: ['cameras'],
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
            ...errors(401, [404, 'no such camera for this key (not_found), or the camera is not watched (not_watched)']),
          },
        },
      },
      '/api/admin/integrations': {
        get: {
          operationId: 'listIntegrations',
          tags: ['admin'],
          summary: 'Webhook integrations, from the config and the API',
          security: ADMIN,
          parameters: [queryParam('tenant', 'only this tenant'), queryParam('flow', 'only this flow')],
          responses: { '200': json(ref('IntegrationList'), 'the integrations'), ...errors(401) },
        },
        post: {
          operationId: 'createIntegration',
          tags: ['admin'],
          summary: 'Add a webhook integration',
          security: ADMIN,
          requestBody: { required: true, content: { 'application/json': { schema: inline(createIntegrationBody, 'input') } } },
          responses: { '201': json(ref('Integration'), 'created'), ...errors(400, 401, 408, 409, TOO_LARGE_JSON, 503) },
        },
      },
      '/api/admin/integrations/{id}': {
        get: {
          operationId: 'getIntegration',
          tags: ['admin'],
          summary: 'One webhook integration',
          security: ADMIN,
          parameters: [idParam('id', 'the integration id')],
          responses: { '200': json(ref('Integration'), 'the integration'), ...errors(401, 404) },
        },
        put: {
          operationId: 'updateIntegration',
          tags: ['admin'],
          summary: 'Change an integration added through the API',
          security: ADMIN,
          parameters: [idParam('id', 'the integration id')],
          requestBody: { required: true, content: { 'application/json': { schema: inline(updateIntegrationBody, 'input') } } },
          responses: { '200': json(ref('Integration'), 'the integration as changed'), ...errors(400, 401, 404, 408, [409, 'a config integration (change it in the config file), or the same flow and URL as another'], TOO_LARGE_JSON, 503) },
        },
        delete: {
          operationId: 'deleteIntegration',
          tags: ['admin'],
          summary: 'Remove an integration added through the API',
          security: ADMIN,
          parameters: [idParam('id', 'the integration id')],
          responses: { '204': { description: 'deleted' }, ...errors(401, 404, [409, 'a config integration: remove it from the config file'], 503) },
        },
      },
      '/api/admin/deliveries/{id}': {
        get: {
          operationId: 'getDeliveries',
          tags: ['admin'],
          summary: 'The delivery state of one classification',
          security: ADMIN,
          parameters: [idParam('id', 'the classification id')],
          responses: { '200': json(ref('Deliveries'), 'its deliveries'), ...errors(400, 401, 404) },
        },
      },
      '/api/admin/outbox': {
        get: {
          operationId: 'getOutbox',
          tags: ['admin'],
          summary: 'Outbox counts',
          security: ADMIN,
          responses: { '200': json(ref('Outbox'), 'the counts'), ...errors(401) },
        },
      },
      '/healthz': {
        get: { operationId: 'health', tags: ['operations'], summary: 'Liveness', security: PUBLIC, responses: { '200': json(ref('Health'), 'the process answers') } },
      },
      '/readyz': {
        get: {
          operationId: 'readiness',
          tags: ['operations'],
          summary: 'Readiness, with each check',
          security: PUBLIC,
          responses: { '200': json(ref('Readiness'), 'every check passes'), '503': json(ref('Readiness'), 'a check fails') },
        },
      },
      '/metrics': {
        get: {
          operationId: 'metrics',
          tags: ['operations'],
          summary: 'Prometheus metrics',
          security: PUBLIC,
          responses: { '200': { description: 'Prometheus text format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } } },
        },
      },
      '/api/openapi.json': {
        get: {
          operationId: 'openapi',
          tags: ['operations'],
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
