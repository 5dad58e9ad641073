// The dashboard's cameras in a real browser (Debian's Chromium) against the
// real daemon: a card per camera of the tenant (configured or only posting)
// with its latest snapshot, last result and problem, a capture button where
// Vigil records, "Try a clip" with a camera's zone, deliveries pushed over the
// live stream, dates in times, Esc closing the detail. The main view and a
// camera card are saved as screenshots (SCREENSHOTS; the README's come from here).
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { MjpegCamera } from '../support/cameras.js';
import { stillClip, tempDir, walkerClip } from '../support/clips.js';
import { freePort, TestDaemon } from '../support/daemon.js';
import { WebhookReceiver } from '../support/receivers.js';
import { SCREENSHOTS, hasChromium, launchBrowser, type Browser } from './browser.js';

// The walker's feet are at the bottom of the frame: a zone on the top half is away from where the person walks.
const FAR = [[0, 0], [1, 0], [1, 0.5], [0, 0.5]];

async function accepted(response: Promise<Response>): Promise<string> {
  const res = await response;
  expect(res.status, await res.clone().text()).to.equal(202);
  return ((await res.json()) as { id: string }).id;
}

describe('dashboard cameras in a real browser', function () {
  this.timeout(240_000);
  let daemon: TestDaemon;
  let browser: Browser;
  let page: Page;
  let dir: string;
  let walker: string;
  let owl: string;
  let porch: MjpegCamera;
  let receiver: WebhookReceiver;

  const card = (id: string) => page.locator(`#cameras li.camera[data-camera="${id}"]`);

  before(async function () {
    if (!hasChromium()) {
      console.log('    skipped: /usr/bin/chromium is absent (apt-get install chromium; .ci/run installs it)');
      this.skip();
    }
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    dir = tempDir('vigil-dashboard-cameras-');
    walker = await walkerClip('grace_hopper.png', path.join(dir, 'walker.mp4'));
    owl = await stillClip('owl.jpg', path.join(dir, 'owl.mp4'), 2, 10, 320);
    porch = await new MjpegCamera('installer', 'porch-secret').start(dir);
    receiver = await WebhookReceiver.start();
    daemon = await new TestDaemon({
      config: {
        cameras: [
          // posts clips; its zone is away from where the walker walks
          { id: 'yard', name: 'Back yard', zones: [{ name: 'far', points: FAR }] },
          // Vigil records from these two; the second is gone
          { id: 'porch', name: 'Porch', url: porch.url(), username: porch.username, password: porch.password, record_s: 1, timeout_s: 5 },
          { id: 'gate', name: 'Gate', url: `rtsp://gate-user:gate-secret@127.0.0.1:${await freePort()}/stream`, record_s: 1, timeout_s: 2 },
          // watched, but its stream never answers: down, pushed to the page as it happens
          { id: 'drive', name: 'Drive', url: `rtsp://127.0.0.1:${await freePort()}/stream`, timeout_s: 1, watch: { enabled: true, reconnect_max_s: 2 } },
          // another tenant's
          { id: 'garage', tenant: 'tenant-b' },
        ],
        integrations: [{ tenant: 'tenant-a', flow: 'default', url: receiver.url }],
      },
    }).start();
    browser = await launchBrowser({ width: 1280, height: 900 });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.goto(daemon.url);
    await page.fill('#key', daemon.tenantKey);
    await page.click('button[type=submit]');
    await page.locator('#cameras').waitFor();
  });
  after(async () => {
    await browser?.close();
    await daemon?.cleanup();
    await porch?.stop();
    await receiver?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("shows a card per camera of the tenant: the configured ones at once, never another tenant's, URLs without secrets", async () => {
    await card('yard').waitFor();
    expect(await card('yard').innerText()).to.include('Back yard').and.include('posts clips').and.include('no clip yet');
    expect(await card('porch').locator('button.capture').count()).to.equal(1);
    expect(await card('yard').locator('button.capture').count(), 'a posting camera has nothing to record').to.equal(0);
    expect(await card('garage').count()).to.equal(0);
    const text = await page.locator('#cameras').innerText();
    expect(text).to.not.include('porch-secret').and.not.include('gate-secret').and.not.include('gate-user');
  });

  it("shows a posting camera's card with its snapshot once a clip with its camera_id was classified", async () => {
    // not configured: it appears with its first clip
    expect(await card('shed').count()).to.equal(0);
    const id = await accepted(daemon.upload(owl, { camera_id: 'shed' }));
    await daemon.waitForResult(id);
    const img = card('shed').locator('.thumb img');
    await img.waitFor({ timeout: 30_000 });
    expect(await img.getAttribute('src')).to.equal(`/dashboard/api/snapshot/${id}`);
    await page.waitForFunction((src) => {
      const el = (globalThis as any).document.querySelector(`img[src="${src}"]`);
      return !!el && el.complete && el.naturalWidth > 0;
    }, `/dashboard/api/snapshot/${id}`);
    const shed = await card('shed').innerText();
    expect(shed).to.include('posts clips');
    // its last result, with a date in its time; it opens, and Esc closes it
    expect(shed).to.match(new RegExp(`${new Date().toLocaleString('en-US', { month: 'short' })} \\d{1,2}, \\d{2}:\\d{2}:\\d{2}`));
    await card('shed').locator('button.last').click();
    await page.locator('.detail').waitFor();
    expect(JSON.parse((await page.locator('#result-json').textContent()) ?? '{}').id).to.equal(id);
    await page.keyboard.press('Escape');
    await page.locator('.detail').waitFor({ state: 'detached' });
    // "1 clip", not "1 clips"
    await page.locator('#status .facts .small', { hasText: /^1 clip\b/ }).waitFor({ timeout: 20_000 });
  });

  it('catches up with a clip that ended while its live stream was away', async () => {
    // the stream cannot connect (a proxy that drops it, a network away) while a clip of a new camera is classified
    await page.route('**/dashboard/api/events', (route) => route.abort());
    await page.reload();
    await page.locator('#cameras li.camera').first().waitFor();
    const id = await accepted(daemon.upload(owl, { camera_id: 'barn' }));
    await daemon.waitForResult(id);
    expect(await card('barn').count(), 'no event could tell the page').to.equal(0);
    // the stream comes back: the page asks what changed, the card and the result appear without a reload
    await page.unroute('**/dashboard/api/events');
    await card('barn').locator('.thumb img').waitFor({ timeout: 30_000 });
    expect(await card('barn').locator('.thumb img').getAttribute('src')).to.equal(`/dashboard/api/snapshot/${id}`);
    await page.locator('#recent button.result', { hasText: 'barn' }).waitFor();
  });

  it("applies a camera's zone in \"Try a clip\": the same clip is an intrusion without the camera and safe with it", async () => {
    const tryClip = async (camera: string) => {
      await page.selectOption('#try-camera', camera);
      await page.setInputFiles('#clip', walker);
      const detail = page.locator('.detail');
      await detail.waitFor({ timeout: 90_000 });
      const result = JSON.parse((await page.locator('#result-json').textContent()) ?? '{}') as Record<string, any>;
      await page.keyboard.press('Escape');
      await detail.waitFor({ state: 'detached' });
      return result;
    };
    const without = await tryClip('');
    expect(without.camera_id).to.equal('');
    expect(without.risk).to.equal('intrusion');
    const withZone = await tryClip('yard');
    expect(withZone.camera_id).to.equal('yard');
    expect(withZone.labels).to.include('person').and.not.include('intrusion');
    expect(withZone.risk).to.equal('safe');
    // the camera's card now shows that clip
    await card('yard').locator('.thumb img').waitFor({ timeout: 30_000 });
    await card('yard').locator('.badge.risk-safe').waitFor();
  });

  it('records from a camera with its capture button, and shows the problem of one that cannot be recorded from', async () => {
    await card('porch').locator('button.capture').click();
    await card('porch').locator('.thumb img').waitFor({ timeout: 60_000 });
    await card('porch').locator('.badge', { hasText: /^ok$/ }).waitFor();
    await card('gate').locator('button.capture').click();
    await card('gate').locator('.badge', { hasText: /^problem$/ }).waitFor({ timeout: 30_000 });
    const gate = await card('gate').innerText();
    expect(gate).to.include('error 3001');
    expect(gate).to.not.include('gate-secret');
  });

  it("shows a watched camera's state, down with its reason when its stream does not answer, pushed over the live stream", async () => {
    // the page was loaded while the camera was starting; its card follows without a reload
    const badge = card('drive').locator('.watch .badge');
    await badge.filter({ hasText: 'down' }).waitFor({ timeout: 30_000 });
    expect(await card('drive').locator('.watch').innerText()).to.match(/since/).and.match(/no video|refused|unreachable|down/i);
    expect(await card('porch').locator('.watch').count(), 'a camera that is not watched shows no watch state').to.equal(0);
  });

  it('shows a delivery as it happens (pushed over the live stream, not polled)', async () => {
    await page.locator('#deliveries tbody tr').first().waitFor();
    const sent = Date.now();
    let id = '';
    // the page asks for its view of the deliveries when the stream says one ended; it polls only every 2 minutes
    const asked = page.waitForResponse(async (res) => {
      if (!res.url().endsWith('/dashboard/api/deliveries') || !receiver.requests.some((r) => id && r.json?.id === id)) return false;
      const body = (await res.json()) as { integrations: Array<{ last_success_at: string | null }> };
      return body.integrations.some((i) => i.last_success_at !== null && Date.parse(i.last_success_at) >= sent - 1000);
    }, { timeout: 60_000 });
    id = await accepted(daemon.upload(owl, { camera_id: 'shed' }));
    const answer = await asked;
    const shown = ((await answer.json()) as { integrations: Array<{ last_success_at: string }> }).integrations[0]!.last_success_at;
    // the row shows that time, with its date
    await page.locator('#deliveries tbody tr', { hasText: new Date(shown).toLocaleString('en-US', { month: 'short', day: 'numeric' }) }).first().waitFor();
  });

  it('looks right: the main view and a camera card (screenshots)', async () => {
    await page.setViewportSize({ width: 1280, height: 820 });
    // freshly loaded, so every card shows the same moment
    await page.reload();
    await page.locator('#status .checks').waitFor();
    await page.locator('#recent button.result').first().waitFor();
    await card('porch').locator('.thumb img').waitFor();
    await page.waitForFunction(() => [...(globalThis as any).document.querySelectorAll('#cameras img')].every((img: any) => img.complete && img.naturalWidth > 0));
    await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard-main.png') });
    await card('porch').screenshot({ path: path.join(SCREENSHOTS, 'dashboard-camera-card.png') });
    for (const name of ['dashboard-main.png', 'dashboard-camera-card.png']) {
      expect(fs.statSync(path.join(SCREENSHOTS, name)).size).to.be.greaterThan(1000);
    }
  });
});
