// Made-up motion and findings for the pure pipeline tests (decision, frame choice, foliage):
// motion samples whose moving cells lie under a box, how each cell flowed, and what the
// networks "found" in a frame.
import type { Box, Detection } from '../../runtime/core/analysis.js';
import type { FrameFindings } from '../../runtime/pipeline/decide.js';
import type { LocalMotion } from '../../runtime/pipeline/foliage.js';
import { MOTION_GRID, type MotionPattern, type MotionSample } from '../../runtime/pipeline/motion.js';

/** A clip that moved a little, dry and without sway. */
export const pattern: MotionPattern = { moving: true, pan: 0, repeat: 0, streaks: 0, flakes: 0 };

export const cells = () => new Uint8Array(MOTION_GRID.x * MOTION_GRID.y);

/** The grid cells whose centres lie in the box. */
export function cellsUnder(box: Box): Uint8Array {
  const c = cells();
  for (let y = 0; y < MOTION_GRID.y; y++) for (let x = 0; x < MOTION_GRID.x; x++) {
    const cx = (x + 0.5) / MOTION_GRID.x;
    const cy = (y + 0.5) / MOTION_GRID.y;
    if (cx >= box.x && cx <= box.x + box.w && cy >= box.y && cy <= box.y + box.h) c[y * MOTION_GRID.x + x] = 1;
  }
  return c;
}

/** A sample whose moving cells are those under `moving` (or none). */
export function sample(t: number, moving?: Box, energy = moving ? 0.05 : 0): MotionSample {
  const c = moving ? cellsUnder(moving) : cells();
  return { t, energy, cells: c, solidCells: c, region: moving, foreground: cells() };
}

/** A frame holding these detections (its scores their best per label, and `extra`), moving under `moving`. */
export function frame(t: number, detections: Detection[], moving?: Box, extra: FrameFindings['scores'] = {}): FrameFindings {
  const scores: FrameFindings['scores'] = { ...extra };
  for (const d of detections) scores[d.label] = Math.max(scores[d.label] ?? 0, d.score);
  return { t, sample: sample(t, moving), scores, detections };
}

/** LocalMotion for a clip where `flowOf(cell, sample)` moves each cell, the camera still (or moving by `camera` px). */
export function cellMotion(samples: number, flowOf: (c: number, t: number) => [number, number], camera = 0): LocalMotion[] {
  return Array.from({ length: samples }, (_, t) => {
    const flow = new Float32Array(MOTION_GRID.x * MOTION_GRID.y * 2);
    const change = new Float32Array(MOTION_GRID.x * MOTION_GRID.y);
    for (let c = 0; c < change.length; c++) {
      const [u, v] = flowOf(c, t);
      flow[c * 2] = u;
      flow[c * 2 + 1] = v;
      change[c] = Math.hypot(u, v) * 20; // a texture of 20 gray levels a px
    }
    return { change, net: new Float32Array(change.length), isotropy: new Float32Array(change.length).fill(1), flow, texture: new Float32Array(change.length).fill(20), pixels: 24, camera };
  });
}

/** The cells of a block of the grid: x0, y0 its first cell, w by h cells. */
export const gridBlock = (x0: number, y0: number, w: number, h: number) => (c: number) => {
  const x = c % MOTION_GRID.x, y = Math.floor(c / MOTION_GRID.x);
  return x >= x0 && x < x0 + w && y >= y0 && y < y0 + h;
};
