// `make run` leaves a `vigil` command: dist/bin/vigil, linked into a folder on
// PATH when there is one to use (LINKDIR), else the line to type is printed.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { tempDir } from '../support/clips.js';
import { PROJECT_ROOT } from '../support/paths.js';

const run = promisify(execFile);

describe('ops: the vigil command of a checkout', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = tempDir()));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  // -o build: the suite has built dist/ already
  const make = (linkDir: string, pathVar: string) =>
    run('make', ['-s', '-o', 'build', 'vigil-command', `LINKDIR=${linkDir}`], { cwd: PROJECT_ROOT, env: { ...process.env, PATH: pathVar } });

  it('links vigil into a LINKDIR on PATH, and the command runs', async () => {
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    const PATH = `${bin}:${process.env.PATH}`;
    const { stdout } = await make(bin, PATH);
    expect(stdout).to.match(/linked .*vigil/);
    const config = path.join(dir, 'ok.yaml');
    fs.writeFileSync(config, 'server:\n  port: 9000\n');
    const checked = await run('vigil', ['config', 'check', config], { env: { ...process.env, PATH } });
    expect(checked.stdout).to.include(`${config}: valid`);
  });

  it('prints the PATH line when LINKDIR is not on PATH', async () => {
    const { stdout } = await make(path.join(dir, 'elsewhere'), process.env.PATH!);
    expect(stdout).to.include(`export PATH="${path.join(PROJECT_ROOT, 'dist/bin')}:$PATH"`);
    expect(fs.existsSync(path.join(dir, 'elsewhere', 'vigil'))).to.equal(false);
  });
});
