// kill -9 while a highlight renders, against the real daemon and models: the
// give-up after jobs.max_attempts keeps the classification (only the render is
// given up), and the render's leftovers are removed at the next start.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { panClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${what}: not seen within ${timeoutMs} ms`);
}

describe('kill -9 during the highlight render', function () {
  let dir: string;
  let clip: string;
  let daemon: TestDaemon;

  before(async () => {
    dir = tempDir();
    // 10 s of 1280 px: the render lasts long enough to be caught mid-way
    clip = await panClip('squat.png', path.join(dir, 'squat.mp4'), 10, 15, 1280);
    daemon = await new TestDaemon({ config: { jobs: { concurrency: 1, max_attempts: 1 } } }).start();
  });
  after(async () => {
    await daemon?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('gives up only the render, keeps the classification, and removes the render leftovers', async () => {
    const id = await daemon.submit(clip);
    const folder = path.join(daemon.dataDir, 'media', id);
    // the encoder is writing its output: the job is in its render
    await until('highlight.mp4.part', () => (fs.existsSync(path.join(folder, 'highlight.mp4.part')) ? true : undefined));
    const classified = (await (await fetch(`${daemon.url}/api/result/${id}`, { headers: daemon.auth() })).json()) as Record<string, any>;
    expect(classified.status.classify).to.equal('done');
    expect(classified.error_code).to.equal(0);
    await daemon.kill();
    const leftovers = fs.readdirSync(folder).filter((n) => n.startsWith('highlight.mp4.'));
    expect(leftovers, 'what the kill left').to.not.deep.equal([]);

    await daemon.start(); // attempt 2 > max_attempts 1: given up
    const result = await daemon.waitForResult(id);
    expect(result.error_code, result.error_msg).to.equal(0);
    expect(result.result).to.equal('classified');
    expect(result.status).to.deep.equal({ classify: 'done', video: 'error' });
    expect(result.risk).to.equal(classified.risk);
    expect(result.labels).to.deep.equal(classified.labels);
    expect(result.scores).to.deep.equal(classified.scores);
    expect(result.model).to.equal(classified.model);
    const annotate = await fetch(`${daemon.url}/api/video/annotate/${id}`, { headers: daemon.auth() });
    expect(annotate.status).to.equal(404);
    expect(((await annotate.json()) as { error: { message: string } }).error.message).to.match(/given up/);
    expect(fs.readdirSync(folder), 'only the clip stays').to.deep.equal([result.video.filename]);
    expect(daemon.logs.some((r) => r.msg === 'start-up reconciliation' && (r.leftover_files_removed as number) >= 1)).to.equal(true);
  });
});
