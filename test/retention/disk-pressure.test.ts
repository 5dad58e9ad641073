// Disk pressure on a real tiny volume: a tmpfs of a few MB mounted by the test
// (root only), holding the daemon's whole data folder. A filler file plays the
// rest of the system eating the space. Uploads are pruned for, then refused
// with 507; reads and deletes keep working; ENOSPC mid-upload crashes nothing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect } from 'chai';
import { isDiskFull } from '../../runtime/core/disk-full.js';
import { renderHighlight } from '../../runtime/highlight/render.js';
import { probeClip } from '../../runtime/pipeline/probe.js';
import { analysisOf, personKeyframes } from '../highlight/support.js';
import { panClip, stillClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';
import { storeState, withDb } from './daemon-state.js';

const MiB = 1024 * 1024;
const NEVER = '0 0 1 1 *';
// No model pack is pulled onto the tiny volume (it would not fit): results end with 2004, which is all these tests need.
const NO_PULL = { auto_pull: false };

function freeBytes(dir: string): number {
  const s = fs.statfsSync(dir);
  return s.bavail * s.bsize;
}

/** Grows or shrinks the filler so that the volume has about `target` bytes free. */
function leaveFree(filler: string, target: number): void {
  const current = fs.existsSync(filler) ? fs.statSync(filler).size : 0;
  const size = Math.max(0, current + freeBytes(path.dirname(filler)) - target);
  const fd = fs.openSync(filler, 'w');
  try {
    const chunk = Buffer.alloc(MiB, 7);
    for (let written = 0; written < size; ) {
      written += fs.writeSync(fd, chunk, 0, Math.min(chunk.length, size - written));
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Fills the volume to the last byte, as something else on the system would. */
function fillUp(filler: string): void {
  const fd = fs.openSync(filler, 'a');
  const chunk = Buffer.alloc(64 * 1024, 7);
  try {
    for (;;) {
      try {
        fs.writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
        if (chunk.length === 1) return;
        return fillUpRest(fd);
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

function fillUpRest(fd: number): void {
  for (let size = 32 * 1024; size >= 1; size = Math.floor(size / 2)) {
    try {
      while (true) fs.writeSync(fd, Buffer.alloc(size, 7));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
    }
  }
}

/** A chunked raw upload (no Content-Length) on its own connection; the server may cut it when a write fails. */
function chunkedUpload(url: string, headers: Record<string, string>, bytes: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/api/classify`, {
      method: 'POST',
      agent: false,
      headers: { ...headers, 'content-type': 'video/mp4', 'transfer-encoding': 'chunked' },
    }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    for (let i = 0; i < bytes.length; i += 16 * 1024) req.write(bytes.subarray(i, i + 16 * 1024));
    req.end();
  });
}

describe('retention under disk pressure (tiny tmpfs volume)', function () {
  let mountPoint: string | undefined;
  let dir: string;
  let clip: string;

  before(async function () {
    if (process.getuid?.() !== 0) {
      console.log('      skipped: mounting a tiny tmpfs volume needs root (run the tests as root to exercise 507 and ENOSPC)');
      this.skip();
    }
    const point = tempDir('vigil-tinyfs-');
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m,mode=0700', 'tmpfs', point], { stdio: 'pipe' });
    } catch (err) {
      fs.rmSync(point, { recursive: true, force: true });
      console.log(`      skipped: could not mount a tmpfs volume (${(err as Error).message.split('\n')[0]})`);
      this.skip();
    }
    mountPoint = point;
    dir = tempDir();
    clip = await stillClip('parrot.jpg', path.join(dir, 'parrot.mp4'), 3, 10, 640);
  });

  after(() => {
    if (mountPoint) {
      execFileSync('umount', ['-l', mountPoint]);
      fs.rmSync(mountPoint, { recursive: true, force: true });
    }
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('prunes the oldest to stay above the free-space minimum, then answers 507 while reads and deletes work', async () => {
    const minFree = 8 * MiB;
    const clipBytes = fs.statSync(clip).size;
    const dataDir = path.join(mountPoint!, 'data');
    const filler = path.join(mountPoint!, 'filler');
    const config = { models: NO_PULL, retention: { max_age_days: 0, max_count: 0, max_media_bytes: 0, min_free_bytes: minFree, schedule: NEVER } };
    const daemon = await new TestDaemon({ dataDir, config }).start();
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push(await daemon.submit(clip));
        await daemon.waitForResult(ids[i]);
      }

      // the rest of the system eats the space: the next upload only fits if the oldest go
      leaveFree(filler, minFree + clipBytes / 2);
      ids.push(await daemon.submit(clip));
      expect(freeBytes(dataDir)).to.be.at.least(minFree);
      const afterPrune = await storeState(dataDir);
      expect(afterPrune.rowIds[0], 'the oldest went first').to.not.equal(ids[0]);
      expect(ids.slice(ids.length - afterPrune.rowIds.length)).to.deep.equal(afterPrune.rowIds);
      expect(afterPrune.folderIds).to.deep.equal([...afterPrune.rowIds].sort());
      await daemon.waitForResult(ids[3]);

      // now even pruning everything could not recover it: 507, and nothing is deleted for nothing
      leaveFree(filler, minFree - 4 * MiB);
      const before = (await storeState(dataDir)).rowIds;
      const refused = await daemon.upload(clip);
      expect(refused.status).to.equal(507);
      const body = (await refused.json()) as { error: { code: string; message: string } };
      expect(body.error.code).to.equal('insufficient_storage');
      expect(body.error.message).to.match(/min_free_bytes/);
      expect((await storeState(dataDir)).rowIds).to.deep.equal(before);
      expect(daemon.logs.some((r) => r.msg === 'disk pressure: uploads are refused with 507')).to.equal(true);

      // reads and deletes keep working
      const kept = before[before.length - 1];
      expect((await fetch(`${daemon.url}/api/result/${kept}`, { headers: daemon.auth() })).status).to.equal(200);
      expect((await fetch(`${daemon.url}/api/classify/${before[0]}`, { method: 'DELETE', headers: daemon.auth() })).status).to.equal(204);

      // space comes back: uploads are accepted again
      fs.rmSync(filler);
      await daemon.waitForResult(await daemon.submit(clip));
    } finally {
      await daemon.kill();
      fs.rmSync(filler, { force: true });
      await daemon.cleanup();
    }
  });

  it('survives ENOSPC in the middle of an upload without crashing or corrupting the database', async () => {
    const clipBytes = fs.statSync(clip).size;
    const dataDir = path.join(mountPoint!, 'data-enospc');
    const filler = path.join(mountPoint!, 'filler');
    // no minimum, and no Content-Length below: nothing stops the upload before the disk is full
    const config = { models: NO_PULL, retention: { max_age_days: 0, max_count: 0, max_media_bytes: 0, min_free_bytes: 0, schedule: NEVER } };
    const daemon = await new TestDaemon({ dataDir, config }).start();
    try {
      const kept = await daemon.submit(clip);
      await daemon.waitForResult(kept);

      leaveFree(filler, Math.floor(clipBytes / 3));
      // chunked (no Content-Length), on a connection of its own: the server may cut it when the write fails
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(`${daemon.url}/api/classify`, {
          method: 'POST',
          agent: false,
          headers: { ...daemon.auth(), 'content-type': 'video/mp4', 'transfer-encoding': 'chunked' },
        }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        const bytes = fs.readFileSync(clip);
        for (let i = 0; i < bytes.length; i += 16 * 1024) req.write(bytes.subarray(i, i + 16 * 1024));
        req.end();
      });
      expect(answer.status, 'an upload that hit a full disk is refused as a storage problem').to.equal(507);
      expect((JSON.parse(answer.body) as { error: { code: string } }).error.code).to.equal('insufficient_storage');

      // still alive, still serving, nothing half-written left
      expect((await fetch(`${daemon.url}/api/result/${kept}`, { headers: daemon.auth() })).status).to.equal(200);
      expect(fs.readdirSync(path.join(dataDir, 'incoming'))).to.deep.equal([]);
      const integrity = await withDb(dataDir, (db) => db.get<{ integrity_check: string }>('PRAGMA integrity_check'));
      expect(integrity?.integrity_check).to.equal('ok');

      fs.rmSync(filler);
      await daemon.waitForResult(await daemon.submit(clip));
    } finally {
      await daemon.kill();
      fs.rmSync(filler, { force: true });
      await daemon.cleanup();
    }
  });

  it('a highlight rendered onto a full volume fails as a full volume, not as a bad clip, and leaves no file', async () => {
    // ffmpeg exits 0 there, silently with +faststart: only reading the output back tells
    const folder = path.join(mountPoint!, 'render');
    const filler = path.join(mountPoint!, 'filler');
    fs.mkdirSync(folder);
    const source = await probeClip(clip);
    const analysis = analysisOf(personKeyframes(0, 2.5, 0.5, () => ({ x: 0.2, y: 0.2, w: 0.3, h: 0.5 })));
    const outPath = path.join(folder, 'highlight.mp4');
    try {
      fillUp(filler);
      const failure = await renderHighlight({ clip: source, analysis, outPath, signal: new AbortController().signal }).then(() => null, (err: unknown) => err);
      expect(failure, 'the render on a full volume failed').to.be.instanceOf(Error);
      expect(isDiskFull(failure), String(failure)).to.equal(true);
      expect(fs.readdirSync(folder)).to.deep.equal([]);

      fs.rmSync(filler);
      await renderHighlight({ clip: source, analysis, outPath, signal: new AbortController().signal });
      expect((await probeClip(outPath)).nframes).to.be.above(0);
    } finally {
      fs.rmSync(filler, { force: true });
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('on a volume filled to 0 bytes by something else: uploads get 507, DELETE works, and the queue resumes by itself when space returns', async () => {
    const dataDir = path.join(mountPoint!, 'data-full');
    const filler = path.join(mountPoint!, 'filler');
    const work = await panClip('squat.png', path.join(dir, 'work.mp4'), 6, 10, 480);
    // the tiny pack fits the volume: jobs really classify and render, so some are in flight when the disk fills
    const config = {
      models: { pack: 'tiny' },
      jobs: { concurrency: 1 },
      retention: { max_age_days: 0, max_count: 0, max_media_bytes: 0, min_free_bytes: 0, schedule: NEVER },
    };
    const daemon = await new TestDaemon({ dataDir, config }).start();
    try {
      await daemon.waitForLog((r) => r.msg === 'model pack active', 60_000);
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        ids.push(await daemon.submit(work, { parent_id: `in-flight-${i}` }));
      }
      fillUp(filler);
      expect(freeBytes(dataDir)).to.equal(0);
      const states = await Promise.all(ids.map(async (id) => (await fetch(`${daemon.url}/api/result/${id}`, { headers: daemon.auth() })).status));
      expect(states.filter((s) => s === 202).length, 'clips still in flight when the disk filled').to.be.at.least(2);
      // a clip in flight meets the full volume (its render or its row cannot be written) and waits for space
      await daemon.waitForLog((r) => r.msg === 'job failed in the store; it will be tried again' && r.disk_full === true, 60_000);

      // admission: 507 for a multipart upload with a Content-Length and for a chunked one
      for (let i = 0; i < 3; i++) {
        const refused = await daemon.upload(work);
        expect(refused.status, await refused.clone().text()).to.equal(507);
        expect(((await refused.json()) as { error: { code: string } }).error.code).to.equal('insufficient_storage');
      }
      const chunked = await chunkedUpload(daemon.url, daemon.auth(), fs.readFileSync(work));
      expect(chunked.status, chunked.body).to.equal(507);
      expect(fs.readdirSync(path.join(dataDir, 'incoming'))).to.deep.equal([]);

      // deletion works on the full volume: it is how space comes back
      const victim = ids[ids.length - 1];
      const del = await fetch(`${daemon.url}/api/classify/${victim}`, { method: 'DELETE', headers: daemon.auth() });
      expect(del.status, await del.text()).to.equal(204);
      expect((await fetch(`${daemon.url}/api/result/${victim}`, { headers: daemon.auth() })).status).to.equal(404);
      expect(fs.existsSync(path.join(dataDir, 'media', victim))).to.equal(false);
      fillUp(filler); // what the deletion freed is taken again

      // space returns: every clip in flight finishes, classified and rendered, with no restart
      fs.rmSync(filler);
      for (const id of ids.slice(0, -1)) {
        const result = await daemon.waitForResult(id, 120_000);
        expect(result.error_code, result.error_msg).to.equal(0);
        const renderFailure = daemon.logs.find((r) => r.id === id && r.msg === 'highlight rendering failed');
        expect(result.status, String(renderFailure?.error ?? '')).to.deep.equal({ classify: 'done', video: 'done' });
      }
      expect(daemon.logs.filter((r) => r.msg === 'vigil started').length, 'no restart').to.equal(1);
      const integrity = await withDb(dataDir, (db) => db.get<{ integrity_check: string }>('PRAGMA integrity_check'));
      expect(integrity?.integrity_check).to.equal('ok');
    } finally {
      await daemon.kill();
      fs.rmSync(filler, { force: true });
      await daemon.cleanup();
    }
  });
});
