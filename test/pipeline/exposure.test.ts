// The motion pass's change threshold follows the light: a view exposed as by day keeps it, an
// underexposed one (a dim room, a weak illuminator at night) has it in proportion to its median
// gray level. The real classroom clip, and the same clip filmed in a third of the light. A change
// of light over the whole view (lightning, the camera's gain) is no motion: the sample before is
// compared in the new light.
import path from 'node:path';
import { expect } from 'chai';
import { relit } from '../../runtime/pipeline/light.js';
import { analyseMotion, movedDelta } from '../../runtime/pipeline/motion.js';
import { probeClip } from '../../runtime/pipeline/probe.js';
import { tempDir } from '../support/clips.js';
import { dimClip, infraredClip, nightViewClip } from '../support/night.js';
import { media } from '../support/paths.js';
import { gaussian, seeded } from '../support/random.js';
import { lightningClip } from '../support/weather.js';

/** A 96x54 view whose pixels are `level`, with a few darker and brighter ones (the median is `level`). */
function view(level: number): Uint8Array {
  const pixels = new Uint8Array(96 * 54).fill(level);
  for (let i = 0; i < pixels.length; i += 7) pixels[i] = i % 2 ? Math.max(0, level - 40) : Math.min(255, level + 40);
  return pixels;
}

/** `frame` with a grain of about `sigma` levels added (seeded). */
function grainy(frame: Uint8Array, sigma: number, seed: number): Uint8Array {
  const gauss = gaussian(seeded(seed));
  return frame.map((v) => Math.max(0, Math.min(255, Math.round(v + sigma * gauss()))));
}

describe('motion pass exposure', function () {
  this.timeout(120_000);
  const exposed = 118 * 2 ** (-1 / 2.2);

  it('a view exposed as by day (its median a stop below mid-gray or brighter) keeps the day threshold of 24 levels, however grainy', () => {
    for (const level of [87, 118, 200, 250]) expect(movedDelta(view(level), view(level)), `median ${level}`).to.equal(24);
    expect(movedDelta(view(118), grainy(view(118), 12, 1))).to.equal(24);
  });

  it('an underexposed view has it in proportion to its median, never under 6 levels', () => {
    expect(movedDelta(view(43), view(43))).to.be.closeTo((24 * 43) / exposed, 1e-9);
    expect(movedDelta(view(60), view(60))).to.be.closeTo((24 * 60) / exposed, 1e-9);
    for (const level of [0, 5, 20]) expect(movedDelta(view(level), view(level)), `median ${level}`).to.equal(6);
  });

  it('...nor under three times the noise of the two samples\' difference (a grainy night stream), nor over 24', () => {
    const dim = view(30);
    // the difference's sigma is 3 x 1.4; its quartile is read in whole levels (1 here: 0.74 of it)
    const grain = movedDelta(grainy(dim, 3, 1), grainy(dim, 3, 2));
    expect(grain).to.be.within(3 * 3 * Math.SQRT2 * 0.65, 3 * 3 * Math.SQRT2 * 1.25);
    expect(grain).to.be.greaterThan(movedDelta(dim, dim));
    expect(movedDelta(grainy(dim, 20, 1), grainy(dim, 20, 2))).to.equal(24);
  });

  it('the seated people of the real classroom, filmed in a third of the light, still move in the motion pass', async () => {
    const dim = await dimClip(media('real/classroom_seated.mp4'), path.join(tempDir('vigil-exposure-'), 'classroom-dim.mp4'));
    const moving = async (file: string) => (await analyseMotion(await probeClip(file), new AbortController().signal)).samples.filter((s) => s.region).length;
    const byDay = await moving(media('real/classroom_seated.mp4'));
    const dimmed = await moving(dim);
    expect(byDay).to.be.greaterThan(0);
    expect(dimmed).to.be.greaterThan(0);
  });

  it('the seated people of the real classroom, filmed by an infrared camera at night, stand out of the background at its light', async () => {
    const infrared = await infraredClip(media('real/classroom_seated.mp4'), path.join(tempDir('vigil-exposure-'), 'classroom-infrared.mp4'));
    const motion = await analyseMotion(await probeClip(infrared), new AbortController().signal);
    expect(motion.pattern.moving).to.equal(true);
    expect(motion.samples.some((s) => s.foreground.includes(1))).to.equal(true);
  });

  it('an infrared view where nothing moves but the grain stays still', async () => {
    const still = await nightViewClip(media('real/indoor_empty_room.mp4'), path.join(tempDir('vigil-exposure-'), 'room-infrared.mp4'), { width: 480, height: 270 });
    const motion = await analyseMotion(await probeClip(still), new AbortController().signal);
    expect(motion.pattern.moving).to.equal(false);
  });

  it('a light that holds (grain only) leaves the sample before as it is', () => {
    const before = grainy(view(118), 3, 1);
    expect(relit(before, grainy(view(118), 3, 2))).to.equal(before);
  });

  it('a flash: the sample before seen in its light, to a level where nothing clipped; what the flash clipped, and what it left clipped, taken as unchanged', () => {
    const gauss = gaussian(seeded(4));
    const before = Uint8Array.from({ length: 96 * 54 }, () => Math.round(60 + 20 * gauss()));
    // the flash lights the scene 2.2 times as much under a veil of 30 levels; its brightest parts clip
    const flash = before.map((v) => Math.min(255, Math.round(2.2 * v + 30)));
    const lit = relit(before, flash);
    let clipped = 0;
    for (let p = 0; p < before.length; p++) {
      if (flash[p] === 255) clipped++;
      expect(Math.abs(lit[p]! - flash[p]!), `pixel ${p}`).to.be.at.most(1);
    }
    expect(clipped).to.be.greaterThan(0);
    // and back: the flash's clipped pixels say nothing of the scene, the others come back to it
    const back = relit(flash, before);
    for (let p = 0; p < before.length; p++) {
      if (flash[p]! >= 250) expect(back[p]).to.equal(before[p]);
      else expect(Math.abs(back[p]! - before[p]!), `pixel ${p}`).to.be.at.most(1);
    }
  });

  it('lightning over the real worker clip and the overhead parking lot moves no more of the view than the clip without it does', async () => {
    const dir = tempDir('vigil-lightning-');
    const movedCells = async (file: string) => (await analyseMotion(await probeClip(file), new AbortController().signal)).samples
      .filter((s) => s.t >= 2.95 && s.t <= 3.45).map((s) => s.cells.reduce((a, b) => a + b, 0));
    for (const clip of ['worker_hardhat_walking.mp4', 'parking_overhead_cars.mp4']) {
      const flashed = await movedCells(await lightningClip(media(`real/${clip}`), path.join(dir, `lightning-${clip}`)));
      const calm = await movedCells(await lightningClip(media(`real/${clip}`), path.join(dir, `calm-${clip}`), []));
      expect(flashed.length, clip).to.equal(calm.length);
      // the flashes changed every cell of the view before the samples were compared in one light
      for (let k = 0; k < flashed.length; k++) expect(flashed[k], `${clip}, sample ${k}`).to.be.at.most(calm[k]! + 108 / 9);
    }
  });
});
