// Watch folders end to end: the real daemon polls a folder, takes a clip only
// once it is completely written (here: written slowly, in pieces), classifies
// it like an upload and removes it; a file that is not a video is moved aside
// with its reason; uploads still in progress are left alone.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { stillClip, tempDir } from '../support/clips.js';
import { TestDaemon, type LogRecord } from '../support/daemon.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitUntil(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(100);
  }
}

describe('watch folder', function () {
  let dir: string;
  let folder: string;
  let clip: string;
  let daemon: TestDaemon;
  const accepted = (file: string) => (r: LogRecord) => r.msg === 'watch folder clip accepted' && r.file === file;

  before(async () => {
    dir = tempDir('vigil-watch-');
    folder = path.join(dir, 'nvr-upload');
    fs.mkdirSync(folder);
    clip = await stillClip('squat.png', path.join(dir, 'squat.mp4'), 3, 10, 320);
    daemon = await new TestDaemon({
      config: { watch_folders: [{ path: folder, camera_id: 'porch', settle_s: 1.5 }] },
    }).start();
  });

  after(async () => {
    await daemon?.cleanup();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('takes a slowly written clip only once it is complete, classifies it and removes it', async () => {
    const bytes = fs.readFileSync(clip);
    const target = path.join(folder, 'alarm-0001.mp4');
    // written in 6 pieces with pauses shorter than settle_s, like a slow FTP upload
    const fd = fs.openSync(target, 'w');
    const piece = Math.ceil(bytes.length / 6);
    for (let offset = 0; offset < bytes.length; offset += piece) {
      fs.writeSync(fd, bytes, offset, Math.min(piece, bytes.length - offset));
      fs.fsyncSync(fd);
      await sleep(700);
      expect(daemon.logs.some(accepted('alarm-0001.mp4')), 'taken while still being written').to.equal(false);
    }
    fs.closeSync(fd);

    const record = await daemon.waitForLog(accepted('alarm-0001.mp4'));
    const result = await daemon.waitForResult(String(record.id));
    expect(result.camera_id).to.equal('porch');
    expect(result.tenant).to.equal('tenant-a');
    expect(result.video.videoname).to.equal('alarm-0001.mp4');
    expect(result.video.filesize).to.equal(bytes.length);
    expect(result.error_code, result.error_msg).to.not.be.oneOf([1001, 1002, 3001]);
    await waitUntil('the clip leaves the folder', () => !fs.existsSync(target));
    expect(daemon.logs.filter(accepted('alarm-0001.mp4'))).to.have.length(1);
  });

  it('moves a file that is not a video aside with the reason, and leaves uploads in progress alone', async () => {
    const inProgress = path.join(folder, 'alarm-0002.mp4.part');
    fs.writeFileSync(inProgress, fs.readFileSync(clip).subarray(0, 1000));
    const notes = path.join(folder, 'notes.txt');
    fs.writeFileSync(notes, 'motion detected on channel 3\n');
    const rejected = path.join(folder, 'rejected', 'notes.txt');
    await waitUntil('the text file is moved aside', () => fs.existsSync(`${rejected}.reason.txt`));
    expect(fs.existsSync(notes)).to.equal(false);
    expect(fs.readFileSync(rejected, 'utf8')).to.equal('motion detected on channel 3\n');
    expect(fs.readFileSync(`${rejected}.reason.txt`, 'utf8')).to.match(/notes\.txt was not ingested: .*(not a readable video|no video stream|still image)/);
    expect(daemon.logs.some(accepted('notes.txt'))).to.equal(false);
    // the .part file was older than settle_s when the text file was handled, and is still there
    expect(fs.existsSync(inProgress)).to.equal(true);
    expect(daemon.logs.some(accepted('alarm-0002.mp4.part'))).to.equal(false);
  });
});
