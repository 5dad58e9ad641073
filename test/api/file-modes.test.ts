// What the daemon creates in its data folder is private to its user by default,
// whatever the umask of the shell that started it.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { stillClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe('data folder permissions', function () {
  let dir: string;
  let daemon: TestDaemon;

  before(async () => {
    dir = tempDir();
  });
  after(async () => {
    await daemon?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('creates folders 0700 and files 0600 under a permissive umask', async () => {
    const clip = await stillClip('grace_hopper.png', path.join(dir, 'grace.mp4'), 1, 10, 160);
    const dataDir = path.join(dir, 'data'); // created by the daemon
    // the shell's umask 022 would make everything world-readable
    const previous = process.umask(0o022);
    try {
      daemon = await new TestDaemon({ dataDir, config: { models: { auto_pull: false } } }).start();
    } finally {
      process.umask(previous);
    }
    const id = await daemon.submit(clip);
    const result = await daemon.waitForResult(id);

    expect(modeOf(dataDir), 'data folder').to.equal(0o700);
    for (const folder of ['media', 'incoming', path.join('media', id)]) expect(modeOf(path.join(dataDir, folder)), folder).to.equal(0o700);
    for (const file of ['vigil.db', 'vigil.lock', path.join('media', id, result.video.filename)]) {
      expect(modeOf(path.join(dataDir, file)), file).to.equal(0o600);
    }
  });
});
