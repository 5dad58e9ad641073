// What stands out of a clip's background (its kept samples' per-pixel median), on real footage:
// two walkers in a corridor stand out of it sample after sample; in an empty room nothing does,
// and there the background is not taken at all (no pixel ranges far enough for any to stand out).
// And what changes in blips only (a burned-in clock's digits) moves no thing.
import path from 'node:path';
import { expect } from 'chai';
import { analyseMotion, blipsOnly, MOTION_GRID, type MotionSample } from '../../runtime/pipeline/motion.js';
import { probeClip } from '../../runtime/pipeline/probe.js';
import { tempDir } from '../support/clips.js';
import { nightViewClip } from '../support/night.js';
import { media } from '../support/paths.js';
import { weatherClip } from '../support/weather.js';

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

  it('a burned-in clock ticking over the empty room at night: every change a blip, in the row where the clock is; walkers under it are no blips', async () => {
    const dir = tempDir('vigil-background-');
    const night = await nightViewClip(media('real/indoor_empty_room.mp4'), path.join(dir, 'room-night.mp4'), { seconds: 12 });
    const clock = await analyseMotion(await probeClip(await weatherClip(night, path.join(dir, 'clock.mp4'), { kind: 'dry' }, { caption: true })), new AbortController().signal);
    expect(clock.pattern.moving).to.equal(true);
    const blips = clock.pattern.blips;
    expect(blips).to.not.equal(undefined);
    // the caption's line lies in the top row of cells
    const rows = [...blips!].flatMap((b, c) => (b ? [Math.floor(c / MOTION_GRID.x)] : []));
    expect(rows).to.not.be.empty;
    for (const row of rows) expect(row).to.equal(0);
    const walkers = await analyseMotion(await probeClip(await weatherClip(media('real/corridor_two_walkers.mp4'), path.join(dir, 'walkers.mp4'), { kind: 'dry' }, { caption: true })), new AbortController().signal);
    expect(walkers.pattern.moving).to.equal(true);
    expect(walkers.pattern.blips).to.equal(undefined);
  });
});

describe('blipsOnly', () => {
  const cells = () => new Uint8Array(MOTION_GRID.x * MOTION_GRID.y);
  const at = (x: number, y: number) => y * MOTION_GRID.x + x;
  /** ten samples a second; `changed` and `standing` list each sample's cells */
  const samples = (changed: number[][], standing: number[][] = []): MotionSample[] => changed.map((list, k) => {
    const moved = cells();
    for (const c of list) moved[c] = 1;
    const foreground = cells();
    for (const c of standing[k] ?? []) foreground[c] = 1;
    const any = list.length > 0 || (standing[k] ?? []).length > 0;
    return { t: k / 10, energy: list.length / 100, cells: moved, solidCells: moved, foreground, region: any ? { x: 0, y: 0, w: 0.1, h: 0.1 } : undefined };
  });
  const quiet = (n: number) => Array.from({ length: n }, () => [] as number[]);

  it('a digit turning once a second, still between: blips, where it turned', () => {
    const blips = blipsOnly(samples([...quiet(3), [at(2, 0)], ...quiet(9), [at(2, 0), at(3, 0)], ...quiet(5)]));
    expect(blips).to.not.equal(undefined);
    expect([...blips!].flatMap((b, c) => (b ? [c] : []))).to.deep.equal([at(2, 0), at(3, 0)]);
  });

  it('a thing seen in two samples in a row, or beside where it was: no blip', () => {
    expect(blipsOnly(samples([...quiet(3), [at(5, 4)], [at(5, 4)], ...quiet(5)]))).to.equal(undefined);
    expect(blipsOnly(samples([...quiet(3), [at(5, 4)], [at(6, 5)], ...quiet(5)]))).to.equal(undefined);
  });

  it('what stands out anew where nothing blipped (a car creeping in under the change a sample shows): no blip', () => {
    const changed = [...quiet(3), [at(2, 0)], ...quiet(8)];
    const standing = [...quiet(6), [at(7, 5)], [at(7, 5)], [at(7, 5), at(8, 5)], ...quiet(3)];
    expect(blipsOnly(samples(changed, standing))).to.equal(undefined);
  });

  it('what stands out where a digit turned, or from the clip\'s start: blips', () => {
    const changed = [...quiet(3), [at(2, 0)], ...quiet(8)];
    const standing = [[], [at(9, 0)], [at(9, 0)], ...quiet(2), [at(2, 0)], [at(2, 0)], ...quiet(5)];
    expect(blipsOnly(samples(changed, standing))).to.not.equal(undefined);
  });

  it('a clip where nothing moved: none', () => {
    expect(blipsOnly(samples(quiet(10)))).to.equal(undefined);
  });
});
