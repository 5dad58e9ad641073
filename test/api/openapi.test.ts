// GET /api/openapi.json is a valid OpenAPI 3.1 document, and the real daemon's
// answers, errors included, fit it: every answer below is validated (ajv)
// against the schema the document gives for its path, method, status and media
// type, and every operation of the document is exercised.
import fs from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats, { type FormatsPlugin } from 'ajv-formats';
import { expect } from 'chai';
import { stillClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';

// ajv-formats is CommonJS: under NodeNext its plugin function is the default export's default
const addFormats = (formats as unknown as { default: FormatsPlugin }).default;

type Json = Record<string, any>;

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
    daemon = await new TestDaemon({ config: { server: { max_upload_bytes: 1_000_000 } } }).start();
  });
  after(async () => {
    await daemon?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Calls the daemon and checks the answer against the document; returns the parsed body. */
  async function call(method: string, template: string, url: string, init: RequestInit = {}): Promise<{ status: number; body: any; headers: Headers }> {
    const res = await fetch(`${daemon.url}${url}`, { method, ...init });
    const operation = doc.paths[template]?.[method.toLowerCase()];
    expect(operation, `${method} ${template} is documented`).to.be.an('object');
    const response = operation.responses[String(res.status)];
    expect(response, `${method} ${url}: status ${res.status} is documented`).to.be.an('object');
    const key = `${method} ${template}`;
    if (!exercised.has(key)) exercised.set(key, new Set());
    exercised.get(key)!.add(String(res.status));
    const type = (res.headers.get('content-type') ?? '').split(';')[0].trim();
    const text = await res.text();
    if (!response.content) {
      expect(text, `${method} ${url} ${res.status} has no body`).to.equal('');
      return { status: res.status, body: undefined, headers: res.headers };
    }
    expect(Object.keys(response.content), `${method} ${url} ${res.status}: ${type} is documented`).to.include(type);
    if (type !== 'application/json') return { status: res.status, body: text, headers: res.headers };
    const body = JSON.parse(text);
    const pointer = ['paths', template, method.toLowerCase(), 'responses', String(res.status), 'content', type, 'schema']
      .map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1')))
      .join('/');
    const validate = ajv.getSchema(`openapi.json#/${pointer}`)!;
    expect(validate, `schema of ${method} ${template} ${res.status}`).to.be.a('function');
    const ok = validate(body);
    expect(ok, `${method} ${url} ${res.status}: ${ajv.errorsText(validate.errors)}\n${text.slice(0, 500)}`).to.equal(true);
    return { status: res.status, body, headers: res.headers };
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
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, 'openapi.json');
    await call('GET', '/api/openapi.json', '/api/openapi.json');
    // the check has teeth: a body off the schema is refused
    const errorSchema = ajv.getSchema('openapi.json#/components/schemas/Error')!;
    expect(errorSchema({ error: { code: 'x', message: 'y' } })).to.equal(true);
    expect(errorSchema({ error: { code: 1, message: 'y' } })).to.equal(false);
    expect(errorSchema({ error: { code: 'x', message: 'y' }, extra: true })).to.equal(false);
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
    if (final.body.status.video === 'done') {
      expect((await call('GET', '/api/video/annotate/{id}', `/api/video/annotate/${id}`, { headers: tenant() })).status).to.equal(200);
      expect((await call('GET', '/api/video/annotate/{id}', `/api/video/annotate/${id}`, { headers: { ...tenant(), range: 'bytes=0-99' } })).status).to.equal(206);
      expect((await call('GET', '/api/video/annotate/{id}', `/api/video/annotate/${id}`, { headers: { ...tenant(), range: 'bytes=999999999-' } })).status).to.equal(416);
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
