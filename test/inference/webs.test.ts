// A spider's silk at the lens at night through the daemon, with the real models: the
// infrared illuminator lights it far brighter than the scene, out of focus, and the breeze
// swings it in place. It is wind's work, never a risk, and a walker through it is still found
// (runtime/pipeline/README.md, "Foliage and wind").
import path from 'node:path';
import { expect } from 'chai';
import { tempDir } from '../support/clips.js';
import { suiteDaemon } from '../support/daemon.js';
import { webAtLensClip } from '../support/night.js';
import { media } from '../support/paths.js';

describe('a spider\'s web at the lens at night (default pack, real models)', function () {
  this.timeout(300_000);
  const daemon = suiteDaemon();
  const dir = tempDir('vigil-webs-');
  const nobody = ['person', 'vehicule', 'intrusion'];

  // In the dark, flat view of the lot the lit web holds most of the textured cells: its swing
  // once passed for the camera's, no sway was read, and unsure "persons" on the web agreed
  // across frames (seed 46: `danger`).
  // Where the classifier is sure of the web (course 47: 0.96) it is named, `web`.
  for (const { seed, named } of [{ seed: 46, named: false }, { seed: 47, named: true }]) {
    it(`an orb web in a corner over the parking lot, swaying (strung ${seed}): wind${named ? ', web' : ''}, no plant, no person, safe`, async () => {
      const clip = await webAtLensClip(media('real/parking_overhead_cars.mp4'), path.join(dir, `orb-${seed}.mp4`), { threads: 0, orb: true, seed });
      const r = await daemon().classified(clip);
      expect(r.labels, JSON.stringify(r.scores)).to.include.members(named ? ['wind', 'web'] : ['wind']);
      for (const label of [...nobody, 'plant']) expect(r.labels, JSON.stringify(r.scores)).to.not.include(label);
      expect(r.risk).to.equal('safe');
    });
  }

  it('loose threads hanging from the hood over a room, swinging: no person, vehicle or animal, safe', async () => {
    const r = await daemon().classified(await webAtLensClip(media('real/indoor_empty_room.mp4'), path.join(dir, 'threads.mp4'), { threads: 2, seed: 21 }));
    for (const label of [...nobody, 'animal']) expect(r.labels, JSON.stringify(r.scores)).to.not.include(label);
    expect(r.risk).to.equal('safe');
  });

  it('the worker walking through the view behind a web and a thread: person, intrusion', async () => {
    const r = await daemon().classified(await webAtLensClip(media('real/worker_hardhat_walking.mp4'), path.join(dir, 'worker.mp4'), { threads: 1, orb: true, moving: true, seconds: 4.7, seed: 1 }));
    expect(r.labels, JSON.stringify(r.scores)).to.include('person');
    expect(r.risk).to.equal('intrusion');
  });
});
