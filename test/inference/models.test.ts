// Model packs: pulled from a mirror folder or over loopback HTTP, verified
// (size, sha256, a test run) before they become active, rolled back, and
// refused with a reason when corrupt, truncated, unreachable or unrunnable.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { silentLogger } from '../../runtime/core/log.js';
import { chooseBackend } from '../../runtime/inference/backends.js';
import type { Manifest } from '../../runtime/core/model-manifest.js';
import { bundledManifest } from '../../runtime/models/manifest.js';
import { PackStore } from '../../runtime/models/pack-store.js';
import { pullPack } from '../../runtime/models/pull.js';
import { checkForUpdate } from '../../runtime/models/updater.js';
import { tempDir } from '../support/clips.js';
import { freePort } from '../support/daemon.js';
import { PROJECT_ROOT, SHARED_MODELS } from '../support/paths.js';

const run = promisify(execFile);

function vigil(args: string[], config: string) {
  return run(process.execPath, [path.join(PROJECT_ROOT, 'dist/runtime/cli.js'), ...args, '--config', config], { cwd: PROJECT_ROOT });
}

/** A mirror folder of links to the shared models, where a test may replace one file. */
function mirror(replace: Record<string, Buffer> = {}): string {
  const dir = tempDir('vigil-mirror-');
  for (const name of fs.readdirSync(SHARED_MODELS)) {
    if (replace[name]) fs.writeFileSync(path.join(dir, name), replace[name]!);
    else fs.symlinkSync(path.join(SHARED_MODELS, name), path.join(dir, name));
  }
  return dir;
}

function newStore(): PackStore {
  const store = new PackStore(path.join(tempDir('vigil-packs-'), 'models'));
  store.prepare();
  return store;
}

const options = (source: string, store: PackStore) => ({ source, store, timeoutMs: 30_000, log: silentLogger });

