// GET /healthz, /readyz and /metrics on the real daemon: public, free of
// secrets, and telling the truth about what the daemon did.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { stillClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';
import { PROJECT_ROOT } from '../support/paths.js';
import { find, parseExposition, value } from '../support/prom-text.js';

async function text(res: Response): Promise<string> {
  return res.text();
}

describe('ops: health, readiness and metrics', function () {
  let daemon: TestDaemon;
  let dir: string;
  let clip: string;

  before(async () => {
    dir = tempDir();
    clip = await stillClip('grace_hopper.png', path.join(dir, 'grace.mp4'), 2, 10, 320);
    daemon = await new TestDaemon().start();
  });
  after(async () => {
    await daemon?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function expectNoSecrets(body: string): void {
    for (const key of [daemon.tenantKey, daemon.otherTenantKey, daemon.adminKey]) expect(body).to.not.include(key);
  }

  it('GET /healthz answers 200 without a key', async () => {
    const res = await fetch(`${daemon.url}/healthz`);
    expect(res.status).to.equal(200);
    const body = await text(res);
    expect(JSON.parse(body)).to.deep.equal({ status: 'ok' });
    expectNoSecrets(body);
  });

  it('GET /readyz reports each check, and is 200 exactly when all pass', async () => {
    const res = await fetch(`${daemon.url}/readyz`);
    const body = await text(res);
    const report = JSON.parse(body) as { status: string; checks: Record<string, { ok: boolean; detail: string }> };
    expect(report.checks.database).to.deep.include({ ok: true });
    expect(report.checks.disk.ok).to.equal(true);
    expect(report.checks.disk.detail).to.match(/free, minimum/);
    for (const check of Object.values(report.checks)) {
      expect(check.ok).to.be.a('boolean');
      expect(check.detail).to.be.a('string');
    }
    const allOk = Object.values(report.checks).every((c) => c.ok);
    expect(res.status).to.equal(allOk ? 200 : 503);
    expect(report.status).to.equal(allOk ? 'ready' : 'not_ready');
    expectNoSecrets(body);
  });

  it('GET /metrics is Prometheus text without a key, listing every metric before anything happened', async () => {
    const res = await fetch(`${daemon.url}/metrics`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    const body = await text(res);
    expectNoSecrets(body);
    const exp = parseExposition(body);
    for (const [name, type] of Object.entries({
      vigil_jobs: 'gauge',
      vigil_queue_depth: 'gauge',
      vigil_clip_processing_seconds: 'histogram',
      vigil_inference_duration_seconds: 'histogram',
      vigil_frames_inferred_total: 'counter',
      vigil_inference_backend: 'gauge',
      vigil_model_info: 'gauge',
      vigil_outbox_pending: 'gauge',
      vigil_deliveries_total: 'counter',
      vigil_media_bytes: 'gauge',
      vigil_database_bytes: 'gauge',
      vigil_disk_free_bytes: 'gauge',
      vigil_disk_total_bytes: 'gauge',
      vigil_mqtt_connected: 'gauge',
      vigil_results_total: 'counter',
      vigil_result_labels_total: 'counter',
      vigil_http_refusals_total: 'counter',
      vigil_captures_total: 'counter',
      vigil_delivery_latency_seconds: 'histogram',
      vigil_child_processes: 'gauge',
      vigil_child_resident_memory_bytes: 'gauge',
      vigil_child_cpu_seconds_total: 'counter',
      // prom-client's standard process and Node.js metrics
      process_cpu_seconds_total: 'counter',
      process_resident_memory_bytes: 'gauge',
      process_start_time_seconds: 'gauge',
      process_open_fds: 'gauge',
      nodejs_heap_size_used_bytes: 'gauge',
      nodejs_eventloop_lag_seconds: 'gauge',
    })) {
      expect(exp.types.get(name), name).to.equal(type);
    }
    for (const state of ['queued', 'running']) expect(find(exp, 'vigil_jobs', { state })).to.have.lengthOf(1);
    for (const target of ['webhook', 'mqtt']) {
      expect(find(exp, 'vigil_outbox_pending', { target })).to.have.lengthOf(1);
      for (const outcome of ['delivered', 'failed_status', 'dropped']) expect(find(exp, 'vigil_deliveries_total', { target, outcome })).to.have.lengthOf(1);
    }
    expect(value(exp, 'vigil_mqtt_connected')).to.equal(0); // MQTT is off in this config
    const version = (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(value(exp, 'vigil_build_info', { version })).to.equal(1);
    const free = value(exp, 'vigil_disk_free_bytes');
    expect(free).to.be.greaterThan(0);
    expect(free).to.be.at.most(value(exp, 'vigil_disk_total_bytes'));
    expect(value(exp, 'vigil_database_bytes')).to.be.greaterThan(0);
    for (const outcome of ['recorded', 'camera_failed', 'refused']) expect(value(exp, 'vigil_captures_total', { outcome })).to.equal(0);
    for (const target of ['webhook', 'mqtt']) expect(value(exp, 'vigil_delivery_latency_seconds_count', { target })).to.equal(0);
    expect(value(exp, 'process_resident_memory_bytes')).to.be.greaterThan(0);
  });

  it('counts the interpreter workers with their memory and CPU', async () => {
    // the workers exist once the model pack is loaded
    await daemon.waitForLog((r) => r.msg === 'model pack active', 120_000);
    const exp = parseExposition(await text(await fetch(`${daemon.url}/metrics`)));
    expect(value(exp, 'vigil_child_processes', { kind: 'interpreter' })).to.be.at.least(1);
    expect(value(exp, 'vigil_child_resident_memory_bytes', { kind: 'interpreter' })).to.be.greaterThan(10_000_000);
    expect(value(exp, 'vigil_child_cpu_seconds_total', { kind: 'interpreter' })).to.be.greaterThan(0);
    for (const kind of ['ffmpeg', 'other']) expect(find(exp, 'vigil_child_processes', { kind })).to.have.lengthOf(1);
  });

  it('writes valid sample values when two scrapes come at once (an empty event-loop histogram is NaN)', async () => {
    for (let i = 0; i < 10; i++) {
      const pair = await Promise.all([0, 1].map(async () => text(await fetch(`${daemon.url}/metrics`))));
      for (const exposition of pair) parseExposition(exposition); // throws on a value the format does not know
    }
  });

  it('counts refused requests by status and code', async () => {
    const count = async () => find(parseExposition(await text(await fetch(`${daemon.url}/metrics`))), 'vigil_http_refusals_total', { status: '401', code: 'unauthorized' })[0]?.value ?? 0;
    const before = await count();
    expect((await fetch(`${daemon.url}/api/result/x`)).status).to.equal(401);
    expect((await fetch(`${daemon.url}/api/result/x`, { headers: { authorization: 'Bearer nobody-knows-this-key' } })).status).to.equal(401);
    expect((await count()) - before).to.equal(2);
  });

  it('`promtool check metrics` finds nothing to say (when promtool is installed)', async function () {
    if (spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status !== 0) this.skip();
    const body = await text(await fetch(`${daemon.url}/metrics`));
    const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.stdin.end(body);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(out.trim(), 'promtool output').to.equal('');
    expect(code).to.equal(0);
  });

  it('counts a processed clip: finished classifications, processing time, queue back to empty', async () => {
    const before = parseExposition(await text(await fetch(`${daemon.url}/metrics`)));
    const finishedBefore = find(before, 'vigil_classifications_finished_total').reduce((n, s) => n + s.value, 0);
    const clipsBefore = value(before, 'vigil_clip_processing_seconds_count');
    const risksBefore = find(before, 'vigil_results_total').reduce((n, s) => n + s.value, 0);
    const ffmpegCpuBefore = value(before, 'vigil_child_cpu_seconds_total', { kind: 'ffmpeg' });
    const mediaBefore = value(before, 'vigil_media_bytes');

    const id = await daemon.submit(clip);
    const result = await daemon.waitForResult(id);

    const exp = parseExposition(await text(await fetch(`${daemon.url}/metrics`)));
    const outcome = result.error_code === 0 ? 'classified' : 'error';
    expect(value(exp, 'vigil_classifications_finished_total', { result: outcome }) - (find(before, 'vigil_classifications_finished_total', { result: outcome })[0]?.value ?? 0)).to.equal(1);
    expect(find(exp, 'vigil_classifications_finished_total').reduce((n, s) => n + s.value, 0) - finishedBefore).to.equal(1);
    if (result.error_code !== 0) expect(value(exp, 'vigil_classification_errors_total', { error_code: String(result.error_code) })).to.be.at.least(1);
    expect(value(exp, 'vigil_clip_processing_seconds_count') - clipsBefore).to.equal(1);
    // ffprobe, the decoders and the highlight encoder ran and ended between the two scrapes
    expect(value(exp, 'vigil_child_cpu_seconds_total', { kind: 'ffmpeg' })).to.be.greaterThan(ffmpegCpuBefore);
    if (result.error_code === 0) {
      // counted by the risk and labels the result carries
      expect(find(exp, 'vigil_results_total').reduce((n, s) => n + s.value, 0) - risksBefore).to.equal(1);
      expect(value(exp, 'vigil_results_total', { risk: result.risk })).to.be.at.least(1);
      for (const label of result.labels as string[]) expect(value(exp, 'vigil_result_labels_total', { label })).to.be.at.least(1);
    }
    expect(value(exp, 'vigil_clip_processing_seconds_bucket', { le: '+Inf' })).to.equal(value(exp, 'vigil_clip_processing_seconds_count'));
    expect(value(exp, 'vigil_clip_processing_seconds_sum')).to.be.greaterThan(0);
    expect(value(exp, 'vigil_jobs', { state: 'queued' })).to.equal(0);
    expect(value(exp, 'vigil_jobs', { state: 'running' })).to.equal(0);
    expect(value(exp, 'vigil_queue_depth')).to.equal(0);
    // the stored clip is counted in the media bytes
    expect(value(exp, 'vigil_media_bytes') - mediaBefore).to.be.at.least(fs.statSync(clip).size);
    // histogram buckets never decrease
    const buckets = find(exp, 'vigil_clip_processing_seconds_bucket').map((s) => s.value);
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]).to.be.at.least(buckets[i - 1]);
  });
});

describe('ops: readiness when the disk is below the minimum', function () {
  let daemon: TestDaemon;

  before(async () => {
    // a minimum no volume can meet
    daemon = await new TestDaemon({ config: { retention: { min_free_bytes: Number.MAX_SAFE_INTEGER } } }).start();
  });
  after(async () => daemon?.cleanup());

  it('GET /readyz is 503 with the disk check failing and the others still reported', async () => {
    const res = await fetch(`${daemon.url}/readyz`);
    expect(res.status).to.equal(503);
    const report = (await res.json()) as { status: string; checks: Record<string, { ok: boolean; detail: string }> };
    expect(report.status).to.equal('not_ready');
    expect(report.checks.disk.ok).to.equal(false);
    expect(report.checks.disk.detail).to.match(/minimum/);
    expect(report.checks.database.ok).to.equal(true);
    // alive all the same
    expect((await fetch(`${daemon.url}/healthz`)).status).to.equal(200);
    // "not ready" is an answer, not a refused request: no warning or error for each probe
    const probeId = res.headers.get('x-request-id')!;
    const unauthorized = await fetch(`${daemon.url}/api/result/00000000-0000-4000-8000-000000000000`);
    await daemon.waitForLog((r) => r.msg === 'request refused' && r.request_id === unauthorized.headers.get('x-request-id'));
    expect(daemon.logs.filter((r) => r.request_id === probeId && r.msg === 'request refused')).to.deep.equal([]);
  });
});
