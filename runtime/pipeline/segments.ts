// Segmentation masks -> detections: the pixels of each mapped class are
// grouped into connected segments (on a coarser grid, which is plenty for
// boxes), and a segment's score grows with its share of the input.
import type { Detection } from '../core/analysis.js';
import { connectedGroups } from './cell-groups.js';
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
  const detections: Detection[] = [];
  // a segment: neighbouring cells whose classes map to the same label
  const sameLabel = (cell: number, seed: number) => {
    const target = map[grid[seed]!];
    return target !== undefined && map[grid[cell]!]?.label === target.label;
  };
  for (const group of connectedGroups({ x: cols, y: rows }, sameLabel)) {
    const target = map[grid[group[0]!]!]!;
    const count = group.length;
    let x0 = cols, y0 = rows, x1 = 0, y1 = 0;
    for (const c of group) {
      const x = c % cols;
      const y = (c - x) / cols;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
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