describe('model packs', function () {
  this.timeout(120_000);

  it('pulls the tiny pack from a mirror folder, verifies it and installs it', async () => {
    const store = newStore();
    const id = await pullPack(bundledManifest('tiny'), options(SHARED_MODELS, store));
    expect(id).to.equal('tiny@1.0.0');
    const files = fs.readdirSync(path.join(store.packsDir, id)).sort();
    expect(files).to.deep.equal(['manifest.json', 'mobilenet_v1_0.25_128_quant.tflite', 'mobilenet_v1_0.25_128_quant_edgetpu.tflite']);
    expect(fs.readdirSync(store.partialDir)).to.deep.equal([]);
  });

  it('pulls over loopback HTTP', async () => {
    const server = http.createServer((req, res) => {
      const file = path.join(SHARED_MODELS, path.basename(req.url ?? ''));
      if (!fs.existsSync(file)) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-length': fs.statSync(file).size });
      fs.createReadStream(file).pipe(res);
    });
    const port = await freePort();
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    try {
      const store = newStore();
      expect(await pullPack(bundledManifest('tiny'), options(`http://127.0.0.1:${port}/models/`, store))).to.equal('tiny@1.0.0');
    } finally {
      server.close();
    }
  });

  it('refuses a file whose checksum differs, and the active pack stays', async () => {
    const store = newStore();
    store.activate(await pullPack(bundledManifest('tiny'), options(SHARED_MODELS, store)));
    const good = fs.readFileSync(path.join(SHARED_MODELS, 'mobilenet_v1_0.25_128_quant.tflite'));
    const corrupt = Buffer.from(good);
    corrupt[corrupt.length >> 1] ^= 0xff;
    const manifest: Manifest = { ...bundledManifest('tiny'), version: '1.0.1' };
    const err = await pullPack(manifest, options(mirror({ 'mobilenet_v1_0.25_128_quant.tflite': corrupt }), store)).catch((e: Error) => e);
    expect(err).to.be.instanceOf(Error);
    expect((err as Error).message).to.match(/fails its checksum/);
    expect(store.activeId()).to.equal('tiny@1.0.0');
    expect(store.get('tiny@1.0.1')).to.equal(undefined);
    expect(fs.readdirSync(store.partialDir)).to.deep.equal([]);
  });

  it('refuses a truncated file', async () => {
    const store = newStore();
    const good = fs.readFileSync(path.join(SHARED_MODELS, 'mobilenet_v1_0.25_128_quant.tflite'));
    const err = await pullPack(bundledManifest('tiny'), options(mirror({ 'mobilenet_v1_0.25_128_quant.tflite': good.subarray(0, 1000) }), store))
      .catch((e: Error) => e);
    expect((err as Error).message).to.match(/truncated: got 1000 of 525598 bytes/);
    expect(store.installed()).to.deep.equal([]);
  });

  it('says when the source is unreachable', async () => {
    const port = await freePort(); // nothing listens there
    const err = await pullPack(bundledManifest('tiny'), options(`http://127.0.0.1:${port}/`, newStore())).catch((e: Error) => e);
    expect((err as Error).message).to.match(/unreachable.*ECONNREFUSED/);
  });

  it('refuses a pack whose model cannot run (the test run fails)', async () => {
    const manifest = bundledManifest('tiny');
    const broken = fs.readFileSync(path.join(SHARED_MODELS, 'invalid_model_invoking_error.tflite'));
    const crypto = await import('node:crypto');
    const bad: Manifest = {
      ...manifest, name: 'broken',
      models: [{ ...manifest.models[0]!, edgetpu_file: undefined, file: {
        name: 'invalid_model_invoking_error.tflite', bytes: broken.length,
        sha256: crypto.createHash('sha256').update(broken).digest('hex'), url: 'https://example.invalid/x.tflite',
      } }],
    };
    const err = await pullPack(bad, options(SHARED_MODELS, newStore())).catch((e: Error) => e);
    expect((err as Error).message).to.match(/broken@1\.0\.0 was not installed/);
  });

  it('activates a newer pack the source publishes, keeps the previous one for rollback', async () => {
    const store = newStore();
    store.activate(await pullPack(bundledManifest('tiny'), options(SHARED_MODELS, store)));
    const source = mirror();
    fs.mkdirSync(path.join(source, 'tiny'));
    fs.writeFileSync(path.join(source, 'tiny', 'manifest.json'), JSON.stringify({ ...bundledManifest('tiny'), version: '1.1.0' }));
    const config = { pack: 'tiny', source, auto_pull: true, update_schedule: '', keep: 1, fetch_timeout_s: 30 };
    expect(await checkForUpdate(config, store, silentLogger)).to.deep.equal({ updated: true, id: 'tiny@1.1.0' });
    expect(store.activeId()).to.equal('tiny@1.1.0');
    expect(await checkForUpdate(config, store, silentLogger)).to.deep.include({ updated: false });
    expect(store.rollback()).to.equal('tiny@1.0.0');
    expect(store.activeId()).to.equal('tiny@1.0.0');
  });

  it('vigil models pull, list, activate and rollback', async () => {
    const dir = tempDir('vigil-cli-');
    const config = path.join(dir, 'vigil.yaml');
    fs.writeFileSync(config, `storage:\n  data_dir: ${JSON.stringify(path.join(dir, 'data'))}\nmodels:\n  source: ${JSON.stringify(SHARED_MODELS)}\n`);
    expect((await vigil(['models', 'pull', '--pack', 'tiny'], config)).stdout).to.match(/tiny@1\.0\.0 installed and active/);
    // the default pack as this runtime ships it
    const pack = `default@${bundledManifest('default').version}`;
    expect((await vigil(['models', 'pull'], config)).stdout).to.include(`${pack} installed and active`);
    const list = (await vigil(['models', 'list'], config)).stdout;
    expect(list.split('\n').filter((line) => line.startsWith(`* ${pack}`))).to.have.lengthOf(1);
    expect(list).to.match(/^r tiny@1\.0\.0/m);
    expect((await vigil(['models', 'rollback'], config)).stdout).to.match(/tiny@1\.0\.0 active again/);
    expect((await vigil(['models', 'activate', pack], config)).stdout).to.include(`${pack} active`);
    const missing = await vigil(['models', 'activate', 'nope@9'], config).catch((e: { stderr: string; code: number }) => e);
    expect((missing as { code: number }).code).to.equal(1);
    expect((missing as { stderr: string }).stderr).to.match(/nope@9 is not installed/);
  });

  it('edgetpu without a Coral says what to do; auto falls back to the CPU and says why', () => {
    const manifest = bundledManifest('tiny');
    expect(() => chooseBackend('edgetpu', manifest, null)).to.throw(/No Edge TPU found.*set inference\.device to cpu or plug in the Coral/);
    const auto = chooseBackend('auto', manifest, null);
    expect(auto.backend.name).to.equal('cpu');
    expect(auto.reason).to.match(/no Edge TPU/);
    expect(chooseBackend('auto', bundledManifest('deeplab'), '/usr/lib/libedgetpu.so.1').reason).to.match(/has no Edge TPU models/);
  });
});
