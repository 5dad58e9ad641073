// Backgrounds and deraining by order statistics over frames: what stays outvotes what passes.
import { expect } from 'chai';
import { dropsFlattened, dropWindow, medianFrame, pixelsRanging, streaksOpened, withoutDrops } from '../../runtime/pipeline/pixel-median.js';
import { seeded } from '../support/random.js';

const px = (...values: number[]) => Uint8Array.from(values);

describe('pixel medians and drops taken out', () => {
  it('the background is each pixel\'s median over the frames: a thing passing through one of them is gone', () => {
    const frames = [px(10, 50), px(10, 50), px(200, 50), px(10, 51), px(11, 50)];
    expect([...medianFrame(frames, 5)]).to.deep.equal([10, 50]);
  });

  it('drops that brighten what they cross are taken out by each pixel\'s darkest value, even where most frames hold one', () => {
    // a pixel crossed by drops in four frames of five, and one never crossed
    const frames = [px(220, 40), px(60, 40), px(230, 41), px(210, 40), px(240, 39)];
    expect([...withoutDrops(frames, 'brighter')]).to.deep.equal([60, 39]);
    // the median of three keeps a drop that two of three frames hold
    expect([...withoutDrops(frames.slice(2), 'either')]).to.deep.equal([230, 40]);
  });

  it('drops against a bright sky darken it: taken out by each pixel\'s brightest value', () => {
    expect([...withoutDrops([px(120, 200), px(200, 201), px(130, 199)], 'darker')]).to.deep.equal([200, 201]);
  });

  it('the frames taken reach a fifth of a second either side for drops of one light, three in a row otherwise', () => {
    expect(dropWindow('brighter', 10)).to.equal(5);
    expect(dropWindow('darker', 5)).to.equal(3);
    expect(dropWindow('either', 10)).to.equal(3);
  });

  it('drops flattened for a match of the view: a streak thinner than the reach is gone, a larger shape stays in place', () => {
    // 40 x 30 gray: a gradient, a dark 9 x 9 block at (10, 10), a bright streak a pixel wide down column 30
    const width = 40, height = 30;
    const frame = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) frame[y * width + x] = 100 + x;
    for (let y = 10; y < 19; y++) for (let x = 10; x < 19; x++) frame[y * width + x] = 20;
    for (let y = 0; y < height; y++) frame[y * width + 30] = 250;
    const flat = dropsFlattened(frame, width, height, 'brighter', 2);
    for (let y = 0; y < height; y++) expect(flat[y * width + 30], `streak at row ${y}`).to.equal(128); // its darkest neighbour, two columns left
    expect(flat[14 * width + 14]).to.equal(20); // the block's middle
    expect(flat[14 * width + 22]).to.equal(120); // two columns past the block: the gradient's, not the block's
    expect(flat[5 * width + 5]).to.equal(103);
    // drops that darken (against a bright sky): a dark streak is flattened the other way
    const dark = frame.map((v, i) => (i % width === 30 ? 0 : v));
    expect(dropsFlattened(dark, width, height, 'darker', 2)[5 * width + 30]).to.equal(132);
    expect(dropsFlattened(frame, width, height, 'either', 2)).to.equal(frame);
  });

  it('streaks opened out of one frame\'s rows: a thin falling line is gone, a wider body keeps its size and colour', () => {
    const width = 40;
    const height = 20;
    const rgb = new Uint8Array(width * height * 3);
    const set = (x: number, y: number, [r, g, b]: number[]) => rgb.set([r!, g!, b!], (y * width + x) * 3);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) set(x, y, [60, 70, 80 + x]);
    for (let y = 4; y < 16; y++) for (let x = 10; x < 15; x++) set(x, y, [200, 40, 30]); // a red body 5 px wide
    for (let y = 0; y < height; y++) set(25 + (y >> 3), y, [230, 235, 240]); // a slanting streak, 1 px wide in each row
    const at = (frame: Uint8Array, x: number, y: number) => [...frame.subarray((y * width + x) * 3, (y * width + x) * 3 + 3)];
    const opened = streaksOpened(rgb, width, height, 'brighter', 1);
    // each streak pixel takes its brighter neighbour's colour, as the ramp around it has
    for (let y = 0; y < height; y++) expect(at(opened, 25 + (y >> 3), y), `streak at row ${y}`).to.deep.equal([60, 70, 81 + 25 + (y >> 3)]);
    for (const x of [10, 12, 14]) expect(at(opened, x, 8), `body at column ${x}`).to.deep.equal([200, 40, 30]);
    expect(at(opened, 9, 8)[0]).to.equal(60); // no wider than it was
    expect(at(opened, 15, 8)[0]).to.equal(60);
    // drops that darken: a dark streak is closed the other way; of no one light, either is
    const dark = rgb.slice();
    for (let y = 0; y < height; y++) dark.set([5, 5, 5], (y * width + 30) * 3);
    expect(at(streaksOpened(dark, width, height, 'darker', 1), 30, 3)).to.deep.equal([60, 70, 109]);
    const either = streaksOpened(dark, width, height, 'either', 1);
    for (const x of [25, 30]) expect(at(either, x, 3)[2], `streak at column ${x}`).to.be.within(80 + x - 3, 80 + x + 3);
    expect(at(either, 12, 8)).to.deep.equal([200, 40, 30]);
  });

  it('pixels ranging over a delta: each byte of the four a word holds by itself, at either end of the scale', () => {
    // 0 and 255 side by side (no borrow into the next byte), a range of exactly the delta (not over it)
    const frames = [px(0, 255, 100, 7, 128, 127), px(255, 0, 112, 7, 127, 128), px(0, 255, 100, 20, 128, 128)];
    expect(pixelsRanging(frames, 6, 12)).to.equal(3); // 0-255 twice, 7-20; not 100-112
    expect(pixelsRanging(frames, 6, 12, px(1, 0, 0, 0, 0, 0))).to.equal(2); // a masked pixel never counts
    expect(pixelsRanging(frames, 6, 0)).to.equal(6);
  });

  it('pixels ranging over a delta: as counted one pixel at a time, on frames at any offset in their memory', () => {
    const random = seeded(11);
    for (let round = 0; round < 40; round++) {
      const pixels = 1 + Math.floor(random() * 300);
      const count = 2 + Math.floor(random() * 8);
      const spread = random() < 0.5 ? 256 : 30; // noise around a level, or anything
      const frames = Array.from({ length: count }, () => {
        const memory = new Uint8Array(pixels + 3);
        const offset = Math.floor(random() * 4);
        for (let p = 0; p < pixels; p++) memory[offset + p] = spread === 256 ? Math.floor(random() * 256) : 120 + Math.floor(random() * spread);
        return memory.subarray(offset, offset + pixels);
      });
      const delta = Math.floor(random() * 40);
      let expected = 0;
      for (let p = 0; p < pixels; p++) {
        const values = frames.map((f) => f[p]!);
        if (Math.max(...values) - Math.min(...values) > delta) expected++;
      }
      expect(pixelsRanging(frames, pixels, delta), `round ${round}`).to.equal(expected);
    }
  });
});
