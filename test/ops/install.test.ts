// `make install` into a temporary root (DESTDIR): the expected tree, a unit
// that systemd-analyze accepts, an installed runtime that runs on its own, and
// `make uninstall` keeping config and data unless PURGE=1.
import { execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { tempDir } from '../support/clips.js';
import { freePort } from '../support/daemon.js';
import { PROJECT_ROOT } from '../support/paths.js';

const run = promisify(execFile);
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

function make(target: string, root: string, extra: string[] = []) {
  // NO_BUILD: the suite runs on a fresh build; DESTDIR keeps it away from the real system
  return run('make', ['--no-print-directory', target, `DESTDIR=${root}`, 'NO_BUILD=1', ...extra], {
    cwd: PROJECT_ROOT,
    maxBuffer: 1 << 26,
  });
}

const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe('ops: make install into DESTDIR', function () {
  this.timeout(600_000);
  let root: string;
  const at = (p: string) => path.join(root, p);

  before(async function () {
    if (!has('make')) this.skip();
    root = tempDir('vigil-destdir-');
    await make('install', root);
  });
  after(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('lays out runtime, config, data folder, unit, udev rule and command', () => {
    for (const file of [
      'opt/vigil/dist/runtime/cli.js',
      'opt/vigil/package.json',
      'opt/vigil/config/default.yaml',
      'opt/vigil/node_modules/koa/package.json',
      'opt/vigil/node_modules/sqlite3/package.json',
      'etc/vigil/gateway.yaml',
      'etc/vigil/gateway.example.yaml',
      'etc/systemd/system/vigil.service',
      'etc/udev/rules.d/99-vigil-coral.rules',
      'usr/local/bin/vigil',
    ]) {
      expect(fs.statSync(at(file)).isFile(), file).to.equal(true);
    }
    expect(fs.readdirSync(at('opt/vigil/models')).length, 'model pack manifests').to.be.greaterThan(0);
    expect(fs.existsSync(at('opt/vigil/dist/test')), 'no tests in the install').to.equal(false);
    expect(fs.existsSync(at('opt/vigil/node_modules/mocha')), 'no dev dependencies in the install').to.equal(false);
    expect(mode(at('var/lib/vigil'))).to.equal(0o750);
    expect(mode(at('etc/vigil/secrets'))).to.equal(0o750);
    expect(mode(at('etc/vigil/gateway.yaml'))).to.equal(0o640);
    expect(mode(at('usr/local/bin/vigil')) & 0o111).to.equal(0o111);
  });

  it('writes the unit with the install paths, never the DESTDIR', () => {
    const unit = fs.readFileSync(at('etc/systemd/system/vigil.service'), 'utf8');
    expect(unit).to.not.match(/@[A-Z]+@/);
    expect(unit).to.not.include(root);
    expect(unit).to.match(/^ExecStart=\/\S+ \/opt\/vigil\/dist\/runtime\/cli\.js serve --config \/etc\/vigil\/gateway\.yaml$/m);
    expect(unit).to.match(/^ReadWritePaths=\/var\/lib\/vigil$/m);
    expect(fs.readFileSync(at('usr/local/bin/vigil'), 'utf8')).to.include('/opt/vigil/dist/runtime/cli.js');
  });

  it('the unit passes systemd-analyze verify and rates OK or better in systemd-analyze security', async function () {
    if (!has('systemd-analyze')) {
      console.log('      (skipped: systemd-analyze is missing; .ci/run installs Debian\'s systemd package)');
      this.skip();
    }
    const unit = at('etc/systemd/system/vigil.service');
    const verify = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
    expect(verify.status, verify.stderr).to.equal(0);
    expect(verify.stderr.trim(), 'systemd-analyze verify warnings').to.equal('');
    const security = spawnSync('systemd-analyze', ['security', '--offline=yes', unit], { encoding: 'utf8' });
    const score = /Overall exposure level for vigil\.service: (\d+\.\d)/.exec(security.stdout);
    expect(score, security.stdout + security.stderr).to.not.equal(null);
    console.log(`      systemd-analyze security: exposure ${score![1]}`);
    expect(Number(score![1]), 'exposure score (below 5.0 is "OK")').to.be.below(5);
  });

  it('the installed runtime runs on its own (its config, its node_modules)', async () => {
    const cli = at('opt/vigil/dist/runtime/cli.js');
    const check = await run(process.execPath, [cli, 'config', 'check', at('etc/vigil/gateway.yaml')]);
    expect(check.stdout).to.match(/valid/);
    const port = await freePort();
    const child = spawn(process.execPath, [cli, 'serve', '--config', at('etc/vigil/gateway.yaml')], {
      cwd: at('var/lib/vigil'),
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        VIGIL_STORAGE__DATA_DIR: at('var/lib/vigil'),
        VIGIL_SERVER__HOST: '127.0.0.1',
        VIGIL_SERVER__PORT: String(port),
        VIGIL_MODELS__AUTO_PULL: 'false', // no network here
      },
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    try {
      const deadline = Date.now() + 60_000;
      let status = 0;
      while (Date.now() < deadline && child.exitCode === null) {
        status = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status, () => 0);
        if (status === 200) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(status, stderr).to.equal(200);
      expect(fs.existsSync(at('var/lib/vigil/vigil.db')), 'database in the data folder').to.equal(true);
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    }
  });

  it('make uninstall keeps config and data; PURGE=1 removes them', async () => {
    fs.writeFileSync(at('etc/vigil/gateway.yaml'), fs.readFileSync(at('etc/vigil/gateway.yaml'), 'utf8') + '# edited\n');
    await make('install', root); // a second install never overwrites the edited config
    expect(fs.readFileSync(at('etc/vigil/gateway.yaml'), 'utf8')).to.match(/# edited\n$/);

    await make('uninstall', root);
    for (const gone of ['opt/vigil', 'etc/systemd/system/vigil.service', 'etc/udev/rules.d/99-vigil-coral.rules', 'usr/local/bin/vigil']) {
      expect(fs.existsSync(at(gone)), gone).to.equal(false);
    }
    expect(fs.existsSync(at('etc/vigil/gateway.yaml'))).to.equal(true);
    expect(fs.existsSync(at('var/lib/vigil'))).to.equal(true);

    await make('uninstall', root, ['PURGE=1']);
    expect(fs.existsSync(at('etc/vigil'))).to.equal(false);
    expect(fs.existsSync(at('var/lib/vigil'))).to.equal(false);
  });
});
