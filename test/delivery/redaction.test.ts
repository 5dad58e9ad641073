// Secrets in URLs never reach the log: MQTT credentials, model source
// credentials and webhook paths (which the specification recommends to keep
// secret), with the broker, the mirror and the receiver all unreachable so
// that every error path logs.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { stillClip, tempDir } from '../support/clips.js';
import { TestDaemon, freePort } from '../support/daemon.js';

describe('URLs in the log', function () {
  let dir: string;
  let daemon: TestDaemon;

  before(async () => {
    dir = tempDir();
  });
  after(async () => {
    await daemon?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('never carry credentials or a webhook\'s secret path', async () => {
    const closed = await freePort(); // nothing listens there
    daemon = await new TestDaemon({
      config: {
        mqtt: { enabled: true, url: `mqtt://vigil-user:mqtt-s3cret@127.0.0.1:${closed}` },
        models: { source: `http://mirror-user:mirror-s3cret@127.0.0.1:${closed}/packs` },
        integrations: [{ tenant: 'tenant-a', url: `http://127.0.0.1:${closed}/hooks/hook-s3cret-token` }],
      },
    }).start();
    const clip = await stillClip('grace_hopper.png', path.join(dir, 'grace.mp4'), 1, 10, 160);
    const id = await daemon.submit(clip);
    await daemon.waitForResult(id);

    await daemon.waitForLog((r) => r.msg === 'MQTT client error' || r.msg === 'lost the MQTT broker; reconnecting with backoff');
    await daemon.waitForLog((r) => r.msg === 'webhook receiver did not answer; the delivery stays pending');
    await daemon.waitForLog((r) => /no model pack could be pulled/.test(r.msg));
    const logged = daemon.logs.map((r) => JSON.stringify(r)).join('\n');
    for (const secret of ['mqtt-s3cret', 'mirror-s3cret', 'hook-s3cret-token']) expect(logged, secret).to.not.include(secret);
    // the records still say where: host and port, integration id
    expect(logged).to.include(`127.0.0.1:${closed}`);
    const webhook = daemon.logs.find((r) => r.msg === 'webhook receiver did not answer; the delivery stays pending')!;
    expect(webhook.integration).to.be.a('string');
  });
});
