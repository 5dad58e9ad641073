// GET /api/video/annotate/<id> against the real daemon, classifying with the
// shared model pack: the rendered highlight and snapshot, byte ranges, ETag,
// tenants, deletion, and a clip that does not decode.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ffmpeg, stillClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';
import { media, SHARED_MODELS } from '../support/paths.js';
import { weatherClip } from '../support/weather.js';
import { probe } from './support.js';

describe('annotated highlight over HTTP', function () {
  let daemon: TestDaemon;
  let dir: string;
  let grace: string;
  let id: string;
  let full: Buffer;
  let etag: string;

  const annotate = (headers: Record<string, string> = {}, key = daemon.tenantKey, which = id) =>
    fetch(`${daemon.url}/api/video/annotate/${which}`, { headers: { ...daemon.auth(key), ...headers } });

  const snapshot = (query = '', key = daemon.tenantKey, which = id) =>
    fetch(`${daemon.url}/api/snapshot/${which}${query}`, { headers: daemon.auth(key) });

  before(async () => {
    dir = tempDir('vigil-annotate-');
    grace = await stillClip('grace_hopper.png', path.join(dir, 'grace.mp4'), 3, 10, 640);
    daemon = await new TestDaemon({ config: { models: { source: SHARED_MODELS } } }).start();
    const res = await daemon.upload(grace, {}, '?sync=true');
    expect(res.status).to.equal(200);
    const result = (await res.json()) as Record<string, any>;
    id = result.id;
    expect(result.error_code, result.error_msg).to.equal(0);
    expect(result.status).to.deep.equal({ classify: 'done', video: 'done' });
    expect(result.video.specs.width).to.be.at.most(640);
    expect(result.video.specs.duration).to.be.greaterThan(0).and.at.most(10.5);
  });
  after(async () => {
    await daemon?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves the highlight as an H.264 MP4 with its length, ETag and range support', async () => {
    const res = await annotate();
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('video/mp4');
    expect(res.headers.get('accept-ranges')).to.equal('bytes');
    full = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).to.equal(full.length);
    etag = res.headers.get('etag')!;
    expect(etag).to.match(/^"[^"]+"$/);
    const file = path.join(dir, 'served.mp4');
    fs.writeFileSync(file, full);
    const facts = await probe(file);
    expect(facts.streams.map((s) => s.codec_type)).to.deep.equal(['video']);
    expect(facts.streams[0].codec_name).to.equal('h264');
    expect(facts.streams[0].pix_fmt).to.equal('yuv420p');
    expect(facts.streams[0].width).to.equal(640);
  });

  it('answers byte ranges: the first bytes, the middle, a suffix', async () => {
    const size = full.length;
    const cases: Array<[string, number, number]> = [
      ['bytes=0-99', 0, 99],
      [`bytes=${Math.floor(size / 2)}-${Math.floor(size / 2) + 999}`, Math.floor(size / 2), Math.floor(size / 2) + 999],
      ['bytes=-500', size - 500, size - 1],
      [`bytes=${size - 10}-`, size - 10, size - 1],
    ];
    for (const [range, start, end] of cases) {
      const res = await annotate({ range });
      expect(res.status, range).to.equal(206);
      expect(res.headers.get('content-range'), range).to.equal(`bytes ${start}-${end}/${size}`);
      expect(Number(res.headers.get('content-length')), range).to.equal(end - start + 1);
      expect(Buffer.from(await res.arrayBuffer()).equals(full.subarray(start, end + 1)), range).to.equal(true);
    }
  });

  it('answers HEAD as GET without the body: status, length, type, ranges', async () => {
    const head = await fetch(`${daemon.url}/api/video/annotate/${id}`, { method: 'HEAD', headers: daemon.auth() });
    expect(head.status).to.equal(200);
    expect(head.headers.get('content-type')).to.equal('video/mp4');
    expect(Number(head.headers.get('content-length'))).to.equal(full.length);
    expect(head.headers.get('etag')).to.equal(etag);
    expect(head.headers.get('accept-ranges')).to.equal('bytes');
    expect((await head.arrayBuffer()).byteLength).to.equal(0);
    const ranged = await fetch(`${daemon.url}/api/video/annotate/${id}`, { method: 'HEAD', headers: { ...daemon.auth(), range: 'bytes=0-99' } });
    expect(ranged.status).to.equal(206);
    expect(ranged.headers.get('content-range')).to.equal(`bytes 0-99/${full.length}`);
    expect(Number(ranged.headers.get('content-length'))).to.equal(100);
  });

  it('answers 416 for a range past the end', async () => {
    for (const range of [`bytes=${full.length}-`, `bytes=${full.length + 100}-${full.length + 200}`, 'bytes=-0']) {
      const res = await annotate({ range });
      expect(res.status, range).to.equal(416);
      expect(res.headers.get('content-range'), range).to.equal(`bytes */${full.length}`);
      expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('range_not_satisfiable');
    }
  });

  it('answers a conditional GET with 304 while the ETag matches', async () => {
    const res = await annotate({ 'if-none-match': etag });
    expect(res.status).to.equal(304);
    expect((await res.arrayBuffer()).byteLength).to.equal(0);
    expect((await annotate({ 'if-none-match': '"something-else"' })).status).to.equal(200);
  });

  it('is 404 for another tenant', async () => {
    const res = await annotate({}, daemon.otherTenantKey);
    expect(res.status).to.equal(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('not_found');
  });

  it('serves the snapshot of the best frame as JPEG with its boxes, and a clean one with ?clean=1', async () => {
    const walker = await weatherClip(media('real/worker_hardhat_walking.mp4'), path.join(dir, 'walker.mp4'), { kind: 'rain', density: 'rain' });
    const res = await daemon.upload(walker, {}, '?sync=true');
    const result = (await res.json()) as Record<string, any>;
    expect(result.labels).to.include('person');
    const boxed = await snapshot('', daemon.tenantKey, result.id);
    expect(boxed.status).to.equal(200);
    expect(boxed.headers.get('content-type')).to.equal('image/jpeg');
    const withBoxes = Buffer.from(await boxed.arrayBuffer());
    const clean = await snapshot('?clean=1', daemon.tenantKey, result.id);
    expect(clean.status).to.equal(200);
    const withoutBoxes = Buffer.from(await clean.arrayBuffer());
    for (const [name, bytes] of [['boxed', withBoxes], ['clean', withoutBoxes]] as const) {
      const file = path.join(dir, `${name}.jpg`);
      fs.writeFileSync(file, bytes);
      const facts = await probe(file);
      expect(facts.streams[0].codec_name, name).to.equal('mjpeg');
      expect(facts.streams[0].width, name).to.equal(480); // the clip's own width, under the highlight's 640
    }
    // the person found is boxed on one and not on the other
    expect(withBoxes.equals(withoutBoxes)).to.equal(false);
    expect((await snapshot('', daemon.otherTenantKey, result.id)).status).to.equal(404);
    // a clip where nothing was found still has a snapshot (its middle frame, nothing drawn)
    expect((await snapshot()).headers.get('content-type')).to.equal('image/jpeg');
  });

  it('is gone after DELETE', async () => {
    const highlight = path.join(daemon.dataDir, 'media', id, 'highlight.mp4');
    expect(fs.existsSync(highlight)).to.equal(true);
    expect(fs.existsSync(path.join(daemon.dataDir, 'media', id, 'snapshot.jpg'))).to.equal(true);
    expect((await fetch(`${daemon.url}/api/classify/${id}`, { method: 'DELETE', headers: daemon.auth() })).status).to.equal(204);
    const res = await annotate();
    expect(res.status).to.equal(404);
    expect(res.headers.get('content-type')).to.match(/application\/json/);
    expect(fs.existsSync(highlight)).to.equal(false);
    expect((await snapshot()).status).to.equal(404);
  });

  it('gives a clip that does not decode no video and a clear state', async () => {
    const faststart = path.join(dir, 'faststart.mp4');
    await ffmpeg(['-i', grace, '-c', 'copy', '-movflags', '+faststart', faststart]);
    // the container and its index stay readable (the upload is accepted); every coded frame is destroyed
    const bytes = fs.readFileSync(faststart);
    for (let i = bytes.indexOf('mdat') + 4; i < bytes.length; i++) bytes[i] = (i * 7919) & 0xff;
    const broken = path.join(dir, 'broken.mp4');
    fs.writeFileSync(broken, bytes);

    const res = await daemon.upload(broken, {}, '?sync=true');
    expect(res.status).to.equal(200);
    const result = (await res.json()) as Record<string, any>;
    expect(result.status.video).to.equal('error');
    expect(result.video.specs.width).to.equal(result.video.specs['original.width']);
    const video = await annotate({}, daemon.tenantKey, result.id);
    expect(video.status).to.equal(404);
    const body = (await video.json()) as { error: { code: string; message: string } };
    expect(body.error.code).to.equal('no_video');
    expect(body.error.message).to.match(/status\.video: error; \S/);
    const still = await snapshot('', daemon.tenantKey, result.id);
    expect(still.status).to.equal(404);
    expect(((await still.json()) as { error: { code: string } }).error.code).to.equal('no_snapshot');
  });
});
