// A dim view's grain, measured on a detector's input and taken out only as far as a well-lit
// camera shows it; a view exposed as by day is left as it is, whatever its texture.
import { expect } from 'chai';
import { degrained, grainOf } from '../../runtime/pipeline/grain.js';
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

  it('takes a dim view\'s grain out down to a well-lit camera\'s, and no more', async () => {
    const grainy = picture(lot(60), 3);
    const out = await degrained(grainy, SIDE, SIDE);
    expect(out).to.be.instanceOf(Uint8Array);
    const left = grainOf(out!, SIDE, SIDE);
    expect(left).to.be.at.most(1);
    // the least blur that does it: the roof's edge is still an edge (a step over a few pixels, not a ramp)
    const row = 140 * SIDE;
    expect(out![3 * (row + 110)]! - out![3 * (row + 90)]!).to.be.above(45);
  });

  it('leaves a view alone where it is exposed as by day, or where its grain is already a well-lit camera\'s', async () => {
    const bright = picture(lot(150), 3);
    expect(await degrained(bright, SIDE, SIDE)).to.equal(undefined);
    const clean = picture(lot(60), 0.5);
    expect(await degrained(clean, SIDE, SIDE)).to.equal(undefined);
  });
});
