// A dim view's grain, measured on a detector's input and taken out only as far as a well-lit
// camera shows it; a dim view shown as a camera would (its grain out, and its levels stretched
// where it is framed on one small mover).
import { expect } from 'chai';
import { asCameraShows } from '../../runtime/pipeline/dim-view.js';
import { grainOf, withoutGrain } from '../../runtime/pipeline/grain.js';
import { gaussian, seeded } from '../support/random.js';

const SIDE = 300;

/** A SIDE x SIDE RGB picture, gray `level(x, y)` at each pixel, with a grain of `sigma` levels drawn over it (seeded). */
function picture(level: (x: number, y: number) => number, sigma: number, seed = 1): Uint8Array {
  const gauss = gaussian(seeded(seed));
  const rgb = new Uint8Array(SIDE * SIDE * 3);
  for (let y = 0; y < SIDE; y++) {
    for (let x = 0; x < SIDE; x++) {
      const v = Math.max(0, Math.min(255, Math.round(level(x, y) + sigma * gauss())));
      rgb.fill(v, 3 * (y * SIDE + x), 3 * (y * SIDE + x) + 3);
    }
  }
  return rgb;
}

/** A dark asphalt of `level` with a pale car roof on it and parking lines: a few strong edges. */
const lot = (level: number) => (x: number, y: number) =>
  x > 100 && x < 160 && y > 80 && y < 200 ? level + 60 : (x % 60 < 3 ? level + 80 : level);

describe('grain', () => {
  it('reads a grain of a few levels as it is drawn, over a flat view or a shaded one', () => {
    expect(grainOf(picture(() => 60, 0), SIDE, SIDE)).to.equal(0);
    for (const sigma of [1, 2, 4]) {
      expect(grainOf(picture(() => 60, sigma), SIDE, SIDE), `flat, ${sigma}`).to.be.closeTo(sigma, 0.15 * sigma + 0.1);
      // shading (a lamp's fall-off) is no grain
      expect(grainOf(picture((x, y) => 30 + x / 5 + y / 10, sigma), SIDE, SIDE), `shaded, ${sigma}`).to.be.closeTo(sigma, 0.15 * sigma + 0.1);
    }
  });

  it('leaves the edges of what is in view out of the grain', () => {
    const clean = grainOf(picture(lot(60), 0), SIDE, SIDE);
    expect(clean).to.be.below(0.3);
    expect(grainOf(picture(lot(60), 2), SIDE, SIDE)).to.be.closeTo(2, 0.4);
  });

  it('takes a grain out down to a well-lit camera\'s, and no more', async () => {
    const grainy = picture(lot(60), 3);
    const out = await withoutGrain(grainy, SIDE, SIDE);
    const left = grainOf(out, SIDE, SIDE);
    expect(left).to.be.at.most(1);
    // the least blur that does it: the roof's edge is still an edge (a step over a few pixels, not a ramp)
    const row = 140 * SIDE;
    expect(out[3 * (row + 110)]! - out[3 * (row + 90)]!).to.be.above(45);
  });

  it('leaves a picture as it is where its grain is already a well-lit camera\'s', async () => {
    const clean = picture(lot(60), 0.5);
    expect(await withoutGrain(clean, SIDE, SIDE)).to.equal(clean);
  });
});

describe('a dim view as a camera shows it', () => {
  /** The luma of an RGB picture's pixel (x, y): the gray pictures' one channel. */
  const at = (rgb: Uint8Array, x: number, y: number) => rgb[3 * (y * SIDE + x)]!;
  /** A night's lot: asphalt at 30, the roof 20 levels above it, with a grain of `sigma` levels. */
  const night = (sigma: number) => picture((x, y) => lot(30)(x, y) - (lot(30)(x, y) - 30) * 2 / 3, sigma);

  it('framed on one small mover, stretches a dim view\'s levels over the range, its grain taken out first', async () => {
    const out = await asCameraShows(night(3), SIDE, SIDE, true);
    expect(out).to.be.instanceOf(Uint8Array);
    // the roof stands out from the asphalt by several times what it did
    const roof = at(out!, 130, 140) - at(out!, 80, 140);
    expect(roof).to.be.above(3 * 20);
    // and the grain was taken out before the gain (roof / 20), not raised with it: at most a
    // well-lit camera's level times the gain, where the 3 levels it had would be 3 times that
    expect(grainOf(out!, SIDE, SIDE)).to.be.at.most(roof / 20);
  });

  it('framed on more, takes a dim view\'s grain out and leaves its levels as they were', async () => {
    const out = await asCameraShows(night(3), SIDE, SIDE, false);
    expect(grainOf(out!, SIDE, SIDE)).to.be.at.most(1);
    expect(at(out!, 130, 140) - at(out!, 80, 140)).to.be.closeTo(20, 3);
    // nothing to show otherwise where the grain is a well-lit camera's
    expect(await asCameraShows(night(0.5), SIDE, SIDE, false)).to.equal(undefined);
  });
});
