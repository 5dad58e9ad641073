// The dashboard's HTTP side without a browser, against the real daemon: the page
// and its files, sign-in and the session cookie, the cross-site and CSRF checks,
// a tenant's scope, and the live event stream. Runs whether or not Chromium is
// installed; the browser tests (dashboard.test.ts, admin.test.ts) cover the page.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { stillClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';

interface Signed {
  cookie: string;
  csrf: string;
}

describe('dashboard over HTTP', function () {
  let daemon: TestDaemon;
  let dir: string;
  let clip: string;

  const signIn = async (key: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${daemon.url}/dashboard/api/session`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ key }),
    });
  const session = async (key: string): Promise<Signed> => {
    const res = await signIn(key);
    expect(res.status).to.equal(200);
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
    const s = (await (await fetch(`${daemon.url}/dashboard/api/session`, { headers: { cookie } })).json()) as { csrf: string };
    return { cookie, csrf: s.csrf };
  };
  const errorCode = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;

  before(async () => {
    dir = tempDir('vigil-dashboard-http-');
    clip = await stillClip('owl.jpg', path.join(dir, 'owl.mp4'), 2, 10, 320);
    daemon = await new TestDaemon().start();
  });
  after(async () => {
    await daemon?.cleanup();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves the page and its files from the daemon itself, with a policy that keeps it on its own origin', async () => {
    const res = await fetch(`${daemon.url}/`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).to.include("default-src 'self'").and.include("connect-src 'self'").and.include("frame-ancestors 'none'");
    expect(await res.text()).not.to.match(/https?:\/\//, 'the page loads nothing from elsewhere');
    for (const asset of ['app.js', 'style.css', 'icon.svg', 'preact.mjs', 'hooks.mjs', 'htm.mjs']) {
      const a = await fetch(`${daemon.url}/assets/${asset}`);
      expect(a.status, asset).to.equal(200);
      expect(await a.text(), asset).not.to.match(/\bfrom\s*["']https?:/);
    }
    expect((await fetch(`${daemon.url}/assets/..%2Fpackage.json`)).status).to.equal(404);
    expect((await fetch(`${daemon.url}/dashboard/api/status`)).status).to.equal(401);
  });

  it('opens a session only for a known key, in an HttpOnly SameSite=Strict cookie, and only from its own origin', async () => {
    const wrong = await signIn('not-a-key');
    expect(wrong.status).to.equal(401);
    expect(wrong.headers.get('set-cookie')).to.equal(null);
    const foreign = await signIn(daemon.tenantKey, { origin: 'http://elsewhere.example' });
    expect(foreign.status).to.equal(403);
    expect(await errorCode(foreign)).to.equal('cross_site');
    expect(foreign.headers.get('set-cookie')).to.equal(null);

    const ok = await signIn(daemon.tenantKey, { origin: daemon.url, 'sec-fetch-site': 'same-origin' });
    expect(ok.status).to.equal(200);
    const cookie = ok.headers.get('set-cookie')!;
    expect(cookie).to.match(/^vigil_session=[\w-]{40,};/).and.match(/httponly/i).and.match(/samesite=strict/i).and.match(/path=\//);
    expect(cookie).not.to.include(daemon.tenantKey);
  });

  it('refuses a changing request without the CSRF token or from another site, and signs out', async () => {
    const s = await session(daemon.tenantKey);
    const post = (headers: Record<string, string>) => fetch(`${daemon.url}/dashboard/api/classify`, {
      method: 'POST', headers: { cookie: s.cookie, 'content-type': 'video/mp4', ...headers }, body: fs.readFileSync(clip),
    });
    const none = await post({});
    expect(none.status).to.equal(403);
    expect(await errorCode(none)).to.equal('csrf');
    const wrong = await post({ 'x-csrf-token': 'guessed' });
    expect(await errorCode(wrong)).to.equal('csrf');
    const sameSite = await post({ 'x-csrf-token': s.csrf, 'sec-fetch-site': 'same-site' });
    expect(sameSite.status).to.equal(403);
    expect(await errorCode(sameSite)).to.equal('cross_site');
    const otherOrigin = await post({ 'x-csrf-token': s.csrf, origin: 'http://127.0.0.1:1' });
    expect(await errorCode(otherOrigin)).to.equal('cross_site');
    const list = await fetch(`${daemon.url}/dashboard/api/classifications`, { headers: { cookie: s.cookie } });
    expect(((await list.json()) as { classifications: unknown[] }).classifications).to.deep.equal([]);

    const accepted = await post({ 'x-csrf-token': s.csrf, origin: daemon.url });
    expect(accepted.status).to.equal(202);

    const out = await fetch(`${daemon.url}/dashboard/api/session`, { method: 'DELETE', headers: { cookie: s.cookie, 'x-csrf-token': s.csrf } });
    expect(out.status).to.equal(204);
    expect(out.headers.get('set-cookie')).to.match(/^vigil_session=;/);
    expect((await fetch(`${daemon.url}/dashboard/api/status`, { headers: { cookie: s.cookie } })).status).to.equal(401);
  });

  it('scopes a tenant session to its tenant and makes the admin name one', async () => {
    const res = await daemon.upload(clip, {}, '', daemon.otherTenantKey);
    const { id } = (await res.json()) as { id: string };
    await daemon.waitForResult(id, 60_000, daemon.otherTenantKey);
    const a = await session(daemon.tenantKey);
    expect((await fetch(`${daemon.url}/dashboard/api/result/${id}`, { headers: { cookie: a.cookie } })).status).to.equal(404);
    expect((await fetch(`${daemon.url}/dashboard/api/result/${id}?tenant=tenant-b`, { headers: { cookie: a.cookie } })).status).to.equal(404);
    expect((await fetch(`${daemon.url}/dashboard/api/models`, { headers: { cookie: a.cookie } })).status).to.equal(403);

    const admin = await session(daemon.adminKey);
    const unnamed = await fetch(`${daemon.url}/dashboard/api/result/${id}`, { headers: { cookie: admin.cookie } });
    expect(unnamed.status).to.equal(400);
    expect(await errorCode(unnamed)).to.equal('tenant_required');
    const named = await fetch(`${daemon.url}/dashboard/api/result/${id}?tenant=tenant-b`, { headers: { cookie: admin.cookie } });
    expect(named.status).to.equal(200);
    const api = await (await fetch(`${daemon.url}/api/result/${id}`, { headers: daemon.auth(daemon.otherTenantKey) })).json();
    expect(await named.json()).to.deep.equal(api);
  });

  it('streams live events with the session cookie and ends the streams cleanly when the daemon stops', async () => {
    const s = await session(daemon.tenantKey);
    const events = await fetch(`${daemon.url}/dashboard/api/events`, { headers: { cookie: s.cookie } });
    expect(events.headers.get('content-type')).to.match(/^text\/event-stream/);
    const reader = events.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    // another tenant's clip first: it must not show up in this stream
    const other = (await (await daemon.upload(clip, {}, '', daemon.otherTenantKey)).json()) as { id: string };
    await daemon.waitForResult(other.id, 60_000, daemon.otherTenantKey);
    const { id } = (await (await daemon.upload(clip)).json()) as { id: string };
    const final = () => text.split('\n\n').find((e) => e.startsWith('event: result') && e.includes(`"id":"${id}"`) && e.includes('"classify":"done"'));
    while (!final()) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended early: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
    const sent = JSON.parse(final()!.split('\ndata: ')[1]!) as Record<string, unknown>;
    const api = await (await fetch(`${daemon.url}/api/result/${id}`, { headers: daemon.auth() })).json();
    expect(sent).to.deep.equal(api, 'the stream carries the API result JSON');
    expect(text).not.to.include(other.id);

    const exited = daemon.stop();
    // The stream ends as a finished response (done), not a connection cut by the server's stop.
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
    expect(await exited).to.equal(0);
  });
});
