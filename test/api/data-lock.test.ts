// Two daemons on one data folder: the second exits at once with a clear message
// and touches nothing, whether it asks for another port or the same one, while
// the first keeps an upload in progress and its stored media.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect } from 'chai';
import { stillClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';

describe('one daemon per data folder', function () {
  let dir: string;
  let clip: string;
  let first: TestDaemon;

  before(async () => {
    dir = tempDir();
    clip = await stillClip('grace_hopper.png', path.join(dir, 'grace.mp4'), 1, 10, 160);
    first = await new TestDaemon({ config: { models: { auto_pull: false } } }).start();
  });
  after(async () => {
    await first?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a second daemon on the same folder before it touches anything; the first keeps its upload and media', async () => {
    const id = await first.submit(clip);
    await first.waitForResult(id);

    // an upload in progress on the first daemon: half the body sent, the rest held back
    const bytes = fs.readFileSync(clip);
    const half = Math.floor(bytes.length / 2);
    let answer!: Promise<{ status: number; body: string }>;
    const req = http.request(`${first.url}/api/classify`, {
      method: 'POST',
      agent: false,
      headers: { ...first.auth(), 'content-type': 'video/mp4', 'content-length': bytes.length },
    });
    answer = new Promise((resolve, reject) => {
      req.on('response', (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
    });
    req.write(bytes.subarray(0, half));
    const incoming = path.join(first.dataDir, 'incoming');
    const deadline = Date.now() + 10_000;
    while (fs.readdirSync(incoming).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(fs.readdirSync(incoming), 'the upload is being received').to.have.length(1);

    for (const port of [0, first.port]) {
      const second = new TestDaemon({ dataDir: first.dataDir, config: { models: { auto_pull: false } } });
      second.port = port;
      let failure: Error | undefined;
      await second.start().catch((err: Error) => (failure = err));
      await second.kill(); // only running when the lock failed
      expect(failure, `a second daemon (port ${port || 'new'}) started`).to.be.instanceOf(Error);
      expect(failure!.message).to.match(/is in use by another vigil daemon/);
      expect(second.logs.some((r) => r.msg === 'not started: another daemon uses the data folder')).to.equal(true);
      expect(second.logs.some((r) => r.msg === 'start-up reconciliation')).to.equal(false);
      expect(fs.readdirSync(incoming), 'the first daemon\'s upload is untouched').to.have.length(1);
      expect(fs.existsSync(path.join(first.dataDir, 'media', id))).to.equal(true);
    }

    req.end(bytes.subarray(half));
    const done = await answer;
    expect(done.status, done.body).to.equal(202);
    await first.waitForResult((JSON.parse(done.body) as { id: string }).id);
    expect((await fetch(`${first.url}/api/result/${id}`, { headers: first.auth() })).status).to.equal(200);
  });

  it('takes the folder over at once after the holder was killed with kill -9', async () => {
    await first.kill();
    await first.start();
    expect((await fetch(`${first.url}/healthz`)).status).to.equal(200);
  });
});
