// Small animals on real footage (../shared/media/nuisance) through the daemon with the default
// pack: too small or too strange for the networks, they are found by how they move
// (pipeline/small-movers.ts) and are animals, never a person or an intrusion.
import { expect } from 'chai';
import path from 'node:path';
import { tempDir } from '../support/clips.js';
import { suiteDaemon } from '../support/daemon.js';
import { atNightClip, infraredClip } from '../support/night.js';
import { media } from '../support/paths.js';

describe('small animals on real footage (default pack, real models)', function () {
  this.timeout(300_000);
  const daemon = suiteDaemon();
  const classify = (name: string) => daemon().classified(media(`nuisance/${name}`));

  it('a tiny spider crawling on a pale wall below a still one: animal, safe', async () => {
    const r = await classify('spider_on_wall.mp4');
    expect(r.labels).to.include('animal');
    for (const label of ['person', 'vehicule', 'intrusion', 'NOTHING']) expect(r.labels).to.not.include(label);
    expect(r.risk).to.equal('safe');
  });

  it('the tiny spider at night, as an infrared camera films it (gray, dark, grainy: it stands out of the grain by under twice the threshold, in every frame): animal, safe', async () => {
    const night = await atNightClip(media('nuisance/spider_on_wall.mp4'), path.join(tempDir('vigil-night-spider-'), 'spider-at-night.mp4'));
    const r = await daemon().classified(night);
    expect(r.labels).to.include('animal');
    for (const label of ['person', 'vehicule', 'intrusion', 'NOTHING']) expect(r.labels).to.not.include(label);
    expect(r.risk).to.equal('safe');
  });

  it('a mouse in an arena seen from above: animal, never person, safe', async () => {
    const r = await classify('mouse_arena_topdown.mp4');
    expect(r.labels).to.include('animal');
    for (const label of ['person', 'vehicule', 'intrusion']) expect(r.labels).to.not.include(label);
    expect(r.risk).to.equal('safe');
  });

  // Framed on the mouse at the arena's dark rim, the detector saw a person 0.50 and 0.58 filling
  // three quarters of its crop at two moments, at one place (person, danger, before); framed
  // wider at the surer moment, it sees no one there (decide.ts, dropWhatFillsItsFraming).
  for (const seed of [5, 7]) {
    it(`the mouse as an infrared camera films it at night, frame by frame (grain drawn with seed ${seed}): no person filling a crop framed on it, an animal, safe`, async () => {
      const night = await infraredClip(media('nuisance/mouse_arena_topdown.mp4'), path.join(tempDir('vigil-night-mouse-'), `mouse-infrared-${seed}.mp4`), { seed });
      const r = await daemon().classified(night);
      expect(r.labels).to.include('animal');
      for (const label of ['person', 'vehicule', 'intrusion']) expect(r.labels).to.not.include(label);
      expect(r.risk).to.equal('safe');
    });
  }
});
