// Config validation: every problem is reported with its key path, env
// overrides apply, and the documented default file matches the embedded defaults.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { resolveWatchFolders } from '../../runtime/capture/resolve.js';
import { ConfigError, applyEnvOverrides, loadConfig, validateConfig } from '../../runtime/config/load.js';
import { tempDir } from '../support/clips.js';
import { PROJECT_ROOT } from '../support/paths.js';

const run = promisify(execFile);

function problemsOf(raw: unknown): string[] {
  try {
    validateConfig(raw);
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected the config to be rejected');
}

describe('config', () => {
  it('runs on embedded defaults', () => {
    const config = validateConfig({});
    expect(config.server.host).to.equal('127.0.0.1');
    expect(config.server.port).to.equal(8080);
    expect(config.storage.data_dir).to.equal('data');
    expect(config.storage.database).to.equal('vigil.db');
  });

  it('reports every bad key with its path', () => {
    const problems = problemsOf({
      server: { port: 'eighty', colour: 'blue' },
      tenants: [{ id: 'ok', api_keys: ['short'] }],
      surprise: true,
    });
    expect(problems.some((p) => p.startsWith('server.port:'))).to.equal(true);
    expect(problems).to.include('server.colour: unknown key');
    expect(problems).to.include('surprise: unknown key');
    expect(problems.some((p) => p.startsWith('tenants[0].api_keys[0]:') && /16 characters/.test(p))).to.equal(true);
  });

  it("names a camera's bad masks, zones and label filters by the camera's id and the key", () => {
    const problems = problemsOf({
      cameras: [
        { id: 'yard', masks: [[[0, 0], [1.5, 0], [1, 1]]], zones: [{ name: 'drive', points: [[0, 0], [1, 1]] }] },
        { id: 'gate', labels: { persons: 0.5, person: 2 }, intrusion_labels: ['burglar'] },
      ],
    });
    expect(problems.some((p) => p.startsWith('cameras[0] (yard).masks[0][1][0]:'))).to.equal(true);
    expect(problems).to.include('cameras[0] (yard).zones[0].points: a polygon needs at least 3 points');
    expect(problems.some((p) => p.startsWith('cameras[1] (gate).labels.person'))).to.equal(true);
    expect(problems.some((p) => /^cameras\[1\] \(gate\)\.labels.*persons/.test(p))).to.equal(true);
    expect(problems.some((p) => p.startsWith('cameras[1] (gate).intrusion_labels[0]:'))).to.equal(true);
  });

  it('refuses camera ids of only dots and ids that would share a Home Assistant id, naming both', () => {
    const problems = problemsOf({ cameras: [{ id: '..' }, { id: '.' }, { id: 'a.b' }, { id: 'a_b' }, { id: '.hidden' }] });
    expect(problems.some((p) => p.startsWith('cameras[0]') && /not only dots/.test(p)), problems.join('\n')).to.equal(true);
    expect(problems.some((p) => p.startsWith('cameras[1]') && /not only dots/.test(p))).to.equal(true);
    expect(problems).to.include('cameras[3] (a_b).id: camera ids "a.b" and "a_b" give the same Home Assistant id "a_b": rename one');
    expect(problems.some((p) => p.startsWith('cameras[4]'))).to.equal(false);
  });

  it("refuses a watch folder that names another tenant's camera", () => {
    const config = validateConfig({
      tenants: [{ id: 'a' }, { id: 'b' }],
      cameras: [{ id: 'yard', tenant: 'b' }],
      watch_folders: [{ path: '/srv/a', tenant: 'a', camera_id: 'yard' }, { path: '/srv/b', tenant: 'b', camera_id: 'yard' }],
    });
    expect(() => resolveWatchFolders(config)).to.throw(ConfigError).with.property('problems').that.deep.equals([
      'watch_folders[0].camera_id: camera "yard" belongs to tenant "b", not to the folder\'s tenant "a"',
    ]);
  });

  it("names a camera's bad watch settings by their key", () => {
    const problems = problemsOf({
      cameras: [{ id: 'yard', url: 'rtsp://10.0.0.5/main', watch: { enabled: true, fps: 0, detect_url: 'ftp://x', colour: 1 } }],
    });
    expect(problems.some((p) => p.startsWith('cameras[0] (yard).watch.fps:'))).to.equal(true);
    expect(problems.some((p) => p.startsWith('cameras[0] (yard).watch.detect_url:'))).to.equal(true);
    expect(problems).to.include('cameras[0] (yard).watch.colour: unknown key');
    const related = problemsOf({
      cameras: [
        { id: 'gate', url: 'rtsp://10.0.0.6/main', watch: { enabled: true, post_s: 9, quiet_s: 4 } },
        { id: 'upload-only', watch: { enabled: true } },
      ],
    });
    expect(related).to.include('cameras[0] (gate).watch.post_s: post_s must not be longer than quiet_s');
    expect(related).to.include('cameras[1] (upload-only).watch.enabled: a watched camera needs its url (the record stream)');
    const watch = validateConfig({ cameras: [{ id: 'door', url: 'rtsp://10.0.0.7/main' }] }).cameras[0]!.watch;
    expect(watch).to.deep.include({ enabled: false, fps: 5, pre_s: 3, post_s: 2, quiet_s: 5, max_clip_s: 60, cooldown_s: 10, buffer_dir: '' });
  });

  it('applies VIGIL_SECTION__KEY environment overrides, typed', () => {
    const raw = applyEnvOverrides({ server: { host: '0.0.0.0' } }, { VIGIL_SERVER__PORT: '9091', VIGIL_LOG__LEVEL: 'debug', VIGIL_JOBS__CONCURRENCY: '3' });
    const config = validateConfig(raw);
    expect(config.server).to.include({ host: '0.0.0.0', port: 9091 });
    expect(config.log.level).to.equal('debug');
    expect(config.jobs.concurrency).to.equal(3);
  });

  it('lists the allowed values of enums and unions, with the value given', () => {
    const problems = problemsOf({ log: { level: 'verbose' }, jobs: { concurrency: 'many' } });
    expect(problems).to.include('log.level: expected one of "debug", "info", "warn", "error", got "verbose"');
    expect(problems.find((p) => p.startsWith('jobs.concurrency:'))).to.match(/expected one of "auto", a number, got "many"/);
  });

  it('suggests the nearest key for a misspelt one, at any depth', () => {
    const problems = problemsOf({ jobs: { concurency: 2 }, serevr: {}, tenants: [{ id: 't', api_key: ['x'.repeat(16)] }] });
    expect(problems).to.include('jobs.concurency: unknown key; did you mean jobs.concurrency?');
    expect(problems).to.include('serevr: unknown key; did you mean server?');
    expect(problems).to.include('tenants[0].api_key: unknown key; did you mean tenants[0].api_keys?');
    // nothing near: no guess
    expect(problemsOf({ server: { colour: 1 } })).to.include('server.colour: unknown key');
  });

  it('names the VIGIL_* variable when it is the source of the problem', () => {
    const dir = tempDir();
    try {
      const file = path.join(dir, 'gateway.yaml');
      fs.writeFileSync(file, 'server:\n  host: 0.0.0.0\n');
      let err: ConfigError | undefined;
      try {
        loadConfig(file, { VIGIL_SERVER__PORT: 'eighty', VIGIL_LOG__LEVL: 'debug', VIGIL_LOG__LEVEL: 'loud' });
      } catch (e) {
        err = e as ConfigError;
      }
      expect(err).to.be.instanceOf(ConfigError);
      expect(err!.message).to.include('gateway.yaml and the environment');
      expect(err!.problems.find((p) => p.startsWith('server.port (from VIGIL_SERVER__PORT):'))).to.match(/expected number/);
      expect(err!.problems).to.include('log.levl (from VIGIL_LOG__LEVL): unknown key; did you mean log.level (VIGIL_LOG__LEVEL)?');
      expect(err!.problems.find((p) => p.startsWith('log.level (from VIGIL_LOG__LEVEL):'))).to.include('"warn"');
      // a problem of the file alone is the file's
      expect(() => loadConfig(file, { VIGIL_SERVER__PORT: '-1' })).to.throw(ConfigError, /VIGIL_SERVER__PORT/);
      fs.writeFileSync(file, 'server:\n  port: -1\n');
      expect(() => loadConfig(file, {})).to.throw(ConfigError, /^invalid configuration \([^)]*gateway\.yaml\):\n  - server\.port: /);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the file and the problem for unreadable or malformed files', () => {
    const dir = tempDir();
    try {
      const bad = path.join(dir, 'bad.yaml');
      fs.writeFileSync(bad, 'server: [port: 1\n');
      expect(() => loadConfig(bad, {})).to.throw(ConfigError, /bad\.yaml[\s\S]*not valid YAML/);
      expect(() => loadConfig(path.join(dir, 'missing.yaml'), {})).to.throw(ConfigError, /ENOENT/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('config/default.yaml documents exactly the embedded defaults', () => {
    const file = path.join(PROJECT_ROOT, 'config', 'default.yaml');
    expect(loadConfig(file, {})).to.deep.equal(validateConfig({}));
  });

  it('`vigil config check` accepts a good file and lists the bad keys of a bad one', async () => {
    const dir = tempDir();
    try {
      const good = path.join(dir, 'good.yaml');
      fs.writeFileSync(good, 'server:\n  port: 9000\n');
      const ok = await run(process.execPath, [path.join(PROJECT_ROOT, 'dist/runtime/cli.js'), 'config', 'check', good]);
      expect(ok.stdout).to.match(/valid/);
      const bad = path.join(dir, 'bad.yaml');
      fs.writeFileSync(bad, 'server:\n  port: -1\njobs:\n  concurency: 2\n');
      const err = await run(process.execPath, [path.join(PROJECT_ROOT, 'dist/runtime/cli.js'), 'config', 'check', bad]).then(
        () => { throw new Error('expected a failure'); },
        (e: { code: number; stderr: string }) => e,
      );
      expect(err.code).to.equal(78);
      expect(err.stderr).to.match(/server\.port/);
      expect(err.stderr).to.match(/jobs\.concurency: unknown key/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
