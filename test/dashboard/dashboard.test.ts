// The dashboard in a real browser (Debian's Chromium) against the real daemon:
// sign-in (and a wrong key refused), the status, a clip sent through the page
// with its result and its highlight playing and seeking, deletion after a
// confirmation, a tenant that sees only its own clips, cross-site requests
// refused, sign-out. Screenshots at desktop and phone widths go to SCREENSHOTS.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { panClip, stillClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';
import { SCREENSHOTS, hasChromium, launchBrowser, type Browser } from './browser.js';

async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(url);
  await page.fill('#key', key);
  await page.click('button[type=submit]');
}

/** The parts of an HTMLVideoElement the tests use (the test build has no DOM types). */
interface VideoElement {
  readyState: number;
  duration: number;
  currentTime: number;
  error: unknown;
  play(): Promise<void>;
  pause(): void;
  addEventListener(type: string, listener: () => void, options?: { once: boolean }): void;
}

/** fullPage for the page; the viewport alone for an open dialog (it is fixed to the viewport). */
const shot = async (page: Page, name: string, fullPage = true) => {
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  return file;
};

describe('dashboard in a real browser', function () {
  let daemon: TestDaemon;
  let browser: Browser;
  let page: Page;
  let dir: string;
  let clip: string;
  let otherClip: string;

  before(async function () {
    if (!hasChromium()) {
      console.log('    skipped: /usr/bin/chromium is absent (apt-get install chromium; .ci/run installs it)');
      this.skip();
    }
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    dir = tempDir('vigil-dashboard-');
    clip = await panClip('grace_hopper.png', path.join(dir, 'front-door.mp4'), 4, 10, 640);
    otherClip = await stillClip('owl.jpg', path.join(dir, 'owl.mp4'), 2, 10, 320);
    daemon = await new TestDaemon().start();
    browser = await launchBrowser({ width: 1280, height: 900 });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
  });
  after(async () => {
    await browser?.close();
    await daemon?.cleanup();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    if (hasChromium()) console.log(`    screenshots: ${SCREENSHOTS}`);
  });

  it('refuses a wrong key, and keeps no key in the URL or a readable cookie', async () => {
    await signIn(page, daemon.url, 'not-a-key-of-this-gateway');
    await page.getByRole('alert').filter({ hasText: 'neither an admin key nor a tenant key' }).waitFor();
    expect(await page.locator('#status').count()).to.equal(0);
    expect(await browser.context.cookies()).to.deep.equal([]);
    expect(page.url()).not.to.include('not-a-key');
  });

  it('signs in with a tenant key and shows the status from the same checks as /readyz', async () => {
    await signIn(page, daemon.url, daemon.tenantKey);
    await page.locator('#status .checks').waitFor();
    const cookies = await browser.context.cookies();
    expect(cookies).to.have.length(1);
    expect(cookies[0]).to.include({ name: 'vigil_session', httpOnly: true, sameSite: 'Strict' });
    expect(cookies[0]!.value).not.to.include(daemon.tenantKey);
    expect(page.url()).not.to.include(daemon.tenantKey);
    expect(await page.evaluate(() => (globalThis as any).document.cookie)).to.equal('');

    // The model pack is pulled in the background at start: the page shows it once /readyz does.
    const ready = await waitReady(daemon);
    await page.locator('#status .badge', { hasText: /^ready$/ }).waitFor({ timeout: 30_000 });
    const text = await page.locator('#status').innerText();
    for (const [name, check] of Object.entries(ready.checks as Record<string, { detail: string }>)) {
      expect(text).to.include(name);
      if (name !== 'disk') expect(text).to.include(check.detail); // free bytes move between the two reads
    }
    expect(text).to.match(/Backend\s+cpu/);
    expect(text).to.include('Queue').and.include('Database').and.include('MQTT').and.include('Vigil 0.');
    await shot(page, 'desktop-status');
  });

  let id = '';
  it('sends a clip through the page, shows its result live and plays its highlight with seeking', async () => {
    // A slow uplink (Chromium's own throttling) so the upload's progress can be seen part way.
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 64 * 1024 });
    await page.setInputFiles('#clip', clip);
    await page.waitForFunction(() => {
      const bar = (globalThis as any).document.querySelector('#upload-progress');
      return !!bar && bar.value > 0 && bar.value < 1;
    });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await shot(page, 'desktop-upload', false);
    const detail = page.locator('.detail');
    await detail.waitFor({ timeout: 90_000 });
    const json = JSON.parse(await page.locator('#result-json').textContent() ?? '{}') as Record<string, any>;
    id = json.id;
    const api = await (await fetch(`${daemon.url}/api/result/${id}`, { headers: daemon.auth() })).json() as Record<string, any>;
    expect(json).to.deep.equal(api, 'the page shows the API result JSON');
    expect(api.tenant).to.equal('tenant-a');
    expect(api.error_code).to.equal(0);
    expect(await detail.innerText()).to.include(api.risk);
    // the list got it from the live event stream
    await page.locator(`#recent button.result[data-id="${id}"]`).waitFor();

    // The highlight plays and seeks (byte ranges): wait on the element's state, not the clock.
    const video = page.locator('video#highlight');
    await page.waitForFunction(() => {
      const v = (globalThis as any).document.querySelector('video#highlight') as VideoElement | null;
      return !!v && v.readyState >= 2 && v.duration > 0;
    }, null, { timeout: 30_000 });
    const duration = await video.evaluate((v: VideoElement) => v.duration);
    expect(duration).to.be.greaterThan(1).and.at.most(10.5);
    const target = Math.min(duration - 0.5, 1.5);
    await video.evaluate((v: VideoElement, t: number) => new Promise<void>((resolve) => {
      v.addEventListener('seeked', () => resolve(), { once: true });
      v.currentTime = t;
    }), target);
    expect(await video.evaluate((v: VideoElement) => v.currentTime)).to.be.closeTo(target, 0.2);
    await video.evaluate((v: VideoElement) => v.play());
    await page.waitForFunction((t) => {
      const v = (globalThis as any).document.querySelector('video#highlight') as VideoElement;
      return v.currentTime > t + 0.2 && !v.error;
    }, target, { timeout: 30_000 });
    await video.evaluate((v: VideoElement) => v.pause());
    await shot(page, 'desktop-detail', false);
  });

  it('deletes it after a confirmation', async () => {
    await page.click('#delete');
    expect(await page.locator('.detail').count(), 'one click only asks').to.equal(1);
    await page.click('#confirm-delete');
    await page.locator('.detail').waitFor({ state: 'detached' });
    await page.locator(`#recent button.result[data-id="${id}"]`).waitFor({ state: 'detached' });
    expect((await fetch(`${daemon.url}/api/result/${id}`, { headers: daemon.auth() })).status).to.equal(404);
  });

  it('shows a tenant only its own clips, live and on request', async () => {
    const mine = await accepted(daemon.upload(otherClip, { camera_id: 'yard' }));
    const theirs = await accepted(daemon.upload(otherClip, { camera_id: 'garage' }, '', daemon.otherTenantKey));
    await daemon.waitForResult(mine);
    await daemon.waitForResult(theirs, 60_000, daemon.otherTenantKey);
    await page.reload();
    await page.locator(`#recent button.result[data-id="${mine}"]`).waitFor();
    expect(await page.locator(`#recent button.result[data-id="${theirs}"]`).count()).to.equal(0);
    const asked = await page.evaluate(async (other) => {
      const r = await fetch(`/dashboard/api/result/${other}`);
      const v = await fetch(`/dashboard/api/video/annotate/${other}`);
      return [r.status, v.status];
    }, theirs);
    expect(asked).to.deep.equal([404, 404]);
    await shot(page, 'desktop-list');
  });

  it('refuses a cross-site request that carries the session cookie', async () => {
    // A page on another port of the same host is same-site: SameSite=Strict lets
    // the cookie through, so the origin check and the CSRF token must refuse it.
    const before = await countClassifications(page);
    const evil = http.createServer((req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><form id="f" method="POST" action="${daemon.url}/dashboard/api/models/rollback"></form>
        <script>
          const form = new FormData();
          form.append('video', new Blob([new Uint8Array(1000)], { type: 'video/mp4' }), 'x.mp4');
          fetch('${daemon.url}/dashboard/api/classify', { method: 'POST', mode: 'no-cors', credentials: 'include', body: form })
            .finally(() => document.getElementById('f').submit());
        </script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const statuses: Array<[string, number]> = [];
    page.on('response', (r) => {
      if (r.url().startsWith(`${daemon.url}/dashboard/api/`)) statuses.push([new URL(r.url()).pathname, r.status()]);
    });
    try {
      await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      await page.waitForURL(`${daemon.url}/dashboard/api/models/rollback`);
      const body = await page.locator('body').innerText();
      expect(JSON.parse(body).error.code).to.equal('cross_site');
    } finally {
      evil.close();
    }
    expect(statuses).to.deep.include(['/dashboard/api/classify', 403]);
    expect(statuses).to.deep.include(['/dashboard/api/models/rollback', 403]);

    // The same request from this origin but without the page's CSRF token is refused too.
    await page.goto(daemon.url);
    await page.locator('#status').waitFor();
    const cookie = (await browser.context.cookies()).find((c) => c.name === 'vigil_session')!;
    const res = await fetch(`${daemon.url}/dashboard/api/classify`, {
      method: 'POST', headers: { cookie: `vigil_session=${cookie.value}`, 'content-type': 'video/mp4' }, body: fs.readFileSync(otherClip),
    });
    expect(res.status).to.equal(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('csrf');
    expect(await countClassifications(page)).to.equal(before);
  });

  it('looks right on a phone (in the dark scheme)', async () => {
    const phone = await launchBrowser({ width: 390, height: 844 }, true, 'dark');
    try {
      const p = phone.context.pages()[0] ?? (await phone.context.newPage());
      await signIn(p, daemon.url, daemon.adminKey);
      await p.locator('#status .checks').waitFor();
      await p.locator('#models .packs li').first().waitFor();
      await p.locator('#recent button.result').first().waitFor();
      const overflow = await p.evaluate(() => {
        const root = (globalThis as any).document.documentElement;
        return root.scrollWidth - root.clientWidth;
      });
      expect(overflow, 'no sideways scrolling').to.be.at.most(0);
      await shot(p, 'phone-dashboard');
      await p.locator('#recent button.result').first().click();
      await p.locator('.detail video').waitFor();
      await shot(p, 'phone-detail', false);
    } finally {
      await phone.close();
    }
  });

  it('signs out: the page asks for a key again and the old cookie opens nothing', async () => {
    const cookie = (await browser.context.cookies()).find((c) => c.name === 'vigil_session')!;
    await page.click('#sign-out');
    await page.locator('#key').waitFor();
    expect(await browser.context.cookies()).to.deep.equal([]);
    const res = await fetch(`${daemon.url}/dashboard/api/status`, { headers: { cookie: `vigil_session=${cookie.value}` } });
    expect(res.status).to.equal(401);
    await shot(page, 'desktop-signin');
  });
});

async function waitReady(daemon: TestDaemon): Promise<Record<string, any>> {
  for (;;) {
    const res = await fetch(`${daemon.url}/readyz`);
    if (res.status === 200) return (await res.json()) as Record<string, any>;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function accepted(response: Promise<Response>): Promise<string> {
  const res = await response;
  expect(res.status).to.equal(202);
  return ((await res.json()) as { id: string }).id;
}

function countClassifications(page: Page): Promise<number> {
  return page.evaluate(async () => ((await (await fetch('/dashboard/api/classifications?limit=200')).json()) as { classifications: unknown[] }).classifications.length);
}
