// Dashboard sessions against the real daemon with two tenants and the admin:
// one key signing in in a loop ends only its own oldest sessions, sessions
// have an absolute lifetime, failed sign-ins are throttled per client address
// (and not logged once each), live-event streams are capped per session and
// per tenant, the cookie is Secure only over TLS as a trusted proxy reports it,
// and an oversized request header gets 431.
import http from 'node:http';
import { expect } from 'chai';
import { TestDaemon } from '../support/daemon.js';

const signIn = (daemon: TestDaemon, key: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${daemon.url}/dashboard/api/session`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ key }),
  });

async function cookieOf(daemon: TestDaemon, key: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await signIn(daemon, key, headers);
  expect(res.status, await res.clone().text()).to.equal(200);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

const signedIn = async (daemon: TestDaemon, cookie: string) => (await fetch(`${daemon.url}/dashboard/api/session`, { headers: { cookie } })).status === 200;

describe('dashboard sessions', function () {
  this.timeout(120_000);

  describe('behind a trusted TLS proxy', () => {
    let daemon: TestDaemon;
    const streams: AbortController[] = [];

    before(async () => {
      daemon = await new TestDaemon({
        config: { server: { trust_proxy: true }, dashboard: { streams_per_session: 2, streams_per_tenant: 3 } },
      }).start();
    });
    after(async () => {
      for (const s of streams) s.abort();
      await daemon?.cleanup();
    });

    it("signing in 1000 times with one tenant's key keeps the admin's and the other tenant's sessions", async () => {
      const adminCookie = await cookieOf(daemon, daemon.adminKey);
      const otherCookie = await cookieOf(daemon, daemon.otherTenantKey);
      const firstOwn = await cookieOf(daemon, daemon.tenantKey);
      const own: string[] = [];
      for (let i = 0; i < 1000; i++) own.push(await cookieOf(daemon, daemon.tenantKey));
      expect(await signedIn(daemon, adminCookie), "the admin's session").to.equal(true);
      expect(await signedIn(daemon, otherCookie), "tenant-b's session").to.equal(true);
      // the loop ended its own oldest sessions only, and kept its newest (dashboard.sessions_per_key: 20)
      expect(await signedIn(daemon, firstOwn), 'its own oldest session').to.equal(false);
      for (const cookie of own.slice(-20)) expect(await signedIn(daemon, cookie)).to.equal(true);
      expect(await signedIn(daemon, own[own.length - 21]!)).to.equal(false);
    });

    it('throttles failed sign-ins per client address with 429 and Retry-After, without a log line each', async () => {
      const from = (address: string) => ({ 'x-forwarded-for': address });
      const logsBefore = daemon.logs.length;
      const statuses: number[] = [];
      for (let i = 0; i < 100; i++) statuses.push((await signIn(daemon, `wrong-key-${i}-of-a-guessing-loop`, from('192.0.2.7'))).status);
      expect(statuses.slice(0, 10)).to.deep.equal(Array(10).fill(401));
      expect(new Set(statuses.slice(10))).to.deep.equal(new Set([429]));
      // from that address even the right key waits, and is told how long
      const throttled = await signIn(daemon, daemon.tenantKey, from('192.0.2.7'));
      expect(throttled.status).to.equal(429);
      expect(((await throttled.json()) as { error: { code: string } }).error.code).to.equal('too_many_sign_ins');
      const wait = Number(throttled.headers.get('retry-after'));
      expect(wait).to.be.within(1, 60);
      // another address is not held up
      expect((await signIn(daemon, daemon.tenantKey, from('192.0.2.8'))).status).to.equal(200);
      // a flood makes a few lines, not one per attempt
      const lines = daemon.logs.slice(logsBefore).filter((r) => r.level === 'warn' || r.level === 'error');
      expect(lines.length, JSON.stringify(lines.map((r) => r.msg))).to.be.within(1, 3);
    });

    it('caps the live-event streams of a session and of a tenant with 429', async () => {
      const open = async (cookie: string): Promise<number> => {
        const abort = new AbortController();
        streams.push(abort);
        const res = await fetch(`${daemon.url}/dashboard/api/events`, { headers: { cookie }, signal: abort.signal });
        if (res.status !== 200) {
          expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('too_many_streams');
          abort.abort();
        }
        return res.status;
      };
      const first = await cookieOf(daemon, daemon.tenantKey, { 'x-forwarded-for': '192.0.2.20' });
      const second = await cookieOf(daemon, daemon.tenantKey, { 'x-forwarded-for': '192.0.2.20' });
      expect([await open(first), await open(first), await open(first)]).to.deep.equal([200, 200, 429]);
      expect([await open(second), await open(second)]).to.deep.equal([200, 429]); // the tenant's third, then none
      // the other tenant and the admin have streams of their own
      expect(await open(await cookieOf(daemon, daemon.otherTenantKey))).to.equal(200);
      expect(await open(await cookieOf(daemon, daemon.adminKey))).to.equal(200);
    });

    it('makes the cookie Secure when the proxy says the request came over https', async () => {
      const tls = await signIn(daemon, daemon.otherTenantKey, { 'x-forwarded-proto': 'https' });
      expect(tls.status).to.equal(200);
      expect(tls.headers.get('set-cookie')).to.match(/;\s*secure/i);
      const plain = await signIn(daemon, daemon.otherTenantKey);
      expect(plain.headers.get('set-cookie')).not.to.match(/;\s*secure/i);
    });

    it('answers an oversized request header with 431', async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.get(`${daemon.url}/dashboard/api/session`, { headers: { 'x-padding': 'a'.repeat(64 * 1024) } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
      });
      expect(status).to.equal(431);
    });
  });

  describe('without a proxy', () => {
    let daemon: TestDaemon;

    before(async () => {
      // a lifetime of 3.6 s, to see it end
      daemon = await new TestDaemon({ config: { dashboard: { session_max_age_h: 0.001 } } }).start();
    });
    after(async () => {
      await daemon?.cleanup();
    });

    it('ends a session after its absolute lifetime however often it is used', async () => {
      // the session began between these two moments, whatever the sign-in's answer took
      const asked = Date.now();
      const cookie = await cookieOf(daemon, daemon.tenantKey);
      const answered = Date.now();
      // used again and again for well under its 3.6 s, so a request held up on a busy machine still lands inside it...
      while (Date.now() - asked < 2400) {
        expect(await signedIn(daemon, cookie)).to.equal(true);
        await new Promise((r) => setTimeout(r, 250));
      }
      // ...and ended once it is past it
      await new Promise((r) => setTimeout(r, Math.max(0, answered + 4000 - Date.now())));
      expect(await signedIn(daemon, cookie)).to.equal(false);
    });

    it('ignores X-Forwarded-Proto from a client that is not a trusted proxy', async () => {
      const res = await signIn(daemon, daemon.tenantKey, { 'x-forwarded-proto': 'https' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('set-cookie')).not.to.match(/;\s*secure/i);
    });
  });
});
