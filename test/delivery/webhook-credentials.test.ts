// A webhook URL with user info (https://user:pw@host/...): through the real
// daemon with two tenants and a real loopback receiver, it is delivered with
// HTTP Basic authorization, and neither its credentials nor its path or query
// reach the log, a delivery's last_error or the dashboard.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { stillClip, tempDir } from '../support/clips.js';
import { TestDaemon, freePort } from '../support/daemon.js';
import { WebhookReceiver } from '../support/receivers.js';
import { deliveriesOf, submit, waitForDeliveries, webhooks } from './helpers.js';

const SECRETS = ['hook-user', 'hook-p@ss', 'hook-p%40ss', 'path-s3cret', 'tok-s3cret', 'dead-user', 'dead-pw-s3cret', 'dead-path-s3cret', 'dead-tok-s3cret'];

describe('webhook URLs with credentials', function () {
  this.timeout(120_000);
  let dir: string;
  let daemon: TestDaemon;
  let receiver: WebhookReceiver;
  let clip: string;
  let deadUrl: string;
  /** the clip of the first test: delivered to the receiver, pending for the dead URL */
  let id: string;

  before(async () => {
    dir = tempDir();
    clip = await stillClip('grace_hopper.png', path.join(dir, 'grace.mp4'), 1, 10, 160);
    receiver = await WebhookReceiver.start();
    const closed = await freePort(); // nothing listens there
    deadUrl = `http://dead-user:dead-pw-s3cret@127.0.0.1:${closed}/hooks/dead-path-s3cret?token=dead-tok-s3cret`;
    daemon = await new TestDaemon({
      config: {
        webhooks: { backoff: { initial_s: 0.2, max_s: 1 } },
        integrations: [
          { tenant: 'tenant-a', url: `http://hook-user:hook-p%40ss@127.0.0.1:${receiver.port}/hooks/path-s3cret?token=tok-s3cret` },
          { tenant: 'tenant-a', url: deadUrl },
        ],
      },
    }).start();
  });
  after(async () => {
    await daemon?.cleanup();
    await receiver?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const dashboardSession = async (key: string): Promise<string> => {
    const res = await fetch(`${daemon.url}/dashboard/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key }) });
    expect(res.status).to.equal(200);
    return res.headers.get('set-cookie')!.split(';')[0]!;
  };

  it('sends the user info as HTTP Basic authorization to the URL without it', async () => {
    id = await submit(daemon, clip, 'default');
    await receiver.waitFor((r) => r.some((x) => x.json?.id === id), 30_000, 'the POST with credentials');
    const [request] = receiver.forId(id);
    expect(request!.headers.authorization).to.equal(`Basic ${Buffer.from('hook-user:hook-p@ss').toString('base64')}`);
    expect(request!.path).to.equal('/hooks/path-s3cret?token=tok-s3cret');
    await waitForDeliveries(daemon, id, (d) => webhooks(d).some((x) => x.state === 'delivered' && x.status_code === 200));
  });

  it('keeps its credentials, path and query out of the log, last_error and the dashboard', async () => {
    const views = await waitForDeliveries(daemon, id, (d) => webhooks(d).some((x) => x.state === 'pending' && x.attempts >= 2));
    const dead = webhooks(views).find((x) => x.state === 'pending')!;
    expect(dead.last_error).to.be.a('string').and.not.equal('');
    await daemon.waitForLog((r) => r.msg === 'webhook receiver did not answer; the delivery stays pending');

    const logged = daemon.logs.map((r) => JSON.stringify(r)).join('\n');
    const adminView = JSON.stringify(webhooks(await deliveriesOf(daemon, id)).map((x) => x.last_error));
    const tenantCookie = await dashboardSession(daemon.tenantKey);
    const dashboard = await (await fetch(`${daemon.url}/dashboard/api/deliveries`, { headers: { cookie: tenantCookie } })).json() as { integrations: Array<{ url: string; last_error: string | null }> };
    for (const secret of SECRETS) {
      expect(logged, `log: ${secret}`).to.not.include(secret);
      expect(adminView, `last_error: ${secret}`).to.not.include(secret);
      expect(JSON.stringify(dashboard), `dashboard: ${secret}`).to.not.include(secret);
    }
    // still says where: the origin of each receiver
    expect(dashboard.integrations.map((i) => i.url).sort()).to.deep.equal([`http://127.0.0.1:${receiver.port}`, new URL(deadUrl).origin].sort());
    expect(dashboard.integrations.some((i) => i.last_error)).to.equal(true);
    // and the other tenant's dashboard shows none of them
    const other = await (await fetch(`${daemon.url}/dashboard/api/deliveries`, { headers: { cookie: await dashboardSession(daemon.otherTenantKey) } })).json() as { integrations: unknown[] };
    expect(other.integrations).to.deep.equal([]);
  });
});
