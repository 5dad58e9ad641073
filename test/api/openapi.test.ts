// GET /api/openapi.json is a valid OpenAPI 3.1 document (the OpenAPI 3.1
// schema, every Schema Object in it under a strict JSON Schema 2020-12
// validator, Redocly's recommended rules), it lists every route of the
// key-based API and the operations endpoints, and the real daemon's answers,
// errors included, fit it: every answer below is validated (ajv) against the
// schema the document gives for its path, method, status and media type, and
// every operation of the document is exercised.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type Router from '@koa/router';
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats, { type FormatsPlugin } from 'ajv-formats';
import { expect } from 'chai';
import sqlite3 from 'sqlite3';
import { adminRoutes } from '../../runtime/api/admin-routes.js';
import { classificationRoutes } from '../../runtime/api/classification-routes.js';
import { openApiRoutes } from '../../runtime/api/openapi.js';
import { captureRoutes } from '../../runtime/capture/capture-routes.js';
import { healthRoutes } from '../../runtime/ops/health-routes.js';
import { stillClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';

// ajv-formats is CommonJS: under NodeNext its plugin function is the default export's default
const addFormats = (formats as unknown as { default: FormatsPlugin }).default;

type Json = Record<string, any>;

/**
 * Redocly warnings accepted, each at one place and for a reason; any other
 * problem fails the test.
 */
const LINT_EXCEPTIONS: Array<{ rule: string; pointer: string; reason: string }> = [
  ...['/healthz', '/readyz', '/metrics', '/api/openapi.json'].map((p) => ({
    rule: 'operation-4xx-response',
    pointer: `#/paths/${p.replace(/\//g, '~1')}/get/responses`,
    reason: 'no key, no parameter, no body: nothing the client sends can be refused here; the server-wide 400/408/431 of malformed or stalled requests are described once in info.description',
  })),
];

/** The document's own fields, declared to ajv as a vocabulary so that its $refs resolve while every schema in it is compiled strictly. */
const OPENAPI_FIELDS = ['openapi', 'info', 'jsonSchemaDialect', 'servers', 'paths', 'webhooks', 'components', 'security', 'tags', 'externalDocs'];

const escapePointer = (p: string) => p.replace(/~/g, '~0').replace(/\//g, '~1');

/** JSON pointers of every Schema Object of the document: components, parameters, bodies, answers and their headers. */
function schemaPointers(doc: Json): string[] {
  const out = Object.keys(doc.components.schemas as Json).map((name) => `/components/schemas/${escapePointer(name)}`);
  for (const [template, methods] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(methods as Json)) {
      const at = `/paths/${escapePointer(template)}/${method}`;
      (op.parameters ?? []).forEach((_: unknown, i: number) => out.push(`${at}/parameters/${i}/schema`));
      for (const type of Object.keys(op.requestBody?.content ?? {})) out.push(`${at}/requestBody/content/${escapePointer(type)}/schema`);
      for (const [status, answer] of Object.entries(op.responses as Json)) {
        for (const type of Object.keys(answer.content ?? {})) out.push(`${at}/responses/${status}/content/${escapePointer(type)}/schema`);
        for (const header of Object.keys(answer.headers ?? {})) out.push(`${at}/responses/${status}/headers/${escapePointer(header)}/schema`);
      }
    }
  }
  return out;
}

const at = (doc: Json, pointer: string): any => pointer.split('/').slice(1).reduce((node, part) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);

/** A strict JSON Schema 2020-12 validator (ajv with strict: true, and the formats). */
function strictAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv;
}

