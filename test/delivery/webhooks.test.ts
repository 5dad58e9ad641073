// Webhook delivery end to end: the real daemon, real loopback receivers, the
// admin API. Results end with whatever error_code the daemon's model gives;
// nothing here depends on labels.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { stillClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';
import { parseExposition, value } from '../support/prom-text.js';
import { WebhookReceiver } from '../support/receivers.js';
import { admin, createIntegration, deliveriesOf, submit, waitForDeliveries, webhooks } from './helpers.js';

const FAST_RETRY = { timeout_s: 1, backoff: { initial_s: 0.2, max_s: 0.5 } };

describe('webhook delivery', function () {
  let daemon: TestDaemon;
  let dir: string;
  let clip: string;
  let configReceiver: WebhookReceiver;
  const receivers: WebhookReceiver[] = [];
  const receiver = async (options: { status?: number } = {}) => {
    const r = await WebhookReceiver.start(options);
    receivers.push(r);
    return r;
  };

  before(async () => {
    dir = tempDir();
    clip = await stillClip('grace_hopper.png', path.join(dir, 'grace.mp4'), 1, 5, 160);
    configReceiver = await receiver();
    daemon = await new TestDaemon({
      config: {
        webhooks: FAST_RETRY,
        integrations: [{ tenant: 'tenant-a', flow: 'from-config', url: configReceiver.url }],
      },
    }).start();
  });
  after(async () => {
    await daemon?.cleanup();
    for (const r of receivers) await r.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('POSTs the final result as application/json, the body of GET /api/result/<id>, with no auth or signature header', async () => {
    const hook = await receiver();
    await createIntegration(daemon, 'plain', hook.url);
    const id = await submit(daemon, clip, 'plain');
    await hook.waitFor(() => hook.forId(id).length === 1);
    const got = hook.forId(id)[0];
    // the POST only exists once GET answers the final result
    const res = await fetch(`${daemon.url}/api/result/${id}`, { headers: daemon.auth() });
    expect(res.status).to.equal(200);
    expect(got.json).to.deep.equal(await res.json());
    expect(got.method).to.equal('POST');
    expect(got.path).to.equal('/hooks/vigil');
    expect(got.headers['content-type']).to.match(/^application\/json/);
    expect(Object.keys(got.headers).filter((h) => /auth|sign|token|key/i.test(h))).to.deep.equal([]);
    expect(['done', 'error']).to.include(got.json.status.classify);
    expect(['done', 'error']).to.include(got.json.status.video);

    const views = await waitForDeliveries(daemon, id, (d) => webhooks(d)[0]?.state === 'delivered');
    expect(webhooks(views)).to.have.length(1);
    expect(webhooks(views)[0]).to.include({ state: 'delivered', status_code: 200, attempts: 1, url: hook.url });
    // counted, with the time from the final result to the receiver's answer
    const exp = parseExposition(await (await fetch(`${daemon.url}/metrics`)).text());
    expect(value(exp, 'vigil_deliveries_total', { target: 'webhook', outcome: 'delivered' })).to.be.at.least(1);
    expect(value(exp, 'vigil_delivery_latency_seconds_count', { target: 'webhook' })).to.be.at.least(1);
    expect(value(exp, 'vigil_delivery_latency_seconds_sum', { target: 'webhook' })).to.be.greaterThan(0);
  });

  it('sends to integrations from the config, which the admin API cannot change', async () => {
    const id = await submit(daemon, clip, 'from-config');
    await configReceiver.waitFor(() => configReceiver.forId(id).length === 1);
    const list = (await (await admin(daemon, '/api/admin/integrations?flow=from-config')).json()) as { integrations: Array<Record<string, string>> };
    expect(list.integrations).to.have.length(1);
    expect(list.integrations[0]).to.include({ tenant: 'tenant-a', flow: 'from-config', url: configReceiver.url, source: 'config', type: 'webhook' });
    const integration = list.integrations[0].id;
    expect((await admin(daemon, `/api/admin/integrations/${integration}`, { method: 'DELETE' })).status).to.equal(409);
    expect((await admin(daemon, `/api/admin/integrations/${integration}`, { method: 'PUT', body: { flow: 'x' } })).status).to.equal(409);
  });

  it('records a non-2xx answer and never retries it', async () => {
    const hook = await receiver({ status: 500 });
    await createIntegration(daemon, 'failing', hook.url);
    const first = await submit(daemon, clip, 'failing');
    const views = await waitForDeliveries(daemon, first, (d) => webhooks(d)[0]?.state === 'delivered');
    expect(webhooks(views)[0]).to.include({ state: 'delivered', status_code: 500, attempts: 1 });
    // a later result to the same receiver goes out; the first one is still one request
    const second = await submit(daemon, clip, 'failing');
    await waitForDeliveries(daemon, second, (d) => webhooks(d)[0]?.state === 'delivered');
    expect(hook.forId(first)).to.have.length(1);
    expect(hook.forId(second)).to.have.length(1);
  });

  it('fans out to three receivers of one flow: three POSTs with the same body', async () => {
    const hooks = [await receiver(), await receiver(), await receiver()];
    for (const h of hooks) await createIntegration(daemon, 'fanout', h.url);
    const id = await submit(daemon, clip, 'fanout');
    for (const h of hooks) await h.waitFor(() => h.forId(id).length === 1);
    const bodies = hooks.map((h) => h.forId(id)[0].body);
    expect(bodies[1]).to.equal(bodies[0]);
    expect(bodies[2]).to.equal(bodies[0]);
    const views = await waitForDeliveries(daemon, id, (d) => webhooks(d).length === 3 && webhooks(d).every((x) => x.state === 'delivered'));
    expect(webhooks(views).map((x) => x.url).sort()).to.deep.equal(hooks.map((h) => h.url).sort());
    for (const h of hooks) expect(h.forId(id)).to.have.length(1);
  });

  it('a slow receiver holds up neither the other receivers of the flow nor other classifications', async () => {
    const slow = await receiver();
    slow.holding = true;
    const fast = await receiver();
    await createIntegration(daemon, 'slow', slow.url);
    await createIntegration(daemon, 'slow', fast.url);
    const other = await receiver();
    await createIntegration(daemon, 'beside-slow', other.url);

    const id = await submit(daemon, clip, 'slow');
    await slow.waitFor(() => slow.forId(id).length >= 1, 30_000, 'the request to the slow receiver');
    await fast.waitFor(() => fast.forId(id).length === 1);
    // while the slow receiver sits on its request, another clip is classified and delivered
    const next = await submit(daemon, clip, 'beside-slow');
    await daemon.waitForResult(next);
    await other.waitFor(() => other.forId(next).length === 1);

    // no answer within webhooks.timeout_s: still pending (no connectivity), not failed
    const waiting = await waitForDeliveries(daemon, id, (d) => webhooks(d).some((x) => x.url === slow.url && x.attempts >= 1));
    const slowRow = webhooks(waiting).find((x) => x.url === slow.url)!;
    expect(slowRow.state).to.equal('pending');
    expect(slowRow.last_error).to.match(/timeout/);
    expect(webhooks(waiting).find((x) => x.url === fast.url)).to.include({ state: 'delivered', status_code: 200 });

    slow.release();
    const done = await waitForDeliveries(daemon, id, (d) => webhooks(d).every((x) => x.state === 'delivered'));
    expect(webhooks(done).find((x) => x.url === slow.url)).to.include({ status_code: 200 });
  });

  it('keeps a delivery to a closed port pending and sends it once when the port opens', async () => {
    const hook = await WebhookReceiver.closed();
    receivers.push(hook);
    await createIntegration(daemon, 'later', hook.url);
    const id = await submit(daemon, clip, 'later');
    const pending = await waitForDeliveries(daemon, id, (d) => webhooks(d)[0]?.attempts >= 2);
    expect(webhooks(pending)[0].state).to.equal('pending');
    expect(webhooks(pending)[0].last_error).to.match(/ECONNREFUSED/);

    await hook.open();
    await hook.waitFor(() => hook.forId(id).length === 1);
    await waitForDeliveries(daemon, id, (d) => webhooks(d)[0]?.state === 'delivered');
    // a later result in the flow arrives too, and the first one was still sent exactly once
    const marker = await submit(daemon, clip, 'later');
    await waitForDeliveries(daemon, marker, (d) => webhooks(d)[0]?.state === 'delivered');
    expect(hook.forId(id)).to.have.length(1);
    expect(hook.forId(marker)).to.have.length(1);
  });

  it('never sends a classification deleted before its delivery', async () => {
    const hook = await WebhookReceiver.closed();
    receivers.push(hook);
    await createIntegration(daemon, 'deleted', hook.url);
    const id = await submit(daemon, clip, 'deleted');
    await waitForDeliveries(daemon, id, (d) => webhooks(d)[0]?.attempts >= 1);
    const del = await fetch(`${daemon.url}/api/classify/${id}`, { method: 'DELETE', headers: daemon.auth() });
    expect(del.status).to.equal(204);
    expect((await admin(daemon, `/api/admin/deliveries/${id}`)).status).to.equal(404);

    await hook.open();
    const marker = await submit(daemon, clip, 'deleted');
    await hook.waitFor(() => hook.forId(marker).length === 1);
    await waitForDeliveries(daemon, marker, (d) => webhooks(d)[0]?.state === 'delivered');
    expect(hook.forId(id)).to.have.length(0);
  });

  it('sends only to the integrations of the tenant and the flow the request named (form field or query)', async () => {
    const hook = await receiver();
    await createIntegration(daemon, 'isolated', hook.url);
    const otherTenant = await submit(daemon, clip, 'isolated', daemon.otherTenantKey);
    const otherFlow = await submit(daemon, clip, 'not-isolated');
    await daemon.waitForResult(otherTenant, 60_000, daemon.otherTenantKey);
    await daemon.waitForResult(otherFlow);
    // the flow as a query parameter of a multipart upload
    const marker = await daemon.submit(clip, {}, '?flow=isolated');
    await hook.waitFor(() => hook.forId(marker).length === 1);
    expect(hook.requests.map((r) => r.json?.id)).to.deep.equal([marker]);
    expect(webhooks(await deliveriesOf(daemon, otherTenant))).to.have.length(0);
  });

  it('manages integrations over the admin API, which needs the admin key', async () => {
    expect((await admin(daemon, '/api/admin/integrations', { key: daemon.tenantKey })).status).to.equal(401);
    expect((await fetch(`${daemon.url}/api/admin/outbox`)).status).to.equal(401);

    const bad = await admin(daemon, '/api/admin/integrations', { method: 'POST', body: { tenant: 'tenant-a', url: 'ftp://x' } });
    expect(bad.status).to.equal(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).to.equal('invalid_integration');
    const unknown = await admin(daemon, '/api/admin/integrations', { method: 'POST', body: { tenant: 'nobody', url: 'http://127.0.0.1:9/x' } });
    expect(unknown.status).to.equal(400);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).to.equal('unknown_tenant');

    // without a flow, the tenant's default flow
    const created = await admin(daemon, '/api/admin/integrations', { method: 'POST', body: { tenant: 'tenant-b', url: 'http://127.0.0.1:9/a' } });
    expect(created.status).to.equal(201);
    const integration = (await created.json()) as Record<string, string>;
    expect(integration).to.include({ type: 'webhook', tenant: 'tenant-b', flow: 'default', url: 'http://127.0.0.1:9/a', source: 'api' });
    const again = await admin(daemon, '/api/admin/integrations', { method: 'POST', body: { tenant: 'tenant-b', flow: 'default', url: 'http://127.0.0.1:9/a' } });
    expect(again.status).to.equal(409);

    const updated = await admin(daemon, `/api/admin/integrations/${integration.id}`, { method: 'PUT', body: { flow: 'night', url: 'http://127.0.0.1:9/b' } });
    expect(updated.status).to.equal(200);
    expect(await updated.json()).to.include({ id: integration.id, tenant: 'tenant-b', flow: 'night', url: 'http://127.0.0.1:9/b' });
    const got = await admin(daemon, `/api/admin/integrations/${integration.id}`);
    expect(await got.json()).to.include({ flow: 'night', url: 'http://127.0.0.1:9/b' });
    const listed = (await (await admin(daemon, '/api/admin/integrations?tenant=tenant-b')).json()) as { integrations: Array<{ id: string }> };
    expect(listed.integrations.map((i) => i.id)).to.deep.equal([integration.id]);

    expect((await admin(daemon, `/api/admin/integrations/${integration.id}`, { method: 'DELETE' })).status).to.equal(204);
    expect((await admin(daemon, `/api/admin/integrations/${integration.id}`, { method: 'DELETE' })).status).to.equal(404);

    const outbox = (await (await admin(daemon, '/api/admin/outbox')).json()) as Record<string, any>;
    expect(outbox.total).to.equal(outbox.pending + outbox.delivered + outbox.dropped);
    expect(outbox.by_target.webhook.delivered).to.be.greaterThan(0);
  });
});

describe('webhook outbox across kill -9 and its drop policy', function () {
  let dir: string;
  let clip: string;
  before(async () => {
    dir = tempDir();
    clip = await stillClip('cat.png', path.join(dir, 'cat.mp4'), 1, 5, 160);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('delivers each pending result exactly once after a kill -9 and a restart', async () => {
    const hook = await WebhookReceiver.closed();
    const daemon = new TestDaemon({ config: { webhooks: FAST_RETRY, integrations: [{ tenant: 'tenant-a', flow: 'default', url: hook.url }] } });
    try {
      await daemon.start();
      const ids = [await submit(daemon, clip, 'default'), await submit(daemon, clip, 'default'), await submit(daemon, clip, 'default')];
      for (const id of ids) await daemon.waitForResult(id);
      // the receiver is probed with the oldest delivery only (results may finish in any order); all three stay pending
      const deadline = Date.now() + 30_000;
      let views = await Promise.all(ids.map(async (id) => webhooks(await deliveriesOf(daemon, id))[0]));
      while (!views.some((v) => v.attempts >= 1) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        views = await Promise.all(ids.map(async (id) => webhooks(await deliveriesOf(daemon, id))[0]));
      }
      expect(views.some((v) => v.attempts >= 1), 'a delivery was tried').to.equal(true);
      for (const v of views) expect(v.state).to.equal('pending');
      await daemon.kill();
      await daemon.restart();
      await hook.open();
      await hook.waitFor(() => ids.every((id) => hook.forId(id).length >= 1));
      for (const id of ids) await waitForDeliveries(daemon, id, (d) => webhooks(d)[0]?.state === 'delivered');
      // one more result through the same receiver, then count
      const marker = await submit(daemon, clip, 'default');
      await waitForDeliveries(daemon, marker, (d) => webhooks(d)[0]?.state === 'delivered');
      for (const id of ids) expect(hook.forId(id), id).to.have.length(1);
    } finally {
      await daemon.cleanup();
      await hook.close();
    }
  });

  it('drops pending deliveries beyond outbox.max_pending, oldest first, logged and counted', async () => {
    const hook = await WebhookReceiver.closed();
    const daemon = new TestDaemon({
      config: { webhooks: FAST_RETRY, outbox: { max_pending: 1 }, integrations: [{ tenant: 'tenant-a', flow: 'default', url: hook.url }] },
    });
    try {
      await daemon.start();
      const older = await submit(daemon, clip, 'default');
      await waitForDeliveries(daemon, older, (d) => webhooks(d)[0]?.attempts >= 1);
      const newer = await submit(daemon, clip, 'default');
      const dropped = await waitForDeliveries(daemon, older, (d) => webhooks(d)[0]?.state === 'dropped');
      expect(webhooks(dropped)[0].last_error).to.equal('max_pending');
      await daemon.waitForLog((r) => r.msg === 'pending deliveries dropped by the outbox policy');
      const outbox = (await (await admin(daemon, '/api/admin/outbox')).json()) as Record<string, any>;
      expect(outbox.dropped).to.equal(1);
      expect(outbox.dropped_since_start).to.deep.equal({ max_pending: 1 });

      await hook.open();
      await waitForDeliveries(daemon, newer, (d) => webhooks(d)[0]?.state === 'delivered');
      expect(hook.forId(newer)).to.have.length(1);
      expect(hook.forId(older)).to.have.length(0);
    } finally {
      await daemon.cleanup();
      await hook.close();
    }
  });
});
