// Insects at the lens through the daemon, with the real models: a moth lit by the infrared
// illuminator at night, out of focus, flitting faster than its own size in a frame, is an
// animal and never a risk; a fly walking on a dome's cover by day, a soft dark blot, is never
// a risk either, and what moves behind it is still found (runtime/pipeline/README.md, "Small
// creatures").
import path from 'node:path';
import { expect } from 'chai';
import { tempDir } from '../support/clips.js';
import { suiteDaemon } from '../support/daemon.js';
import { mothAtLensClip } from '../support/night.js';
import { insectOnDomeClip } from '../support/nuisance-clips.js';
import { media } from '../support/paths.js';

describe('insects at the lens (default pack, real models)', function () {
  this.timeout(300_000);
  const daemon = suiteDaemon();
  const dir = tempDir('vigil-insects-');

  // Moths, each on a course of its own: small (a blur disc of 18 px in the 1280 px view), larger
  // and nearer (28 px), right at the lens (40 px); and small ones looping back to about where they
  // started, which a creature's course once had to avoid (small-movers.ts, MIN_TRAVEL).
  for (const moth of [{ radius: 18, seed: 5 }, { radius: 28, seed: 11 }, { radius: 40, seed: 3 }, { radius: 18, seed: 6 }, { radius: 12, seed: 1 }]) {
    it(`a moth flitting at the lens at night (a ${moth.radius} px blur, course ${moth.seed}): animal, no person, safe`, async () => {
      const clip = await mothAtLensClip(media('real/parking_overhead_cars.mp4'), path.join(dir, `moth-${moth.radius}-${moth.seed}.mp4`), moth);
      const r = await daemon().classified(clip);
      expect(r.labels, JSON.stringify(r.labels)).to.include('animal');
      for (const label of ['person', 'vehicule', 'intrusion']) expect(r.labels).to.not.include(label);
      expect(r.risk).to.equal('safe');
    });
  }

  for (const fly of [{ scene: 'indoor_empty_room', radius: 60, seed: 3 }, { scene: 'indoor_empty_room', radius: 120, seed: 5, shade: 0.5 }, { scene: 'conveyor_produce', radius: 80, seed: 6 }]) {
    it(`a fly walking on the dome by day over ${fly.scene} (a ${fly.radius} px blot): no person or vehicle, safe`, async () => {
      const clip = await insectOnDomeClip(media(`real/${fly.scene}.mp4`), path.join(dir, `fly-${fly.scene}-${fly.radius}.mp4`), fly);
      const r = await daemon().classified(clip);
      for (const label of ['person', 'vehicule', 'intrusion']) expect(r.labels, JSON.stringify(r.scores)).to.not.include(label);
      expect(r.risk).to.equal('safe');
    });
  }

  it('the worker walking behind a fly on the dome: person, intrusion', async () => {
    const r = await daemon().classified(await insectOnDomeClip(media('real/worker_hardhat_walking.mp4'), path.join(dir, 'fly-worker.mp4'), { radius: 60, seed: 3 }));
    expect(r.labels, JSON.stringify(r.scores)).to.include('person');
    expect(r.risk).to.equal('intrusion');
  });
});
