// Durability and concurrency of the job queue, against the real daemon:
// kill -9 with work queued and running, SIGTERM, bursts, delete while running.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { panClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';

async function uploadMany(daemon: TestDaemon, file: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push(await daemon.submit(file, { parent_id: `burst-${i}` }));
  }
  return ids;
}

function finalCount(daemon: TestDaemon, id: string): number {
  return daemon.logs.filter((r) => r.msg === 'classification final' && r.id === id).length;
}

describe('job queue durability', function () {
  let dir: string;
  let clip: string;

  before(async () => {
    dir = tempDir();
    clip = await panClip('squat.png', path.join(dir, 'squat.mp4'), 3, 10, 320);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('loses no accepted job across kill -9, and completes each exactly once', async () => {
    const daemon = await new TestDaemon({ config: { jobs: { concurrency: 1 } } }).start();
    try {
      const ids = await uploadMany(daemon, clip, 6);
      await daemon.kill();
      await daemon.start();
      for (const id of ids) {
        const result = await daemon.waitForResult(id, 120_000);
        expect(result.id).to.equal(id);
      }
      for (const id of ids) expect(finalCount(daemon, id), `final records of ${id}`).to.equal(1);
    } finally {
      await daemon.cleanup();
    }
  });

  it('runs a burst with bounded concurrency', async () => {
    const daemon = await new TestDaemon({ config: { jobs: { concurrency: 2 } } }).start();
    try {
      const ids = await uploadMany(daemon, clip, 12);
      for (const id of ids) await daemon.waitForResult(id, 180_000);
      const started = daemon.logs.filter((r) => r.msg === 'job started');
      expect(started.length).to.equal(ids.length);
      expect(Math.max(...started.map((r) => r.running as number))).to.be.at.most(2);
    } finally {
      await daemon.cleanup();
    }
  });

  it('exits cleanly on SIGTERM and finishes the queue after the next start', async () => {
    const daemon = await new TestDaemon({ config: { jobs: { concurrency: 1, shutdown_grace_s: 0 } } }).start();
    try {
      const ids = await uploadMany(daemon, clip, 4);
      expect(await daemon.stop()).to.equal(0);
      expect(daemon.logs.some((r) => r.msg === 'vigil stopped')).to.equal(true);
      await daemon.start();
      for (const id of ids) await daemon.waitForResult(id, 120_000);
      for (const id of ids) expect(finalCount(daemon, id)).to.equal(1);
    } finally {
      await daemon.cleanup();
    }
  });

  it('cancels a running job on DELETE: children killed, nothing left behind', async () => {
    const daemon = await new TestDaemon({ config: { jobs: { concurrency: 1 } } }).start();
    try {
      const [id] = await uploadMany(daemon, clip, 1);
      await daemon.waitForLog((r) => r.msg === 'job started' && r.id === id);
      const res = await fetch(`${daemon.url}/api/classify/${id}`, { method: 'DELETE', headers: daemon.auth() });
      expect(res.status).to.equal(204);
      expect(fs.existsSync(path.join(daemon.dataDir, 'media', id))).to.equal(false);
      expect((await fetch(`${daemon.url}/api/result/${id}`, { headers: daemon.auth() })).status).to.equal(404);
      // no ffmpeg left running on behalf of the deleted job
      await new Promise((r) => setTimeout(r, 300));
      const children = execFileSync('ps', ['-eo', 'args']).toString().split('\n').filter((l) => l.includes(id));
      expect(children).to.deep.equal([]);
      // the daemon keeps serving
      const [next] = await uploadMany(daemon, clip, 1);
      expect((await daemon.waitForResult(next, 120_000)).id).to.equal(next);
      expect(finalCount(daemon, id)).to.equal(0);
    } finally {
      await daemon.cleanup();
    }
  });
});
