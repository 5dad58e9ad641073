// `vigil doctor` on a real data folder: it names what works and, for what does
// not, what to fix; its exit code says whether all is well.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import YAML from 'yaml';
import { MjpegCamera, SilentCamera } from '../support/cameras.js';
import { tempDir } from '../support/clips.js';
import { freePort } from '../support/daemon.js';
import { PROJECT_ROOT, SHARED_MODELS } from '../support/paths.js';

const run = promisify(execFile);
const cli = path.join(PROJECT_ROOT, 'dist/runtime/cli.js');

async function doctor(config: string): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run(process.execPath, [cli, 'doctor', '--config', config], { cwd: PROJECT_ROOT });
    return { code: 0, stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, stdout: e.stdout };
  }
}

describe('vigil doctor', function () {
  this.timeout(120_000);

  it('says what to fix: no model pack, a webhook endpoint that does not answer; then all ok', async () => {
    const dir = tempDir('vigil-doctor-');
    const receiver = http.createServer((_, res) => res.end('ok'));
    const openPort = await freePort();
    await new Promise<void>((r) => receiver.listen(openPort, '127.0.0.1', r));
    const closedPort = await freePort();
    const config = path.join(dir, 'vigil.yaml');
    const base = {
      storage: { data_dir: path.join(dir, 'data') },
      models: { source: SHARED_MODELS, pack: 'tiny' },
      retention: { min_free_bytes: 1024 },
      tenants: [{ id: 'site', api_keys: ['a-key-of-sixteen-chars'] }],
      integrations: [{ tenant: 'site', flow: 'default', url: `http://127.0.0.1:${openPort}/hook` }],
    };
    try {
      fs.writeFileSync(config, YAML.stringify({ ...base, integrations: [...base.integrations, { tenant: 'site', flow: 'default', url: `http://127.0.0.1:${closedPort}/hook` }] }));
      const first = await doctor(config);
      expect(first.code).to.equal(1);
      expect(first.stdout).to.match(/^ok {2}\s*ffmpeg\s+ffmpeg version.*; started by posix_spawn$/m);
      expect(first.stdout).to.match(/^FAIL\s+model\s+no model pack is active\n\s+-> run `vigil models pull`/m);
      expect(first.stdout).to.match(new RegExp(`^ok\\s+webhooks\\s+http://127\\.0\\.0\\.1:${openPort} reachable`, 'm'));
      expect(first.stdout).to.match(new RegExp(`^FAIL\\s+webhooks\\s+http://127\\.0\\.0\\.1:${closedPort} unreachable \\(ECONNREFUSED\\)`, 'm'));

      fs.writeFileSync(config, YAML.stringify(base));
      await run(process.execPath, [cli, 'models', 'pull', '--config', config], { cwd: PROJECT_ROOT });
      const second = await doctor(config);
      expect(second.stdout).to.match(/^ok\s+model\s+tiny@1\.0\.0 loads and runs on cpu/m);
      expect(second.stdout).to.match(/^ok\s+disk\s+/m);
      expect(second.stdout).to.match(/^ok\s+memory\s+free C heap memory is given back once idle/m);
      expect(second.code, second.stdout).to.equal(0);
    } finally {
      receiver.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checks each camera it records from: reachable, stream readable, within its timeout_s; with what to fix', async () => {
    const dir = tempDir('vigil-doctor-cameras-');
    const mjpeg = await new MjpegCamera('installer', 'the-right-one').start(dir);
    const silent = await new SilentCamera().start();
    const closedPort = await freePort();
    const config = path.join(dir, 'vigil.yaml');
    fs.writeFileSync(config, YAML.stringify({
      storage: { data_dir: path.join(dir, 'data') },
      retention: { min_free_bytes: 1024 },
      cameras: [
        { id: 'drive', url: mjpeg.url(), username: 'installer', password: 'the-right-one', timeout_s: 10 },
        { id: 'gone', url: `rtsp://127.0.0.1:${closedPort}/cam`, timeout_s: 2 },
        { id: 'porch', url: mjpeg.url(), username: 'installer', password: 'a-wrong-password', timeout_s: 5 },
        { id: 'hung', url: `rtsp://127.0.0.1:${silent.port}/cam`, timeout_s: 2 },
        { id: 'posting-only' },
      ],
    }));
    try {
      const started = Date.now();
      const { code, stdout } = await doctor(config);
      expect(code).to.equal(1);
      const lines = stdout.split('\n').filter((l) => /^(ok|FAIL)\s+camera\s/.test(l));
      expect(lines, stdout).to.have.length(4); // a camera that only posts clips has nothing to check
      expect(stdout).to.match(/^ok\s+camera\s+drive \(http:\/\/127\.0\.0\.1:\d+\/video\.mjpg\): reachable, mjpeg \d+x\d+ readable in [\d.]+ s \(timeout_s 10 s\)$/m, stdout);
      expect(stdout).to.match(new RegExp(`^FAIL\\s+camera\\s+gone \\(rtsp://127\\.0\\.0\\.1:${closedPort}/cam\\): unreachable \\(ECONNREFUSED\\)\\n\\s+-> check that the camera is powered`, 'm'));
      expect(stdout).to.match(/^FAIL\s+camera\s+porch \(http:\/\/127\.0\.0\.1:\d+\/video\.mjpg\): reachable, stream not readable: .*401.*\n\s+-> check the camera's username and password/m);
      expect(stdout).to.match(/^FAIL\s+camera\s+hung \(rtsp:\/\/127\.0\.0\.1:\d+\/cam\): reachable, but no video within timeout_s \(2 s\)\n\s+-> check the stream path/m);
      expect(stdout).to.not.include('a-wrong-password').and.not.include('the-right-one');
      // the cameras are checked at once, each bounded by its own timeout_s
      expect(Date.now() - started).to.be.below(60_000);
    } finally {
      await mjpeg.stop();
      await silent.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
