// Backgrounds and deraining by order statistics over frames: what stays outvotes what passes.
import { expect } from 'chai';
import { dropWindow, medianFrame, withoutDrops } from '../../runtime/pipeline/pixel-median.js';

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
});
