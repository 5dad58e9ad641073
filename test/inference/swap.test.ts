// Swapping packs while clips run: a clip that holds the old pack finishes on
// it, new clips get the new one, and the old interpreters go once released.
import path from 'node:path';
import { expect } from 'chai';
import { EventBus } from '../../runtime/core/bus.js';
import { silentLogger } from '../../runtime/core/log.js';
import { bundledManifest } from '../../runtime/models/manifest.js';
import { ModelService } from '../../runtime/models/model-service.js';
import { pullPack } from '../../runtime/models/pull.js';
import { probeClip } from '../../runtime/pipeline/probe.js';
import { panClip, tempDir } from '../support/clips.js';
import { SHARED_MODELS } from '../support/paths.js';

describe('model pack swap', function () {
  this.timeout(120_000);

  it('running clips finish on the pack they started with; new clips get the new pack', async () => {
    const dir = tempDir('vigil-swap-');
    const activated: string[] = [];
    const bus = new EventBus(silentLogger);
    bus.on('model.activated', (e) => void activated.push(`${e.name}@${e.version}`));
    const service = new ModelService({
      models: { pack: 'tiny', source: SHARED_MODELS, auto_pull: true, update_schedule: '', keep: 1, fetch_timeout_s: 60 },
      inference: { device: 'cpu', workers: 1, threads: 1, timeout_ms: 20_000, max_frames: 2 },
      dataDir: dir,
    }, bus, silentLogger);
    await service.start();
    await service.ready();
    try {
      const clip = await probeClip(await panClip('cat.png', path.join(dir, 'cat.mp4'), 2));
      const old = await service.acquire();
      expect(old.classifier.model).to.equal('tiny');

      const store = service.packStore;
      store.activate(await pullPack(bundledManifest('default'), { source: SHARED_MODELS, store, timeoutMs: 60_000, log: silentLogger }));
      const fresh = await service.acquire();
      expect(fresh.classifier.model).to.equal('default');
      expect(activated).to.deep.equal(['tiny@1.0.0', `default@${bundledManifest('default').version}`]);

      // The old lease still classifies on the old pack's interpreters.
      const [before, after] = await Promise.all([
        old.classifier.classify(clip, new AbortController().signal),
        fresh.classifier.classify(clip, new AbortController().signal),
      ]);
      expect(before.model).to.equal('tiny');
      expect(before.stats.framesInferred).to.be.greaterThan(0);
      expect(after.model).to.equal('default');
      old.release();
      fresh.release();
      // Released and retired: the old pack's pool is closed.
      const closed = await old.classifier.classify(clip, new AbortController().signal).catch((e: Error) => e);
      expect((closed as Error).message).to.match(/unloaded/);
    } finally {
      await service.stop();
    }
  });
});
