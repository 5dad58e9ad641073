// `vigil classify FILE`: one clip, no daemon, the result JSON on stdout.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { panClip, tempDir, walkerClip } from '../support/clips.js';
import { PROJECT_ROOT, SHARED_MODELS } from '../support/paths.js';

const run = promisify(execFile);

describe('vigil classify', function () {
  this.timeout(120_000);

  it('classifies a clip without a daemon, pulling the pack on first use', async () => {
    const dir = tempDir('vigil-classify-');
    const config = path.join(dir, 'vigil.yaml');
    fs.writeFileSync(config, `storage:\n  data_dir: ${JSON.stringify(path.join(dir, 'data'))}\nmodels:\n  source: ${JSON.stringify(SHARED_MODELS)}\n`);
    const clip = await panClip('grace_hopper.png', path.join(dir, 'grace.mp4'), 3);
    const { stdout, stderr } = await run(process.execPath, [path.join(PROJECT_ROOT, 'dist/runtime/cli.js'), 'classify', clip, '--config', config], { cwd: PROJECT_ROOT });
    const result = JSON.parse(stdout) as Record<string, any>;
    expect(result.file).to.equal(clip);
    expect(result.model).to.equal('default');
    expect(result.labels).to.include('person');
    expect(result.risk).to.be.oneOf(['danger', 'intrusion']);
    expect(result.stats.framesInferred).to.be.greaterThan(0);
    expect(stderr).to.match(/model pack active/); // logs go to stderr, stdout stays JSON
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('exits 78 on a bad config at once, leaving no interpreter worker behind (it starts before the config is read)', async () => {
    const dir = tempDir('vigil-classify-');
    const config = path.join(dir, 'vigil.yaml');
    fs.writeFileSync(config, 'storage: [not, a, map]\n');
    const started = performance.now();
    const failed = await run(process.execPath, [path.join(PROJECT_ROOT, 'dist/runtime/cli.js'), 'classify', path.join(dir, 'any.mp4'), '--config', config], { cwd: PROJECT_ROOT }).then(
      () => { throw new Error('vigil classify succeeded on a bad config'); },
      (err: { code: number; stderr: string }) => err,
    );
    expect(failed.code).to.equal(78);
    expect(failed.stderr).to.match(/invalid configuration/);
    expect(performance.now() - started, 'ms: it did not wait for the worker').to.be.below(10_000);
    // the worker the command forked first is gone with it, not left an orphan
    const workers = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
      try {
        const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === 1 && fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(path.join(PROJECT_ROOT, 'dist/runtime/inference/worker.js'));
      } catch {
        return false;
      }
    });
    expect(workers).to.deep.equal([]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("applies a camera's zones with --camera ID: the same clip is an intrusion without it and safe with a zone away from the walker", async () => {
    const dir = tempDir('vigil-classify-');
    const config = path.join(dir, 'vigil.yaml');
    const far = [[0, 0], [1, 0], [1, 0.5], [0, 0.5]]; // the walker's feet are at the bottom of the frame
    fs.writeFileSync(config, JSON.stringify({
      storage: { data_dir: path.join(dir, 'data') },
      models: { source: SHARED_MODELS },
      cameras: [{ id: 'far-zone', zones: [{ name: 'far', points: far }] }],
    }));
    const clip = await walkerClip('grace_hopper.png', path.join(dir, 'walker.mp4'));
    const cli = (...args: string[]) => run(process.execPath, [path.join(PROJECT_ROOT, 'dist/runtime/cli.js'), 'classify', clip, '--config', config, ...args], { cwd: PROJECT_ROOT });
    try {
      const plain = JSON.parse((await cli()).stdout) as Record<string, any>;
      expect(plain.risk).to.equal('intrusion');
      expect(plain).to.not.have.property('camera_id');
      const zoned = JSON.parse((await cli('--camera', 'far-zone')).stdout) as Record<string, any>;
      expect(zoned.camera_id).to.equal('far-zone');
      expect(zoned.labels).to.include('person').and.not.include('intrusion');
      expect(zoned.risk).to.equal('safe');
      const unknown = await cli('--camera', 'nope').then(
        () => { throw new Error('an unknown camera was accepted'); },
        (err: { code: number; stderr: string }) => err,
      );
      expect(unknown.code).to.equal(1);
      expect(unknown.stderr).to.include('no camera "nope" in cameras: of the config (configured: far-zone)');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
