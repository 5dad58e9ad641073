// Segmentation masks -> detections: the pixels of each mapped class are
// grouped into connected segments (on a coarser grid, which is plenty for
// boxes), and a segment's score grows with its share of the input.
import type { Detection } from '../core/analysis.js';
import type { LabelMap } from './label-map.js';

const STEP = 4;

export interface SegmentOptions {
  /** the share of the input at which a segment counts with full confidence */
  fullArea: number;
  /** smaller segments are noise */
  minArea: number;
}

/** Detections in the mask's own coordinates (0..1 of the input it was run on). */
export function segmentDetections(mask: Uint8Array, size: number, map: LabelMap, options: SegmentOptions): Detection[] {
  const cols = Math.ceil(size / STEP);
  const rows = cols;
  const grid = new Uint8Array(cols * rows);
  for (let gy = 0; gy < rows; gy++) {
    for (let gx = 0; gx < cols; gx++) grid[gy * cols + gx] = mask[Math.min(size - 1, gy * STEP) * size + Math.min(size - 1, gx * STEP)]!;
  }
  const seen = new Uint8Array(grid.length);
  const detections: Detection[] = [];
  for (let start = 0; start < grid.length; start++) {
    const cls = grid[start]!;
    const target = map[cls];
    if (seen[start] || !target) continue;
    let count = 0;
    let x0 = cols, y0 = rows, x1 = 0, y1 = 0;
    const stack = [start];
    seen[start] = 1;
    while (stack.length) {
      const c = stack.pop()!;
      count++;
      const x = c % cols;
      const y = (c - x) / cols;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      for (const n of [x > 0 ? c - 1 : -1, x < cols - 1 ? c + 1 : -1, y > 0 ? c - cols : -1, y < rows - 1 ? c + cols : -1]) {
        if (n >= 0 && !seen[n] && map[grid[n]!]?.label === target.label) {
          seen[n] = 1;
          stack.push(n);
        }
      }
    }
    const area = count / grid.length;
    if (area < options.minArea) continue;
    detections.push({
      label: target.label,
      score: Math.min(1, (area / options.fullArea) * target.weight),
      box: { x: x0 / cols, y: y0 / rows, w: (x1 - x0 + 1) / cols, h: (y1 - y0 + 1) / rows },
    });
  }
  return detections;
}
