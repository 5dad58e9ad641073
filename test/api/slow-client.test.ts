// Slow and stalled clients on real sockets against the real daemon: a body that
// stops half way, headers that never end. Each is answered 408 and closed after
// the configured silence, what it wrote is removed, and it is counted; a sync
// wait after a complete body is not cut.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { panClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';

interface Outcome {
  status: number;
  body: string;
}

/** Sends the headers and `sent` bytes of a body of `declared` bytes, then nothing; resolves when the server answers or closes. */
function stalledBody(daemon: TestDaemon, contentType: string, bytes: Buffer, declared: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = http.request(`${daemon.url}/api/classify`, {
      method: 'POST',
      agent: false,
      headers: { ...daemon.auth(), 'content-type': contentType, 'content-length': declared },
    }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.write(bytes);
  });
}

async function stalledCount(daemon: TestDaemon, phase: string): Promise<number> {
  const text = await (await fetch(`${daemon.url}/metrics`)).text();
  const m = new RegExp(`^vigil_requests_stalled_total\\{phase="${phase}"\\} (\\d+)$`, 'm').exec(text);
  expect(m, 'vigil_requests_stalled_total').to.not.equal(null);
  return Number(m![1]);
}

describe('slow and stalled clients', function () {
  let dir: string;
  let clip: string;
  let daemon: TestDaemon;

  before(async () => {
    dir = tempDir();
    clip = await panClip('squat.png', path.join(dir, 'squat.mp4'), 8, 15, 960);
    daemon = await new TestDaemon({ config: { server: { body_idle_timeout_s: 1, headers_timeout_s: 1 } } }).start();
  });
  after(async () => {
    await daemon?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const incoming = () => fs.readdirSync(path.join(daemon.dataDir, 'incoming'));

  it('answers 408 to a raw body that stops half way, closes it and removes what it wrote', async () => {
    const bytes = fs.readFileSync(clip);
    const outcome = await stalledBody(daemon, 'video/mp4', bytes.subarray(0, bytes.length >> 1), bytes.length);
    expect(outcome.status, outcome.body).to.equal(408);
    expect((JSON.parse(outcome.body) as { error: { code: string; message: string } }).error.message).to.match(/body_idle_timeout_s/);
    await daemon.waitForLog((r) => r.msg === 'request body stalled; connection closed');
    const deadline = Date.now() + 10_000;
    while (incoming().length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(incoming()).to.deep.equal([]);
    expect(await stalledCount(daemon, 'body')).to.equal(1);
  });

  it('does the same for a multipart body', async () => {
    const form = new FormData();
    form.append('video', new Blob([fs.readFileSync(clip)]), 'squat.mp4');
    const request = new Request('http://x/', { method: 'POST', body: form });
    const bytes = Buffer.from(await request.arrayBuffer());
    const outcome = await stalledBody(daemon, request.headers.get('content-type')!, bytes.subarray(0, bytes.length >> 1), bytes.length);
    expect(outcome.status, outcome.body).to.equal(408);
    const deadline = Date.now() + 10_000;
    while (incoming().length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(incoming()).to.deep.equal([]);
    expect(await stalledCount(daemon, 'body')).to.equal(2);
  });

  it('answers 408 to headers that never end, and closes the connection', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(daemon.port, '127.0.0.1', () => socket.write(`POST /api/classify HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${daemon.tenantKey}\r\n`));
      let text = '';
      socket.on('data', (d) => (text += d));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).to.match(/^HTTP\/1\.1 408/);
    expect(answer).to.match(/headers_timeout_s/);
    expect(await stalledCount(daemon, 'headers')).to.equal(1);
  });

  it('does not cut a sync wait that follows a complete body', async () => {
    await daemon.waitForLog((r) => r.msg === 'model pack active', 60_000);
    const res = await daemon.upload(clip, {}, '?sync=true');
    expect(res.status, await res.clone().text()).to.equal(200);
    const result = (await res.json()) as { status: { classify: string; video: string } };
    expect(result.status).to.deep.equal({ classify: 'done', video: 'done' });
    expect(await stalledCount(daemon, 'body')).to.equal(2);
  });
});
