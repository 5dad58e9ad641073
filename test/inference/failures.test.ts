// A model that cannot run, an Edge TPU model on the CPU and a hung inference
// end the clip with a clear error_code and message; the daemon keeps serving.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { bundledManifest } from '../../runtime/models/manifest.js';
import { panClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';
import { SHARED_MODELS } from '../support/paths.js';

/** Installs a pack by hand (as a damaged install would leave it) and makes it active. */
function installByHand(dataDir: string, name: string, modelFile: string): void {
  const bytes = fs.readFileSync(path.join(SHARED_MODELS, modelFile));
  const tiny = bundledManifest('tiny');
  const manifest = {
    ...tiny, name,
    models: [{ ...tiny.models[0]!, edgetpu_file: undefined, file: {
      name: modelFile, bytes: bytes.length, sha256: crypto.createHash('sha256').update(bytes).digest('hex'), url: 'https://example.invalid/m.tflite',
    } }],
  };
  const dir = path.join(dataDir, 'models', 'packs', `${name}@1.0.0`);
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(SHARED_MODELS, modelFile), path.join(dir, modelFile));
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  fs.writeFileSync(path.join(dataDir, 'models', 'state.json'), JSON.stringify({ active: `${name}@1.0.0`, history: [] }));
}

describe('inference failures', function () {
  this.timeout(180_000);
  const clips = tempDir('vigil-fail-');
  let clip: string;
  before(async () => {
    clip = await panClip('cat.png', path.join(clips, 'cat.mp4'), 2);
  });

  async function expectServing(daemon: TestDaemon): Promise<void> {
    const res = await daemon.upload(clip);
    expect(res.status).to.equal(202);
  }

  it('an active model that cannot be loaded: error_code 2001 with the loader message, and the daemon serves on', async () => {
    const daemon = new TestDaemon();
    installByHand(daemon.dataDir, 'broken', 'invalid_model_invoking_error.tflite');
    try {
      await daemon.start();
      const r = await (await daemon.upload(clip, {}, '?sync=true')).json() as Record<string, any>;
      expect(r.error_code).to.equal(2001);
      expect(r.error_msg).to.match(/broken@1\.0\.0/).and.match(/fake-op-double|does not load/);
      expect(r.status.classify).to.equal('error');
      await expectServing(daemon);
    } finally {
      await daemon.cleanup();
    }
  });

  it('an Edge TPU model on the CPU: a message that says what to do', async () => {
    const daemon = new TestDaemon({ config: { inference: { device: 'cpu' } } });
    installByHand(daemon.dataDir, 'tpuonly', 'mobilenet_v1_0.25_128_quant_edgetpu.tflite');
    try {
      await daemon.start();
      const r = await (await daemon.upload(clip, {}, '?sync=true')).json() as Record<string, any>;
      expect(r.error_code).to.equal(2001);
      expect(r.error_msg).to.match(/compiled for the Edge TPU.*set inference\.device/);
    } finally {
      await daemon.cleanup();
    }
  });

  it('a hung inference: the interpreter is rebuilt, the clip ends with 2003, the next clip still runs', async () => {
    // A bound far below one inference makes every inference "hang".
    const daemon = new TestDaemon({ config: { inference: { timeout_ms: 1, workers: 1 } } });
    try {
      await daemon.start();
      const r = await (await daemon.upload(clip, {}, '?sync=true')).json() as Record<string, any>;
      expect(r.error_code).to.equal(2003);
      expect(r.error_msg).to.match(/did not return within 1 ms; the interpreter was rebuilt/);
      await daemon.waitForLog((l) => l.msg === 'inference timed out: rebuilding the interpreter');
      await expectServing(daemon);
    } finally {
      await daemon.cleanup();
    }
  });

  it('inference.device edgetpu without a Coral: results say what to do', async () => {
    const daemon = new TestDaemon({ config: { inference: { device: 'edgetpu' }, models: { pack: 'tiny' } } });
    try {
      await daemon.start();
      const r = await (await daemon.upload(clip, {}, '?sync=true')).json() as Record<string, any>;
      expect(r.error_code).to.equal(2001);
      expect(r.error_msg).to.match(/No Edge TPU found.*set inference\.device to cpu or plug in the Coral/);
    } finally {
      await daemon.cleanup();
    }
  });
});
