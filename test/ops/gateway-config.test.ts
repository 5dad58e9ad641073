// The installer's config file (config/gateway.example.yaml) is valid, shows
// every key of the schema, and a daemon given a bad config refuses to start
// with exit code 78 (which the unit's RestartPreventExitStatus relies on).
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import YAML from 'yaml';
import { loadConfig, validateConfig } from '../../runtime/config/load.js';
import { tempDir } from '../support/clips.js';
import { PROJECT_ROOT } from '../support/paths.js';

const run = promisify(execFile);
const CLI = path.join(PROJECT_ROOT, 'dist/runtime/cli.js');
const EXAMPLE = path.join(PROJECT_ROOT, 'config', 'gateway.example.yaml');

/** Dotted paths of every leaf (a list counts as one leaf). */
function leafPaths(value: unknown, prefix = ''): string[] {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return Object.entries(value).flatMap(([k, v]) => leafPaths(v, prefix ? `${prefix}.${k}` : k));
  }
  return [prefix];
}

describe('ops: the gateway config file', () => {
  it('passes `vigil config check`', async () => {
    const { stdout } = await run(process.execPath, [CLI, 'config', 'check', EXAMPLE], { env: { ...process.env, ...noVigilEnv() } });
    expect(stdout).to.match(/valid/);
  });

  it('shows every key of the schema', () => {
    const shown = new Set(leafPaths(YAML.parse(fs.readFileSync(EXAMPLE, 'utf8'))));
    const missing = leafPaths(validateConfig({})).filter((p) => !shown.has(p));
    expect(missing, 'keys missing from config/gateway.example.yaml').to.deep.equal([]);
  });

  it('keeps the data where the unit lets the service write', () => {
    const config = loadConfig(EXAMPLE, {});
    expect(config.storage.data_dir).to.equal('/var/lib/vigil');
    const unit = fs.readFileSync(path.join(PROJECT_ROOT, 'systemd', 'vigil.service'), 'utf8');
    expect(unit).to.match(/^ReadWritePaths=@STATEDIR@$/m);
    expect(unit).to.match(/^WorkingDirectory=@STATEDIR@$/m);
  });

  it('`vigil serve` with a bad config exits 78 and names the key', async () => {
    const dir = tempDir();
    try {
      const bad = path.join(dir, 'bad.yaml');
      fs.writeFileSync(bad, `storage:\n  data_dir: ${JSON.stringify(path.join(dir, 'data'))}\nserver:\n  port: 70000\nlog:\n  colour: red\n`);
      const child = spawn(process.execPath, [CLI, 'serve', '--config', bad], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...noVigilEnv() } });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).to.equal(78);
      expect(stderr).to.match(/server\.port/);
      expect(stderr).to.match(/log\.colour: unknown key/);
      expect(fs.existsSync(path.join(dir, 'data')), 'nothing is created before the config is valid').to.equal(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** VIGIL_* variables of the test runner's environment, blanked so they cannot change the outcome. */
function noVigilEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.keys(process.env).filter((k) => k.startsWith('VIGIL_')).map((k) => [k, undefined]));
}
