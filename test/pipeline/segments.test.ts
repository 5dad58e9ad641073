// Segmentation masks to boxed findings (pipeline/segments.ts), on masks drawn here: one
// detection per connected segment of a label, its box around the segment, its score its share
// of the input against full_area.
import { expect } from 'chai';
import type { Box } from '../../runtime/core/analysis.js';
import type { LabelMap } from '../../runtime/pipeline/label-map.js';
import { segmentDetections } from '../../runtime/pipeline/segments.js';

const SIZE = 64;
// class 0 background; 1 and 3 are both persons (3 counting half, as clothing does); 2 animals
const MAP: LabelMap = [undefined, { label: 'person', weight: 1 }, { label: 'animal', weight: 1 }, { label: 'person', weight: 0.5 }];
const OPTIONS = { fullArea: 0.25, minArea: 0.01 };

/** A mask of SIZE x SIZE classes, background but for the rectangles given in pixels [x, y, w, h]. */
function mask(...rects: Array<[cls: number, x: number, y: number, w: number, h: number]>): Uint8Array {
  const m = new Uint8Array(SIZE * SIZE);
  for (const [cls, x0, y0, w, h] of rects) {
    for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) m[y * SIZE + x] = cls;
  }
  return m;
}

/** A rectangle in pixels as a box of the input. */
const boxOf = (x: number, y: number, w: number, h: number): Box => ({ x: x / SIZE, y: y / SIZE, w: w / SIZE, h: h / SIZE });

describe('segments', () => {
  it('a mask of background alone: nothing', () => {
    expect(segmentDetections(mask(), SIZE, MAP, OPTIONS)).to.deep.equal([]);
  });

  it('one segment: its box, and a score that is its share of the input against full_area', () => {
    const [person, ...rest] = segmentDetections(mask([1, 8, 16, 16, 24]), SIZE, MAP, OPTIONS);
    expect(rest).to.deep.equal([]);
    expect(person!.label).to.equal('person');
    expect(person!.box).to.deep.equal(boxOf(8, 16, 16, 24)); // on the grid's steps: exact
    expect(person!.score).to.be.closeTo((16 * 24) / (SIZE * SIZE) / OPTIONS.fullArea, 1e-9);
  });

  it('scores grow with the area up to 1, and a class counting half scores half', () => {
    const score = (cls: number, side: number) => segmentDetections(mask([cls, 0, 0, side, side]), SIZE, MAP, OPTIONS)[0]!.score;
    expect(score(1, 16)).to.be.below(score(1, 24));
    expect(score(1, 48)).to.equal(1); // over full_area
    expect(score(3, 16)).to.be.closeTo(score(1, 16) / 2, 1e-9);
  });

  it('two segments of a label apart are two findings; touching classes of one label are one', () => {
    const apart = segmentDetections(mask([1, 0, 0, 16, 16], [1, 40, 40, 16, 16]), SIZE, MAP, OPTIONS);
    expect(apart.map((d) => d.box)).to.have.deep.members([boxOf(0, 0, 16, 16), boxOf(40, 40, 16, 16)]);
    // a person (class 1) wearing a coat (class 3) side by side: one person around both
    const touching = segmentDetections(mask([1, 0, 0, 16, 32], [3, 16, 0, 16, 32]), SIZE, MAP, OPTIONS);
    expect(touching).to.have.length(1);
    expect(touching[0]!.box).to.deep.equal(boxOf(0, 0, 32, 32));
  });

  it('segments of different labels side by side stay apart, each with its label', () => {
    const found = segmentDetections(mask([1, 0, 0, 16, 32], [2, 16, 0, 16, 32]), SIZE, MAP, OPTIONS);
    expect(found.map((d) => [d.label, d.box])).to.have.deep.members([['person', boxOf(0, 0, 16, 32)], ['animal', boxOf(16, 0, 16, 32)]]);
  });

  it('a segment under min_area is noise; classes the map leaves out are nothing', () => {
    expect(segmentDetections(mask([1, 0, 0, 4, 4]), SIZE, MAP, OPTIONS)).to.deep.equal([]); // 1/256 of the grid
    expect(segmentDetections(mask([7, 0, 0, 32, 32]), SIZE, MAP, OPTIONS)).to.deep.equal([]);
  });

  it('a diagonal touch does not join two segments (four neighbours)', () => {
    const found = segmentDetections(mask([1, 0, 0, 16, 16], [1, 16, 16, 16, 16]), SIZE, MAP, OPTIONS);
    expect(found).to.have.length(2);
  });
});
