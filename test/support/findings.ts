// Made-up motion and findings for the pure pipeline tests (decision, frame choice): motion
// samples whose moving cells lie under a box, and what the networks "found" in a frame.
import type { Box, Detection } from '../../runtime/core/analysis.js';
import type { FrameFindings } from '../../runtime/pipeline/decide.js';
import { MOTION_GRID, type MotionPattern, type MotionSample } from '../../runtime/pipeline/motion.js';

/** A clip that moved a little, dry and without sway. */
export const pattern: MotionPattern = { moving: true, spread: 0.1, fragmentation: 0, oscillation: 0, travel: 0.3, pan: 0, repeat: 0, streaks: 0, flakes: 0 };

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
  return { t, energy, cells: c, solidCells: c, region: moving, speckle: 0, foreground: cells() };
}

/** A frame holding these detections (its scores their best per label, and `extra`), moving under `moving`. */
export function frame(t: number, detections: Detection[], moving?: Box, extra: FrameFindings['scores'] = {}): FrameFindings {
  const scores: FrameFindings['scores'] = { ...extra };
  for (const d of detections) scores[d.label] = Math.max(scores[d.label] ?? 0, d.score);
  return { t, sample: sample(t, moving), scores, detections };
}
