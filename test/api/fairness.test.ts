// Fairness between tenants in the job queue, against the real daemon and
// models: a clip of one tenant does not wait behind another tenant's burst.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { panClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';

describe('tenants share the job queue fairly', function () {
  let dir: string;
  let clip: string;
  let daemon: TestDaemon;

  before(async () => {
    dir = tempDir();
    clip = await panClip('squat.png', path.join(dir, 'squat.mp4'), 4, 10, 640);
    daemon = await new TestDaemon({ config: { jobs: { concurrency: 1 } } }).start();
    await daemon.waitForLog((r) => r.msg === 'model pack active', 60_000);
  });
  after(async () => {
    await daemon?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('gives the next free slot to a tenant with nothing running, ahead of another tenant\'s burst', async () => {
    const burst: string[] = [];
    for (let i = 0; i < 6; i++) {
      burst.push(await daemon.submit(clip, { parent_id: `burst-${i}` }, '', daemon.otherTenantKey));
    }
    const id = await daemon.submit(clip, { parent_id: 'alone' });
    const startedBefore = daemon.logs.filter((r) => r.msg === 'job started').length;
    expect(startedBefore, 'the burst was still queued when the other tenant\'s clip came').to.be.below(burst.length);

    await daemon.waitForResult(id, 120_000);
    const order = daemon.logs.filter((r) => r.msg === 'job started').map((r) => r.id);
    // started as soon as a slot was free: at most one burst clip (started meanwhile) before it
    expect(order.indexOf(id), `start order ${JSON.stringify(order)}`).to.be.at.most(startedBefore + 1);
    for (const b of burst) await daemon.waitForResult(b, 120_000, daemon.otherTenantKey);
  });
});
