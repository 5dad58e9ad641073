// The classification API end to end, against the real daemon over loopback HTTP.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ffmpeg, stillClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';
import { media } from '../support/paths.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+[+-]\d{2}:\d{2}$/;
const FINAL_STATES = ['done', 'error'];

/** Every field of spec 2.1 with its type. */
function expectResultShape(r: Record<string, any>): void {
  expect(r.id).to.be.a('string').and.match(UUID);
  expect(r.status).to.be.an('object');
  expect(r.status.classify).to.be.a('string');
  expect(r.status.video).to.be.a('string');
  expect(r.parent_id).to.be.a('string');
  expect(r.camera_id).to.be.a('string');
  expect(r.tenant).to.be.a('string');
  expect(Number.isInteger(r.duration), 'duration is an integer').to.equal(true);
  expect(Number.isInteger(r.duration_seconds), 'duration_seconds is an integer').to.equal(true);
  expect(r.model).to.be.a('string');
  expect(r.version).to.be.a('string');
  expect(Number.isInteger(r.error_code)).to.equal(true);
  expect(r.error_msg).to.be.a('string');
  expect(r.risk).to.be.a('string');
  expect(r.labels).to.be.an('array');
  for (const l of r.labels) expect(l).to.be.a('string');
  expect(r.result).to.be.a('string');
  expect(r.scores).to.be.an('object');
  for (const v of Object.values(r.scores)) expect(v).to.be.a('number').within(0, 1);
  expect(r.video.videoname).to.be.a('string');
  expect(r.video.filename).to.be.a('string');
  expect(Number.isInteger(r.video.filesize)).to.equal(true);
  const specs = r.video.specs;
  for (const k of ['width', 'height', 'nframes', 'original.width', 'original.height', 'original.nframes']) {
    expect(Number.isInteger(specs[k]), `specs["${k}"] is an integer`).to.equal(true);
  }
  for (const k of ['duration', 'fps', 'original.fps']) expect(specs[k], `specs["${k}"]`).to.be.a('number');
  expect(r.metadata).to.be.an('object');
  expect(r.created_at).to.match(ISO_WITH_OFFSET);
  expect(r.started_at).to.match(ISO_WITH_OFFSET);
  if ('analyse_id' in r) expect(Number.isInteger(r.analyse_id)).to.equal(true);
  if (r.error_code === 0) expect(r.error_msg).to.equal('');
  else expect(r.error_msg).to.not.equal('');
}

