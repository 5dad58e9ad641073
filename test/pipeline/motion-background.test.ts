// What stands out of a clip's background (its kept samples' per-pixel median), on real footage:
// two walkers in a corridor stand out of it sample after sample; in an empty room nothing does,
// and there the background is not taken at all (no pixel ranges far enough for any to stand out).
import path from 'node:path';
import { expect } from 'chai';
import { analyseMotion } from '../../runtime/pipeline/motion.js';
import { probeClip } from '../../runtime/pipeline/probe.js';
import { tempDir } from '../support/clips.js';
import { nightViewClip } from '../support/night.js';
import { media } from '../support/paths.js';

const standingOut = async (file: string) => {
  const motion = await analyseMotion(await probeClip(file), new AbortController().signal);
  return { motion, samples: motion.samples.filter((s) => s.foreground.includes(1)).length };
};

describe('motion pass background', function () {
  this.timeout(120_000);

  it('two walkers coming down a corridor stand out of its background in most samples, where they move', async () => {
    const { motion, samples } = await standingOut(media('real/corridor_two_walkers.mp4'));
    expect(samples).to.be.greaterThan(motion.samples.length / 2);
    for (const s of motion.samples.filter((x) => x.foreground.includes(1))) expect(s.region, `a region at ${s.t} s`).to.not.equal(undefined);
  });

  it('an empty room has nothing standing out of its background, and no sample a region: it is still', async () => {
    const { motion, samples } = await standingOut(media('real/indoor_empty_room.mp4'));
    expect(samples).to.equal(0);
    expect(motion.samples.filter((s) => s.region)).to.have.length(0);
    expect(motion.pattern.moving).to.equal(false);
  });

  // x264 leaves a still view in one group of pictures for 25 s at 10 frames a second; decoded with
  // the deblocking skipped on the frames the others are predicted from, the view drifted from its
  // background by up to 7 gray levels, and the floor stood out of it for seconds.
  it('an empty room filmed in infrared, 12 s in one group of pictures: nothing drifts out of its background', async () => {
    const night = await nightViewClip(media('real/indoor_empty_room.mp4'), path.join(tempDir('vigil-background-'), 'room-night.mp4'), { seconds: 12 });
    const { motion, samples } = await standingOut(night);
    expect(samples).to.equal(0);
    expect(motion.pattern.moving).to.equal(false);
  });
});
