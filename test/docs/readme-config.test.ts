// The README's quick start config is a working file: it loads through the config loader with no
// error, its secrets are the files the quick start's commands write, and with those files in
// place its tenants, admin key and cameras resolve as the daemon resolves them at start.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import YAML from 'yaml';
import { resolveCameras, resolveWatchFolders } from '../../runtime/capture/resolve.js';
import { loadConfig } from '../../runtime/config/load.js';
import { resolveKeys } from '../../runtime/config/secrets.js';
import { silentLogger } from '../../runtime/core/log.js';
import { PROJECT_ROOT } from '../support/paths.js';

/** The text of the README's section under this "## " heading. */
function section(readme: string, heading: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, `the README has a section "${heading}"`).to.be.at.least(0);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The code blocks of a Markdown text in this language. */
function codeBlocks(text: string, language: string): string[] {
  return [...text.matchAll(new RegExp('^```' + language + '\\n([\\s\\S]*?)^```', 'gm'))].map((m) => m[1]);
}

describe("the README's quick start config", () => {
  const readme = fs.readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  const quickStart = section(readme, 'Quick start');
  const [example, ...others] = codeBlocks(quickStart, 'yaml');
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-readme-config-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is the one YAML example of the quick start, and sets most sections', () => {
    expect(example, 'a yaml block in the quick start').to.be.a('string');
    expect(others).to.have.length(0);
    const sections = Object.keys(YAML.parse(example) as object);
    expect(sections).to.include.members(['server', 'storage', 'tenants', 'admin', 'integrations', 'mqtt', 'cameras']);
  });

  it('loads through the config loader with no error, keeping what it sets', () => {
    const file = path.join(dir, 'vigil.yaml');
    fs.writeFileSync(file, example);
    const config = loadConfig(file, {});
    const raw = YAML.parse(example) as { tenants: Array<{ id: string }>; cameras: Array<{ id: string }>; integrations: Array<{ url: string }> };
    expect(config.tenants.map((t) => t.id)).to.deep.equal(raw.tenants.map((t) => t.id));
    expect(config.cameras.map((c) => c.id)).to.deep.equal(raw.cameras.map((c) => c.id));
    expect(config.integrations.map((i) => i.url)).to.deep.equal(raw.integrations.map((i) => i.url));
    expect(config.mqtt.enabled).to.equal(true);
    expect(config.cameras.some((c) => c.watch.enabled)).to.equal(true);
  });

  it("names only secret files the quick start's commands write, and resolves with them in place", () => {
    const file = path.join(dir, 'vigil.yaml');
    fs.writeFileSync(file, example);
    const loaded = loadConfig(file, {});
    const secretFiles = [
      ...loaded.tenants.flatMap((t) => t.api_key_files),
      ...loaded.admin.api_key_files,
      ...(loaded.mqtt.password_file ? [loaded.mqtt.password_file] : []),
      ...loaded.cameras.map((c) => c.password_file).filter(Boolean),
    ];
    expect(secretFiles.length).to.be.at.least(3);
    const commands = codeBlocks(quickStart, 'sh').join('\n');
    for (const secret of secretFiles) {
      expect(path.isAbsolute(secret), `${secret} is relative to the checkout`).to.equal(false);
      expect(commands, `the quick start writes ${secret}`).to.include(`> ${secret}`);
      fs.mkdirSync(path.join(dir, path.dirname(secret)), { recursive: true });
      fs.writeFileSync(path.join(dir, secret), `${path.basename(secret)}-0123456789abcdef0123456789\n`);
    }
    // the daemon reads them relative to its working directory, the checkout; here the temp folder
    const inDir = (p: string) => path.join(dir, p);
    const placed = {
      ...loaded,
      tenants: loaded.tenants.map((t) => ({ ...t, api_key_files: t.api_key_files.map(inDir) })),
      admin: { ...loaded.admin, api_key_files: loaded.admin.api_key_files.map(inDir) },
      cameras: loaded.cameras.map((c) => (c.password_file ? { ...c, password_file: inDir(c.password_file) } : c)),
    };
    const keys = resolveKeys(placed, inDir(placed.storage.data_dir), silentLogger);
    expect([...keys.tenants.values()]).to.deep.equal(loaded.tenants.map((t) => t.id));
    expect(keys.admin.size).to.equal(1);
    expect(fs.existsSync(inDir(path.join(placed.storage.data_dir, 'secrets'))), 'no key generated').to.equal(false);
    const recorded = resolveCameras(placed);
    expect(recorded.map((c) => c.id)).to.deep.equal(loaded.cameras.filter((c) => c.url).map((c) => c.id));
    for (const camera of placed.cameras.filter((c) => c.url && c.password_file)) {
      expect(recorded.find((c) => c.id === camera.id)?.password).to.equal(fs.readFileSync(camera.password_file, 'utf8').trim());
    }
    expect(() => resolveWatchFolders(placed)).not.to.throw();
  });
});