describe('classification API', function () {
  let daemon: TestDaemon;
  let dir: string;
  let mp4: string;

  before(async () => {
    dir = tempDir();
    mp4 = await stillClip('grace_hopper.png', path.join(dir, 'grace.mp4'), 2, 10, 320);
    daemon = await new TestDaemon({ config: { server: { max_upload_bytes: 3_000_000 } } }).start();
  });
  after(async () => {
    await daemon?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('accepts a multipart upload with 202 and an acceptance record', async () => {
    const res = await daemon.upload(mp4, { metadata: JSON.stringify({ camera_id: 'cam-7', site_id: 12 }), analyse_id: '4711', parent_id: 'evt-1' });
    expect(res.status).to.equal(202);
    const body = (await res.json()) as Record<string, string>;
    expect(Object.keys(body).sort()).to.deep.equal(['accepted_at', 'id']);
    expect(body.id).to.match(UUID);
    expect(body.accepted_at).to.match(ISO_WITH_OFFSET);

    const result = await daemon.waitForResult(body.id);
    expectResultShape(result);
    expect(result.id).to.equal(body.id);
    expect(result.tenant).to.equal('tenant-a');
    expect(result.analyse_id).to.equal(4711);
    expect(result.parent_id).to.equal('evt-1');
    expect(result.camera_id).to.equal('cam-7');
    expect(result.metadata).to.deep.equal({ camera_id: 'cam-7', site_id: 12 });
    expect(FINAL_STATES).to.include(result.status.classify);
    expect(FINAL_STATES).to.include(result.status.video);
    expect(result.video.filesize).to.equal(fs.statSync(mp4).size);
    expect(result.video.videoname).to.equal('grace.mp4');
    expect(result.video.specs['original.width']).to.equal(320);
    expect(result.duration_seconds).to.equal(2);
  });

  it('leaves analyse_id out when the sender gave none', async () => {
    const res = await daemon.upload(mp4);
    const { id } = (await res.json()) as { id: string };
    const result = await daemon.waitForResult(id);
    expect(result).to.not.have.property('analyse_id');
    expect(result.camera_id).to.equal('');
    expect(result.parent_id).to.equal('');
  });

  it('answers sync=true with the final result', async () => {
    const res = await daemon.upload(mp4, { metadata: '{"camera_id": 3}' }, '?sync=true');
    expect(res.status).to.equal(200);
    const result = (await res.json()) as Record<string, any>;
    expectResultShape(result);
    expect(result.camera_id).to.equal('3');
    const polled = await daemon.waitForResult(result.id);
    expect(polled).to.deep.equal(result);
    // the highlight's frames prepared by the classification are gone with the final result
    expect(fs.readdirSync(path.join(daemon.dataDir, 'media', result.id)).sort()).to.deep.equal([result.video.filename, 'highlight.mp4', 'snapshot-clean.jpg', 'snapshot.jpg'].sort());
  });

  it('accepts the raw clip as the body, with metadata in query parameters', async () => {
    const query = `?sync=true&analyse_id=9&camera_id=door&metadata=${encodeURIComponent('{"site_id": 5}')}`;
    const res = await fetch(`${daemon.url}/api/classify${query}`, {
      method: 'POST',
      headers: { ...daemon.auth(), 'content-type': 'video/x-msvideo' },
      body: fs.readFileSync(media('face_closeup.avi')),
    });
    expect(res.status).to.equal(200);
    const result = (await res.json()) as Record<string, any>;
    expectResultShape(result);
    expect(result.analyse_id).to.equal(9);
    expect(result.camera_id).to.equal('door');
    expect(result.metadata).to.deep.equal({ site_id: 5 });
    expect(result.video.filename).to.match(/\.avi$/);
    expect(result.video.specs['original.width']).to.equal(160);
    expect(result.video.specs['original.fps']).to.equal(15);
  });

  it('takes clips in several containers and codecs', async () => {
    const webm = path.join(dir, 'clip.webm');
    await ffmpeg(['-i', mp4, '-c:v', 'libvpx', '-b:v', '300k', '-deadline', 'realtime', webm]);
    // a recorder's transport stream (which the static ffprobe build cannot read on some CPUs)
    const ts = path.join(dir, 'recorded.ts');
    await ffmpeg(['-i', mp4, '-c', 'copy', '-f', 'mpegts', ts]);
    for (const file of [webm, ts, media('cartoon.avi'), media('indoor_plants.mp4')]) {
      const res = await daemon.upload(file);
      expect(res.status, path.basename(file)).to.equal(202);
      const { id } = (await res.json()) as { id: string };
      const result = await daemon.waitForResult(id);
      expectResultShape(result);
      expect(result.error_code, `${path.basename(file)}: ${result.error_msg}`).to.equal(0);
      expect(result.video.videoname).to.equal(path.basename(file));
    }
  });

  describe('errors', () => {
    async function expectError(res: Response, status: number, code: string): Promise<string> {
      expect(res.status).to.equal(status);
      expect(res.headers.get('content-type')).to.match(/application\/json/);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).to.equal(code);
      expect(body.error.message).to.be.a('string').and.not.equal('');
      return body.error.message;
    }

    function leftovers(): string[] {
      return fs.readdirSync(path.join(daemon.dataDir, 'incoming'));
    }

    it('401 without a key or with a wrong key', async () => {
      await expectError(await fetch(`${daemon.url}/api/result/00000000-0000-4000-8000-000000000000`), 401, 'unauthorized');
      await expectError(await daemon.upload(mp4, {}, '', 'not-a-key-at-all-really'), 401, 'unauthorized');
    });

    it('404 for an unknown id and for another tenant\'s classification', async () => {
      await expectError(await fetch(`${daemon.url}/api/result/00000000-0000-4000-8000-000000000000`, { headers: daemon.auth() }), 404, 'not_found');
      const { id } = (await (await daemon.upload(mp4)).json()) as { id: string };
      await daemon.waitForResult(id);
      const other = daemon.auth(daemon.otherTenantKey);
      await expectError(await fetch(`${daemon.url}/api/result/${id}`, { headers: other }), 404, 'not_found');
      await expectError(await fetch(`${daemon.url}/api/video/annotate/${id}`, { headers: other }), 404, 'not_found');
      await expectError(await fetch(`${daemon.url}/api/classify/${id}`, { method: 'DELETE', headers: other }), 404, 'not_found');
      expect((await fetch(`${daemon.url}/api/result/${id}`, { headers: daemon.auth() })).status).to.equal(200);
    });

    it('400 for malformed and path-traversal ids', async () => {
      for (const bad of ['abc', '..%2F..%2Fetc%2Fpasswd', '00000000-0000-4000-8000-00000000000G']) {
        await expectError(await fetch(`${daemon.url}/api/result/${bad}`, { headers: daemon.auth() }), 400, 'invalid_id');
        await expectError(await fetch(`${daemon.url}/api/classify/${bad}`, { method: 'DELETE', headers: daemon.auth() }), 400, 'invalid_id');
      }
    });

    it('rejects bad uploads with a clear 4xx and leaves nothing behind', async () => {
      const before = fs.readdirSync(path.join(daemon.dataDir, 'media')).length;
      const text = path.join(dir, 'notes.txt');
      fs.writeFileSync(text, 'this is not a video\n'.repeat(100));
      const truncated = path.join(dir, 'truncated.mp4');
      fs.writeFileSync(truncated, fs.readFileSync(mp4).subarray(0, Math.floor(fs.statSync(mp4).size / 2)));
      const audio = path.join(dir, 'audio.m4a');
      await ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-c:a', 'aac', audio]);

      const raw = (body: Buffer | string, type = 'application/octet-stream') =>
        fetch(`${daemon.url}/api/classify`, { method: 'POST', headers: { ...daemon.auth(), 'content-type': type }, body });

      await expectError(await raw(Buffer.alloc(0)), 400, 'empty_body');
      await expectError(await fetch(`${daemon.url}/api/classify`, { method: 'POST', headers: daemon.auth() }), 400, 'empty_body');
      expect(await expectError(await daemon.upload(text), 422, 'invalid_video')).to.match(/not a readable video/);
      expect(await expectError(await daemon.upload(media('cat.png')), 422, 'invalid_video')).to.match(/still image/);
      await expectError(await daemon.upload(truncated), 422, 'invalid_video');
      expect(await expectError(await daemon.upload(audio), 422, 'invalid_video')).to.match(/no video stream.*audio/);
      const form = new FormData();
      form.append('clip', new Blob([fs.readFileSync(mp4)]), 'x.mp4');
      expect(await expectError(await fetch(`${daemon.url}/api/classify`, { method: 'POST', headers: daemon.auth(), body: form }), 400, 'missing_video')).to.match(/clip/);
      await expectError(await daemon.upload(mp4, { metadata: '{"camera_id": ' }), 400, 'invalid_metadata');
      await expectError(await daemon.upload(mp4, { metadata: '[1,2]' }), 400, 'invalid_metadata');
      await expectError(await daemon.upload(mp4, { analyse_id: 'twelve' }), 400, 'invalid_analyse_id');
      await expectError(await raw('hello', 'text/plain'), 415, 'unsupported_media_type');
      await expectError(await raw(Buffer.alloc(3_500_000, 1)), 413, 'too_large');
      // a multipart upload over the limit is stopped while it streams
      const big = path.join(dir, 'big.bin');
      fs.writeFileSync(big, Buffer.alloc(3_500_000, 7));
      await expectError(await daemon.upload(big), 413, 'too_large');

      expect(leftovers()).to.deep.equal([]);
      expect(fs.readdirSync(path.join(daemon.dataDir, 'media')).length).to.equal(before);
      // and the daemon keeps serving
      const res = await daemon.upload(mp4);
      expect(res.status).to.equal(202);
    });

    it('answers unknown routes with the JSON error shape', async () => {
      await expectError(await fetch(`${daemon.url}/api/nothing-here`, { headers: daemon.auth() }), 404, 'no_route');
    });
  });

  describe('DELETE /api/classify/<id>', () => {
    it('deletes the video, derived files and rows; a second DELETE is 404', async () => {
      const { id } = (await (await daemon.upload(mp4)).json()) as { id: string };
      await daemon.waitForResult(id);
      const folder = path.join(daemon.dataDir, 'media', id);
      expect(fs.existsSync(folder)).to.equal(true);
      const res = await fetch(`${daemon.url}/api/classify/${id}`, { method: 'DELETE', headers: daemon.auth() });
      expect(res.status).to.equal(204);
      expect(fs.existsSync(folder)).to.equal(false);
      expect((await fetch(`${daemon.url}/api/result/${id}`, { headers: daemon.auth() })).status).to.equal(404);
      expect((await fetch(`${daemon.url}/api/video/annotate/${id}`, { headers: daemon.auth() })).status).to.equal(404);
      expect((await fetch(`${daemon.url}/api/classify/${id}`, { method: 'DELETE', headers: daemon.auth() })).status).to.equal(404);
    });
  });
});
