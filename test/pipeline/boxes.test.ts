// Box geometry (pipeline/boxes.ts): regions around small moving areas, and one object found
// twice kept once.
import { expect } from 'chai';
import { squareRegion, suppress } from '../../runtime/pipeline/boxes.js';

describe('regions and boxes', () => {
  it('a region around a small moving area is square in pixels, at least the input, inside the frame', () => {
    const r = squareRegion({ x: 0.95, y: 0.9, w: 0.02, h: 0.05 }, { width: 1280, height: 720 }, 300);
    expect(r.w * 1280).to.be.closeTo(300, 1e-6);
    expect(r.h * 720).to.be.closeTo(300, 1e-6);
    expect(r.x + r.w).to.be.at.most(1 + 1e-9);
    expect(r.y + r.h).to.be.at.most(1 + 1e-9);
  });

  it('a region is never larger than the short side of the frame', () => {
    const r = squareRegion({ x: 0, y: 0, w: 0.9, h: 0.9 }, { width: 480, height: 270 }, 300);
    expect(r.w * 480).to.be.closeTo(270, 1e-6);
    expect(r.h).to.be.closeTo(1, 1e-9);
  });

  it('the same object found in the whole frame and in a region is kept once, the best score', () => {
    const kept = suppress([
      { label: 'person', score: 0.6, box: { x: 0.5, y: 0.5, w: 0.1, h: 0.3 } },
      { label: 'person', score: 0.9, box: { x: 0.505, y: 0.49, w: 0.1, h: 0.31 } },
      { label: 'vehicule', score: 0.7, box: { x: 0.5, y: 0.5, w: 0.1, h: 0.3 } },
      { label: 'person', score: 0.7, box: { x: 0.1, y: 0.1, w: 0.1, h: 0.3 } },
    ]);
    expect(kept.map((d) => `${d.label} ${d.score}`)).to.have.members(['person 0.9', 'vehicule 0.7', 'person 0.7']);
  });
});