/** METHOD /path/{param} of each route of a router (HEAD, which koa answers for each GET, aside). */
const routesOf = (router: Router): string[] =>
  router.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${String(layer.path).replace(/:(\w+)/g, '{$1}')}`));

describe('api: the OpenAPI document and the answers of the daemon', function () {
  let daemon: TestDaemon;
  let dir: string;
  let clip: string;
  let doc: Json;
  let ajv: Ajv2020;
  const exercised = new Map<string, Set<string>>(); // "METHOD template" -> statuses seen

  before(async () => {
    dir = tempDir();
    clip = await stillClip('grace_hopper.png', path.join(dir, 'grace.mp4'), 2, 10, 320);
    daemon = await new TestDaemon({ config: { server: { max_upload_bytes: 1_000_000, body_idle_timeout_s: 2 } } }).start();
  });
  after(async () => {
    await daemon?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Checks one answer of the daemon against the document; returns the parsed body. */
  function check(method: string, template: string, url: string, status: number, headers: Headers, text: string): { status: number; body: any; headers: Headers } {
    const operation = doc.paths[template]?.[method.toLowerCase()];
    expect(operation, `${method} ${template} is documented`).to.be.an('object');
    const response = operation.responses[String(status)];
    expect(response, `${method} ${url}: status ${status} is documented`).to.be.an('object');
    const key = `${method} ${template}`;
    if (!exercised.has(key)) exercised.set(key, new Set());
    exercised.get(key)!.add(String(status));
    for (const header of Object.keys(response.headers ?? {})) expect(headers.get(header), `${method} ${url} ${status}: header ${header}`).to.be.a('string');
    const type = (headers.get('content-type') ?? '').split(';')[0].trim();
    if (!response.content) {
      expect(text, `${method} ${url} ${status} has no body`).to.equal('');
      return { status, body: undefined, headers };
    }
    expect(Object.keys(response.content), `${method} ${url} ${status}: ${type} is documented`).to.include(type);
    if (type !== 'application/json') return { status, body: text, headers };
    const body = JSON.parse(text);
    const pointer = ['paths', template, method.toLowerCase(), 'responses', String(status), 'content', type, 'schema']
      .map((p) => encodeURIComponent(escapePointer(p)))
      .join('/');
    const validate = ajv.getSchema(`openapi.json#/${pointer}`)!;
    expect(validate, `schema of ${method} ${template} ${status}`).to.be.a('function');
    const ok = validate(body);
    expect(ok, `${method} ${url} ${status}: ${ajv.errorsText(validate.errors)}\n${text.slice(0, 500)}`).to.equal(true);
    return { status, body, headers };
  }

  /** Calls the daemon and checks the answer against the document. */
  async function call(method: string, template: string, url: string, init: RequestInit = {}): Promise<{ status: number; body: any; headers: Headers }> {
    const res = await fetch(`${daemon.url}${url}`, { method, ...init });
    return check(method, template, url, res.status, res.headers, await res.text());
  }

  const tenant = () => daemon.auth();
  const admin = () => daemon.auth(daemon.adminKey);
  const uploadForm = (fields: Record<string, string> = {}) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('video', new Blob([fs.readFileSync(clip)]), 'grace.mp4');
    return form;
  };

  it('GET /api/openapi.json is a valid OpenAPI 3.1 document', async () => {
    const res = await fetch(`${daemon.url}/api/openapi.json`);
    expect(res.status).to.equal(200);
    doc = (await res.json()) as Json;
    expect(doc.openapi).to.match(/^3\.1\./);
    const result = await new Validator().validate(doc);
    expect(result.valid, JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).to.equal(true);
    expect(doc.servers).to.deep.equal([{ url: '/', description: 'this gateway' }]);
    expect(doc.info.license).to.deep.equal({ name: 'Apache License 2.0', identifier: 'Apache-2.0' });
    ajv = strictAjv();
    ajv.addVocabulary(OPENAPI_FIELDS);
    ajv.addSchema(doc, 'openapi.json');
    await call('GET', '/api/openapi.json', '/api/openapi.json');
    // the check has teeth: a body off the schema is refused
    const errorSchema = ajv.getSchema('openapi.json#/components/schemas/Error')!;
    expect(errorSchema({ error: { code: 'x', message: 'y' } })).to.equal(true);
    expect(errorSchema({ error: { code: 1, message: 'y' } })).to.equal(false);
    expect(errorSchema({ error: { code: 'x', message: 'y' }, extra: true })).to.equal(false);
  });

  it('every Schema Object in it is a valid JSON Schema 2020-12 and compiles under ajv strict mode', () => {
    const pointers = schemaPointers(doc);
    expect(pointers.length).to.be.greaterThan(100);
    const meta = strictAjv();
    for (const pointer of pointers) {
      expect(meta.validateSchema(at(doc, pointer)), `${pointer}: ${meta.errorsText(meta.errors)}`).to.equal(true);
      // compiled where it sits, so its $refs resolve; strict mode throws on unknown keywords, types and formats
      expect(ajv.getSchema(`openapi.json#${pointer.split('/').map(encodeURIComponent).join('/')}`), pointer).to.be.a('function');
    }
    // the check has teeth: the $id zod used to give each component is refused, and so is an unknown keyword
    expect(meta.validateSchema({ $id: '#/components/schemas/Error', type: 'object' })).to.equal(false);
    expect(() => strictAjv().compile({ type: 'string', example: 'x' })).to.throw(/strict mode: unknown keyword: "example"/);
  });

  it("passes Redocly's recommended rules, with the listed exceptions only", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc, null, 2), absoluteRef: 'openapi.json', config });
    const excused = (p: NormalizedProblem) =>
      p.severity === 'warn' && LINT_EXCEPTIONS.some((e) => e.rule === p.ruleId && p.location.some((l) => l.pointer === e.pointer));
    const unexcused = problems.filter((p) => !excused(p)).map((p) => `${p.severity} ${p.ruleId} at ${p.location.map((l) => l.pointer).join(', ')}: ${p.message}`);
    expect(unexcused, unexcused.join('\n')).to.deep.equal([]);
    // each exception still applies (one that no longer does is removed from the list)
    for (const e of LINT_EXCEPTIONS) expect(problems.some((p) => p.ruleId === e.rule && p.location.some((l) => l.pointer === e.pointer)), `${e.rule} at ${e.pointer}`).to.equal(true);
  });

  it('lists every route of the key-based API and the operations endpoints, and nothing else', () => {
    // The routers the daemon mounts for them (runtime/daemon.ts, capture/ and ops/ wiring), built
    // only to read their route tables. The dashboard's routers (its page and /dashboard/api, for
    // the page and behind its session) are left out on purpose: the document says so.
    const none = {} as never;
    const routers = [classificationRoutes(none), adminRoutes(none), captureRoutes(none), healthRoutes(none), openApiRoutes()];
    const routes = routers.flatMap(routesOf).sort();
    const documented = Object.entries(doc.paths as Json).flatMap(([template, methods]) => Object.keys(methods as Json).map((m) => `${m.toUpperCase()} ${template}`)).sort();
    expect(documented).to.deep.equal(routes);
    expect(doc.info.description).to.include('/dashboard/api');
  });

  it('health, readiness and metrics answers fit', async () => {
    await call('GET', '/healthz', '/healthz');
    await call('GET', '/readyz', '/readyz');
    await call('GET', '/metrics', '/metrics');
  });

  let id = '';
  it('classification answers fit: accepted, sync result, result, video, ranges, delete', async () => {
    const accepted = await call('POST', '/api/classify', '/api/classify', { headers: tenant(), body: uploadForm({ metadata: '{"camera_id": 7}', analyse_id: '12' }) });
    expect(accepted.status).to.equal(202);
    id = accepted.body.id;
    const early = await call('GET', '/api/result/{id}', `/api/result/${id}`, { headers: tenant() });
    expect([200, 202]).to.include(early.status);
    const sync = await call('POST', '/api/classify', '/api/classify?sync=true', { headers: tenant(), body: uploadForm({ parent_id: 'evt-1' }) });
    expect(sync.status).to.equal(200);
    expect(sync.body.parent_id).to.equal('evt-1');
    await daemon.waitForResult(id);
    const final = await call('GET', '/api/result/{id}', `/api/result/${id}`, { headers: tenant() });
    expect(final.status).to.equal(200);
    expect(final.body.analyse_id).to.equal(12);
    expect(final.body.status.video).to.equal('done');
    for (const [template, url] of [['/api/video/annotate/{id}', `/api/video/annotate/${id}`], ['/api/snapshot/{id}', `/api/snapshot/${id}`], ['/api/snapshot/{id}', `/api/snapshot/${id}?clean=1`]]) {
      const whole = await call('GET', template, url, { headers: tenant() });
      expect(whole.status, url).to.equal(200);
      expect((await call('GET', template, url, { headers: { ...tenant(), range: 'bytes=0-99' } })).status, url).to.equal(206);
      expect((await call('GET', template, url, { headers: { ...tenant(), range: 'bytes=999999999-' } })).status, url).to.equal(416);
      expect((await call('GET', template, url, { headers: { ...tenant(), 'if-none-match': whole.headers.get('etag')! } })).status, url).to.equal(304);
    }
    const other = sync.body.id as string;
    expect((await call('DELETE', '/api/classify/{id}', `/api/classify/${other}`, { headers: tenant() })).status).to.equal(204);
    expect((await call('DELETE', '/api/classify/{id}', `/api/classify/${other}`, { headers: tenant() })).status).to.equal(404);
  });

  it('error answers fit: 400, 401, 404, 413, 415, 422', async () => {
    const bad = async (method: string, template: string, url: string, status: number, code: string, init: RequestInit = {}) => {
      const res = await call(method, template, url, init);
      expect(res.status, url).to.equal(status);
      expect(res.body.error.code, url).to.equal(code);
    };
    await bad('GET', '/api/result/{id}', '/api/result/not-an-id', 400, 'invalid_id', { headers: tenant() });
    await bad('GET', '/api/result/{id}', `/api/result/${id}`, 401, 'unauthorized');
    await bad('GET', '/api/result/{id}', `/api/result/${id}`, 404, 'not_found', { headers: daemon.auth(daemon.otherTenantKey) });
    await bad('GET', '/api/video/annotate/{id}', '/api/video/annotate/00000000-0000-4000-8000-000000000000', 404, 'not_found', { headers: tenant() });
    await bad('GET', '/api/video/annotate/{id}', '/api/video/annotate/x', 400, 'invalid_id', { headers: tenant() });
    await bad('GET', '/api/video/annotate/{id}', `/api/video/annotate/${id}`, 401, 'unauthorized');
    await bad('GET', '/api/snapshot/{id}', '/api/snapshot/00000000-0000-4000-8000-000000000000', 404, 'not_found', { headers: tenant() });
    await bad('GET', '/api/snapshot/{id}', '/api/snapshot/x', 400, 'invalid_id', { headers: tenant() });
    await bad('GET', '/api/snapshot/{id}', `/api/snapshot/${id}`, 401, 'unauthorized');
    await bad('DELETE', '/api/classify/{id}', '/api/classify/x', 400, 'invalid_id', { headers: tenant() });
    await bad('DELETE', '/api/classify/{id}', `/api/classify/${id}`, 401, 'unauthorized');
    await bad('POST', '/api/classify', '/api/classify', 401, 'unauthorized', { body: uploadForm() });
    await bad('POST', '/api/classify', '/api/classify', 400, 'invalid_metadata', { headers: tenant(), body: uploadForm({ metadata: '{not json' }) });
    await bad('POST', '/api/classify', '/api/classify', 413, 'too_large', { headers: { ...tenant(), 'content-type': 'video/mp4' }, body: new Uint8Array(2_000_000) });
    await bad('POST', '/api/classify', '/api/classify', 415, 'unsupported_media_type', { headers: { ...tenant(), 'content-type': 'text/plain' }, body: 'hello' });
    await bad('POST', '/api/classify', '/api/classify', 422, 'invalid_video', { headers: { ...tenant(), 'content-type': 'video/mp4' }, body: 'not a video' });
    await bad('POST', '/api/cameras/{camera}/capture', '/api/cameras/front-door/capture', 404, 'not_found', { headers: tenant() });
    await bad('POST', '/api/cameras/{camera}/capture', '/api/cameras/front-door/capture', 401, 'unauthorized');
    await bad('GET', '/api/cameras/{camera}/watch', '/api/cameras/front-door/watch', 404, 'not_found', { headers: tenant() });
    await bad('GET', '/api/cameras/{camera}/watch', '/api/cameras/front-door/watch', 401, 'unauthorized');
  });

  it('a body that stalls gets the documented 408', async () => {
    // the headers and half a clip, then silence past server.body_idle_timeout_s (2 s here)
    const bytes = fs.readFileSync(clip);
    const answer = await new Promise<{ status: number; headers: Headers; text: string }>((resolve, reject) => {
      const req = http.request(`${daemon.url}/api/classify`, {
        method: 'POST',
        agent: false,
        headers: { ...tenant(), 'content-type': 'video/mp4', 'content-length': bytes.length },
      }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: new Headers(res.headers as Record<string, string>), text }));
      });
      req.on('error', reject);
      req.write(bytes.subarray(0, bytes.length >> 1));
    });
    const res = check('POST', '/api/classify', '/api/classify', answer.status, answer.headers, answer.text);
    expect(res.status).to.equal(408);
    expect(res.body.error.code).to.equal('request_timeout');
  });

  it('a database held locked by another process gets the documented 503 with Retry-After', async () => {
    // a second connection holds the write lock past the daemon's busy timeout (5 s)
    const holder = await new Promise<sqlite3.Database>((resolve, reject) => {
      const db = new sqlite3.Database(path.join(daemon.dataDir, 'vigil.db'), (err) => (err ? reject(err) : resolve(db)));
    });
    const exec = (sql: string) => new Promise<void>((resolve, reject) => holder.exec(sql, (err) => (err ? reject(err) : resolve())));
    await exec('BEGIN IMMEDIATE');
    try {
      const res = await call('POST', '/api/classify', '/api/classify', { headers: tenant(), body: uploadForm() });
      expect(res.status).to.equal(503);
      expect(res.body.error.code).to.equal('busy');
      expect(res.headers.get('retry-after')).to.equal('5');
    } finally {
      await exec('ROLLBACK');
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });

  it('admin answers fit: integrations, deliveries, outbox and their errors', async () => {
    const jsonHeaders = { ...admin(), 'content-type': 'application/json' };
    expect((await call('GET', '/api/admin/integrations', '/api/admin/integrations', { headers: admin() })).status).to.equal(200);
    expect((await call('GET', '/api/admin/integrations', '/api/admin/integrations')).status).to.equal(401);
    const created = await call('POST', '/api/admin/integrations', '/api/admin/integrations', { headers: jsonHeaders, body: JSON.stringify({ tenant: 'tenant-a', url: 'http://127.0.0.1:9/hook' }) });
    expect(created.status).to.equal(201);
    const integration = created.body.id as string;
    expect((await call('POST', '/api/admin/integrations', '/api/admin/integrations', { headers: jsonHeaders, body: JSON.stringify({ tenant: 'tenant-a', url: 'http://127.0.0.1:9/hook' }) })).status).to.equal(409);
    expect((await call('POST', '/api/admin/integrations', '/api/admin/integrations', { headers: jsonHeaders, body: JSON.stringify({ tenant: 'tenant-a', url: 'ftp://x' }) })).status).to.equal(400);
    expect((await call('POST', '/api/admin/integrations', '/api/admin/integrations', { body: '{}' })).status).to.equal(401);
    expect((await call('GET', '/api/admin/integrations/{id}', `/api/admin/integrations/${integration}`, { headers: admin() })).status).to.equal(200);
    expect((await call('GET', '/api/admin/integrations/{id}', '/api/admin/integrations/nope', { headers: admin() })).status).to.equal(404);
    expect((await call('GET', '/api/admin/integrations/{id}', '/api/admin/integrations/nope')).status).to.equal(401);
    expect((await call('PUT', '/api/admin/integrations/{id}', `/api/admin/integrations/${integration}`, { headers: jsonHeaders, body: JSON.stringify({ flow: 'doors' }) })).status).to.equal(200);
    expect((await call('PUT', '/api/admin/integrations/{id}', `/api/admin/integrations/${integration}`, { headers: jsonHeaders, body: JSON.stringify({ colour: 'red' }) })).status).to.equal(400);
    expect((await call('PUT', '/api/admin/integrations/{id}', '/api/admin/integrations/nope', { headers: jsonHeaders, body: '{}' })).status).to.equal(404);
    expect((await call('PUT', '/api/admin/integrations/{id}', '/api/admin/integrations/nope', { body: '{}' })).status).to.equal(401);
    expect((await call('DELETE', '/api/admin/integrations/{id}', `/api/admin/integrations/${integration}`, { headers: admin() })).status).to.equal(204);
    expect((await call('DELETE', '/api/admin/integrations/{id}', `/api/admin/integrations/${integration}`, { headers: admin() })).status).to.equal(404);
    expect((await call('DELETE', '/api/admin/integrations/{id}', `/api/admin/integrations/${integration}`)).status).to.equal(401);
    expect((await call('GET', '/api/admin/deliveries/{id}', `/api/admin/deliveries/${id}`, { headers: admin() })).status).to.equal(200);
    expect((await call('GET', '/api/admin/deliveries/{id}', '/api/admin/deliveries/x', { headers: admin() })).status).to.equal(400);
    expect((await call('GET', '/api/admin/deliveries/{id}', '/api/admin/deliveries/00000000-0000-4000-8000-000000000000', { headers: admin() })).status).to.equal(404);
    expect((await call('GET', '/api/admin/deliveries/{id}', `/api/admin/deliveries/${id}`)).status).to.equal(401);
    expect((await call('GET', '/api/admin/outbox', '/api/admin/outbox', { headers: admin() })).status).to.equal(200);
    expect((await call('GET', '/api/admin/outbox', '/api/admin/outbox')).status).to.equal(401);
  });

  it('every operation of the document was exercised', () => {
    const operations = Object.entries(doc.paths as Json).flatMap(([template, methods]) => Object.keys(methods as Json).map((m) => `${m.toUpperCase()} ${template}`));
    expect(operations.filter((op) => !exercised.has(op))).to.deep.equal([]);
  });
});
