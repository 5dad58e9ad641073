// Hostile LAN clients against the real daemon: oversized and deeply nested
// metadata, forms with too many parts or fields. Each gets a 4xx naming its real
// cause, nothing of it stays on disk, and the daemon keeps serving.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect } from 'chai';
import sqlite3 from 'sqlite3';
import { stillClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';

type ErrorBody = { error: { code: string; message: string } };

/**
 * POSTs a whole form and reads the answer even when the server answers before
 * the body is sent and closes (as a refusing server may): fetch reports that as
 * a failure, a real client on the LAN still sees the answer.
 */
async function postForm(url: string, headers: Record<string, string>, form: FormData): Promise<{ status: number; body: ErrorBody }> {
  const request = new Request(url, { method: 'POST', body: form });
  const bytes = Buffer.from(await request.arrayBuffer());
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent: false, headers: { ...headers, 'content-type': request.headers.get('content-type')!, 'content-length': bytes.length } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as ErrorBody }));
    });
    req.on('error', (err) => setTimeout(() => reject(err), 1000)); // a reset after the answer is fine
    req.end(bytes);
  });
}

describe('hostile input', function () {
  let daemon: TestDaemon;
  let dir: string;
  let clip: string;

  before(async () => {
    dir = tempDir();
    clip = await stillClip('grace_hopper.png', path.join(dir, 'grace.mp4'), 1, 10, 160);
    daemon = await new TestDaemon({ config: { models: { auto_pull: false } } }).start();
  });
  after(async () => {
    await daemon?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Nothing of a refused upload is left: no media folder, no upload folder. */
  function expectNothingLeft(): void {
    expect(fs.readdirSync(path.join(daemon.dataDir, 'media')), 'media/').to.deep.equal([]);
    expect(fs.readdirSync(path.join(daemon.dataDir, 'incoming')), 'incoming/').to.deep.equal([]);
  }

  async function expectStillServing(): Promise<void> {
    const id = await daemon.submit(clip);
    await daemon.waitForResult(id);
    const del = await fetch(`${daemon.url}/api/classify/${id}`, { method: 'DELETE', headers: daemon.auth() });
    expect(del.status).to.equal(204);
  }

  it('refuses metadata nested 5000 deep with a 400 naming the depth limit, leaving no clip behind', async () => {
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    const res = await daemon.upload(clip, { metadata: deep });
    const body = (await res.json()) as ErrorBody;
    expect(res.status, JSON.stringify(body)).to.equal(400);
    expect(body.error.code).to.equal('invalid_metadata');
    expect(body.error.message).to.match(/limit of 32/);
    expectNothingLeft();
    await expectStillServing();
  });

  it('refuses metadata over its size limit with a 400 naming the limit', async () => {
    const big = JSON.stringify({ note: 'x'.repeat(70 * 1024) });
    const res = await daemon.upload(clip, { metadata: big });
    const body = (await res.json()) as ErrorBody;
    expect(res.status, JSON.stringify(body)).to.equal(400);
    expect(body.error.code).to.equal('invalid_metadata');
    expect(body.error.message).to.match(/65536 bytes/);
    expectNothingLeft();
  });

  it('refuses an overlong camera_id or video name with a 400 naming the field', async () => {
    const res = await daemon.upload(clip, { camera_id: 'c'.repeat(300) });
    const body = (await res.json()) as ErrorBody;
    expect(res.status, JSON.stringify(body)).to.equal(400);
    expect(body.error.code).to.equal('invalid_camera_id');
    const raw = await fetch(`${daemon.url}/api/classify?videoname=${'v'.repeat(300)}.mp4`, {
      method: 'POST', headers: { ...daemon.auth(), 'content-type': 'video/mp4' }, body: fs.readFileSync(clip),
    });
    const rawBody = (await raw.json()) as ErrorBody;
    expect(raw.status, JSON.stringify(rawBody)).to.equal(400);
    expect(rawBody.error.code).to.equal('invalid_videoname');
    expectNothingLeft();
  });

  it('tells a form with too many file parts so, not that it is too large', async () => {
    const form = new FormData();
    for (let i = 0; i < 6; i++) form.append(i === 0 ? 'video' : `extra${i}`, new Blob([Buffer.alloc(170 * 1024, i)]), `part${i}.mp4`);
    const { status, body } = await postForm(`${daemon.url}/api/classify`, daemon.auth(), form);
    expect(status, JSON.stringify(body)).to.equal(400);
    expect(body.error.code).to.equal('bad_multipart');
    expect(body.error.message).to.match(/more than 4 file parts/);
    expect(body.error.message).to.not.match(/larger than/);
    expectNothingLeft();
  });

  it('tells a form whose text fields are huge that its fields are too large, not the upload', async () => {
    const form = new FormData();
    form.append('metadata', JSON.stringify({ note: 'x'.repeat(2 * 1024 * 1024) }));
    form.append('video', new Blob([fs.readFileSync(clip)]), 'clip.mp4');
    const { status, body } = await postForm(`${daemon.url}/api/classify`, daemon.auth(), form);
    expect(status, JSON.stringify(body)).to.equal(413);
    expect(body.error.code).to.equal('fields_too_large');
    expect(body.error.message).to.match(/text fields/);
    expect(body.error.message).to.not.match(/max_upload_bytes/);
    expectNothingLeft();
  });

  it('tells a form with too many text fields so', async () => {
    const form = new FormData();
    for (let i = 0; i < 100; i++) form.append(`f${i}`, 'x');
    form.append('video', new Blob([fs.readFileSync(clip)]), 'clip.mp4');
    const { status, body } = await postForm(`${daemon.url}/api/classify`, daemon.auth(), form);
    expect(status, JSON.stringify(body)).to.equal(400);
    expect(body.error.code).to.equal('bad_multipart');
    expect(body.error.message).to.match(/text fields/);
    expectNothingLeft();
    await expectStillServing();
  });

  it('removes the clip again when its row cannot be written (the database held locked by another process)', async function () {
    // a second process holds the write lock past the daemon's busy timeout (5 s)
    const holder = await new Promise<sqlite3.Database>((resolve, reject) => {
      const db = new sqlite3.Database(path.join(daemon.dataDir, 'vigil.db'), (err) => (err ? reject(err) : resolve(db)));
    });
    const exec = (sql: string) => new Promise<void>((resolve, reject) => holder.exec(sql, (err) => (err ? reject(err) : resolve())));
    await exec('BEGIN IMMEDIATE');
    try {
      const res = await daemon.upload(clip);
      expect(res.status, await res.clone().text()).to.equal(503);
      expect(((await res.json()) as ErrorBody).error.code).to.equal('busy');
      expectNothingLeft();
    } finally {
      await exec('ROLLBACK');
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
    await expectStillServing();
  });
});
