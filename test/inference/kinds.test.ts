// Kinds of sibling classes (pipeline/README.md, "Kinds of sibling classes"), with the real
// ImageNet classifier of the default pack on the shared pictures: where it is sure of the kind
// and unsure of the breed, the kind is the label's score; where nothing of a kind is there, the
// kinds add nothing.
import path from 'node:path';
import { expect } from 'chai';
import sharp from 'sharp';
import { silentLogger } from '../../runtime/core/log.js';
import { cpuBackend } from '../../runtime/inference/backends.js';
import { bundledManifest } from '../../runtime/models/manifest.js';
import { loadPack, type PackRuntime } from '../../runtime/models/load-pack.js';
import { PackStore } from '../../runtime/models/pack-store.js';
import { pullPack } from '../../runtime/models/pull.js';
import { DECODERS } from '../../runtime/pipeline/decoders.js';
import { tempDir } from '../support/clips.js';
import { media, SHARED_MODELS } from '../support/paths.js';

describe('kinds of sibling classes (default pack, real classifier)', function () {
  this.timeout(120_000);
  let runtime: PackRuntime;

  before(async () => {
    const store = new PackStore(path.join(tempDir('vigil-kinds-'), 'models'));
    store.prepare();
    const id = await pullPack(bundledManifest('default'), { source: SHARED_MODELS, store, timeoutMs: 60_000, log: silentLogger });
    const installed = store.get(id)!;
    runtime = await loadPack(installed.dir, installed.manifest, { backend: cpuBackend, workers: 1, threads: 1, timeoutMs: 20_000, log: silentLogger });
  });
  after(async () => runtime?.pool.close());

  /** The classifier on a whole picture: the label scores, and the best single class of the kinds' label. */
  async function classify(picture: string) {
    const classifier = runtime.models.find((m) => m.entry.task === 'classification')!;
    const [, h, w] = classifier.input.shape;
    const input = await sharp(media(picture)).resize(w!, h!, { fit: 'fill' }).removeAlpha().raw().toBuffer();
    const { outputs } = await runtime.pool.infer(classifier.entry.id, new Uint8Array(input));
    const alone = { ...classifier, labelMap: classifier.labelMap.map((t) => t && { label: t.label, weight: t.weight }) };
    return { scores: DECODERS.classification(outputs, classifier, undefined).scores, single: DECODERS.classification(outputs, alone, undefined).scores };
  }

  it('two dogs of a breed it is unsure of: the dogs together make the animal score, above the likeliest breed', async () => {
    const { scores, single } = await classify('pets.jpg');
    expect(single.animal, 'the likeliest breed').to.be.below(0.7);
    expect(scores.animal).to.be.above(0.9);
  });

  it('nothing of a kind in view (a sunflower, a person, a street): the same scores as the best single classes', async () => {
    for (const picture of ['sunflower.png', 'grace_hopper.png', 'traffic_0001.png']) {
      const { scores, single } = await classify(picture);
      expect(scores.animal ?? 0, picture).to.be.closeTo(single.animal ?? 0, 0.02);
    }
  });
});
