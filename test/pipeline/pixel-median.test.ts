// Backgrounds and deraining by order statistics over frames: what stays outvotes what passes.
import { expect } from 'chai';
import { dropsFlattened, dropWindow, medianFrame, withoutDrops } from '../../runtime/pipeline/pixel-median.js';

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
});
