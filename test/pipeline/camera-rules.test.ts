// A camera's masks as the pipeline reads them (pipeline/camera-rules.ts); the rules in the
// decision are in decide.test.ts, through the daemon in inference/camera-rules.test.ts.
import { expect } from 'chai';
import type { Polygon } from '../../runtime/core/analysis.js';
import { insidePolygon, rasteriseMasks } from '../../runtime/pipeline/camera-rules.js';

describe('camera masks', () => {
  it('masks are rasterised at pixel centres; points inside a polygon by ray casting', () => {
    const raster = rasteriseMasks([[[0, 0], [0.5, 0], [0.5, 1], [0, 1]]], 4, 2)!;
    expect([...raster]).to.deep.equal([1, 1, 0, 0, 1, 1, 0, 0]);
    expect(rasteriseMasks([], 4, 2)).to.equal(undefined);
    const triangle: Polygon = [[0, 0], [1, 0], [0, 1]];
    expect(insidePolygon(0.2, 0.2, triangle)).to.equal(true);
    expect(insidePolygon(0.8, 0.8, triangle)).to.equal(false);
  });
});
