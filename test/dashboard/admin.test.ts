// The dashboard as the admin sees it, in a real browser against the real daemon
// with a real broker and loopback webhook receivers: the deliveries (a receiver
// that answers, one that is away, MQTT), a camera and a watch folder with its
// last capture, and the model packs pulled, activated and rolled back through
// the page with the same pack store as `vigil models`.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { bundledManifest } from '../../runtime/models/manifest.js';
import { stillClip, tempDir } from '../support/clips.js';
import { TestBroker } from '../support/broker.js';
import { TestDaemon } from '../support/daemon.js';
import { WebhookReceiver } from '../support/receivers.js';
import { SCREENSHOTS, hasChromium, launchBrowser, type Browser } from './browser.js';

describe('dashboard for the admin: deliveries, cameras, model packs', function () {
  let daemon: TestDaemon;
  let broker: TestBroker;
  let up: WebhookReceiver;
  let away: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  let dir: string;
  let folder: string;
  let clip: string;

  before(async function () {
    if (!hasChromium()) {
      console.log('    skipped: /usr/bin/chromium is absent (apt-get install chromium; .ci/run installs it)');
      this.skip();
    }
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    dir = tempDir('vigil-dashboard-admin-');
    folder = path.join(dir, 'drop');
    fs.mkdirSync(folder);
    clip = await stillClip('owl.jpg', path.join(dir, 'owl.mp4'), 2, 10, 320);
    broker = await new TestBroker().start();
    up = await WebhookReceiver.start();
    away = await WebhookReceiver.closed();
    daemon = await new TestDaemon({
      config: {
        integrations: [
          { tenant: 'tenant-a', url: up.url },
          { tenant: 'tenant-a', url: away.url },
        ],
        webhooks: { backoff: { initial_s: 60, max_s: 60 } },
        mqtt: { enabled: true, url: broker.url },
        cameras: [{ id: 'gate', url: 'rtsp://camera-user:camera-secret@127.0.0.1:9/stream', tenant: 'tenant-b' }],
        watch_folders: [{ path: folder, camera_id: 'porch', tenant: 'tenant-a', settle_s: 1 }],
      },
    }).start();
    browser = await launchBrowser({ width: 1280, height: 900 });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
  });
  after(async () => {
    await browser?.close();
    await daemon?.cleanup();
    await up?.close();
    await broker?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shows each delivery with pending, last success and last error, and MQTT connected', async () => {
    const res = await daemon.upload(clip, {}, '?sync=true');
    expect(res.status).to.equal(200);
    // the receiver that answers got it; the one that is away keeps it pending
    while (!up.requests.length) await new Promise((r) => setTimeout(r, 100));

    await page.goto(daemon.url);
    await page.fill('#key', daemon.adminKey);
    await page.click('button[type=submit]');
    await page.locator('#status .checks').waitFor();
    await page.locator('#status', { hasText: 'connected' }).waitFor();
    expect(await page.locator('#status').innerText()).to.include(broker.url.replace('mqtt://', ''));

    const rows = page.locator('#deliveries tbody tr');
    await page.locator('#deliveries tbody tr', { hasText: 'ECONNREFUSED' }).waitFor({ timeout: 30_000 });
    const text = await page.locator('#deliveries').innerText();
    expect(await rows.count()).to.equal(3); // MQTT and the two webhooks
    const upRow = await rows.filter({ hasText: `127.0.0.1:${up.port}` }).innerText();
    expect(upRow).to.match(/\t0\t/, 'nothing pending for the receiver that answered');
    expect(upRow).not.to.match(/\t–\t/, 'it has a last success');
    const awayRow = await rows.filter({ hasText: `127.0.0.1:${away.port}` }).innerText();
    expect(awayRow).to.match(/\t1\t/, 'one pending for the receiver that is away');
    expect(awayRow).to.include('ECONNREFUSED').and.include('next try');
    expect(text).to.include('MQTT');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'admin-deliveries.png'), fullPage: true });
  });

  it('shows the camera and the watch folder with its last capture, and no camera password', async () => {
    fs.copyFileSync(clip, path.join(folder, 'porch-alarm.mp4'));
    // the folder's clip arrives over the live stream in the list
    await page.locator('#recent button.result', { hasText: 'porch' }).waitFor({ timeout: 60_000 });
    await page.reload();
    const cameras = page.locator('#cameras');
    await cameras.locator('tbody tr').first().waitFor();
    const gate = await cameras.locator('li.camera[data-camera="gate"]').innerText();
    expect(gate).to.include('tenant-b').and.match(/rtsp:\/\/(\*\*\*@)?127\.0\.0\.1:9\/stream/);
    expect(await cameras.innerText()).not.to.include('camera-secret').and.not.include('camera-user');
    const porch = await cameras.locator('tr', { hasText: 'porch' }).innerText();
    expect(porch).to.include(folder).and.include('tenant-a').and.not.match(/\t–$/);
    // the folder's camera has a card of its own, with the clip's snapshot
    await cameras.locator('li.camera[data-camera="porch"] .thumb img').waitFor();
  });

  it('pulls, activates and rolls back model packs with the CLI checks', async () => {
    const pack = `default@${bundledManifest('default').version}`; // as this runtime ships it
    const models = page.locator('#models');
    await models.locator('.packs li', { hasText: pack }).waitFor();
    await models.locator('select').selectOption('tiny');
    await models.getByRole('button', { name: 'Pull and activate' }).click();
    await models.getByRole('status').filter({ hasText: 'tiny@1.0.0 is active' }).waitFor({ timeout: 60_000 });
    const state = () => JSON.parse(fs.readFileSync(path.join(daemon.dataDir, 'models', 'state.json'), 'utf8')) as { active: string };
    expect(state().active).to.equal('tiny@1.0.0');
    await models.locator('.packs li', { hasText: pack }).getByText('rollback target').waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'admin-models.png'), fullPage: true });

    await models.getByRole('button', { name: 'Roll back' }).click();
    await models.getByRole('status').filter({ hasText: `${pack} is active` }).waitFor();
    expect(state().active).to.equal(pack);

    // the CLI's check: activating a pack that is not installed is refused with its message
    const refused = await page.evaluate(async () => {
      const session = (await (await fetch('/dashboard/api/session')).json()) as { csrf: string };
      const r = await fetch('/dashboard/api/models/activate', {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf }, body: JSON.stringify({ id: 'nothing@9' }),
      });
      return [r.status, ((await r.json()) as { error: { message: string } }).error.message] as const;
    });
    expect(refused[0]).to.equal(409);
    expect(refused[1]).to.include('model pack nothing@9 is not installed');
  });

  it('keeps model packs and other tenants away from a tenant', async () => {
    const tenant = await launchBrowser({ width: 1024, height: 800 });
    try {
      const p = tenant.context.pages()[0] ?? (await tenant.context.newPage());
      await p.goto(daemon.url);
      await p.fill('#key', daemon.otherTenantKey);
      await p.click('button[type=submit]');
      await p.locator('#status .checks').waitFor();
      await p.locator('#cameras li.camera').first().waitFor();
      expect(await p.locator('#models').count()).to.equal(0);
      expect(await p.locator('#cameras').innerText()).to.include('gate').and.not.include('porch');
      // the panels fill in as their answers come; wait for this one's before reading it
      await p.locator('#deliveries', { hasText: 'No webhook integration' }).waitFor();
      expect(await p.locator('#deliveries tbody tr').count()).to.equal(0, 'no other tenant\'s deliveries');
      const answers = await p.evaluate(async () => [
        (await fetch('/dashboard/api/models')).status,
        ((await (await fetch('/dashboard/api/classifications')).json()) as { classifications: unknown[] }).classifications.length,
      ]);
      expect(answers).to.deep.equal([403, 0]);
    } finally {
      await tenant.close();
    }
  });
});
