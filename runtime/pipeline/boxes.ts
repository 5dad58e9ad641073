// Box geometry shared by the pipeline: where a network looks (a square region
// around motion, as NVR detectors do), mapping what it found back to the
// frame, and merging what overlapping views found twice.
import type { Box, Detection } from '../core/analysis.js';

export const area = (b: Box): number => b.w * b.h;

/** Intersection over union of two boxes. */
export function iou(a: Box, b: Box): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / (area(a) + area(b) - inter);
}

/**
 * Distance between the centres of two boxes, in shares of the frame's height when given its
 * aspect (width over height), else in normalised frame units.
 */
export function centreDistance(a: Box, b: Box, aspect = 1): number {
  return Math.hypot((a.x + a.w / 2 - (b.x + b.w / 2)) * aspect, a.y + a.h / 2 - (b.y + b.h / 2));
}

/** Whether a point (in 0..1 of the frame, as boxes are) lies in a box, its edges included. */
export function inside(p: { x: number; y: number }, b: Box): boolean {
  return p.x >= b.x && p.x <= b.x + b.w && p.y >= b.y && p.y <= b.y + b.h;
}

/** Share of `inner` that lies inside `outer`. */
export function covered(inner: Box, outer: Box): number {
  const w = Math.min(inner.x + inner.w, outer.x + outer.w) - Math.max(inner.x, outer.x);
  const h = Math.min(inner.y + inner.h, outer.y + outer.h) - Math.max(inner.y, outer.y);
  return w > 0 && h > 0 && area(inner) > 0 ? (w * h) / area(inner) : 0;
}

/** The part of a box inside the frame; none when it lies out of it. */
export function inFrame(box: Box): Box | undefined {
  const x = Math.max(0, box.x), y = Math.max(0, box.y);
  const w = Math.min(1, box.x + box.w) - x, h = Math.min(1, box.y + box.h) - y;
  return w > 0 && h > 0 ? { x, y, w, h } : undefined;
}

/** Maps a box found inside a view (a crop, or the whole frame when none) back to frame coordinates. */
export function fromCrop(box: Box, crop: Box | undefined): Box {
  if (!crop) return box;
  return { x: crop.x + box.x * crop.w, y: crop.y + box.y * crop.h, w: box.w * crop.w, h: box.h * crop.h };
}

export interface FrameSize {
  width: number;
  height: number;
}

/**
 * A square region of the frame around a moving region (in frame pixels, so nothing arrives
 * stretched): 1.5 times the region's longer side, never smaller than the network's input
 * (a smaller one would be enlarged, adding no detail) unless the frame is, never larger than
 * the frame's short side, centred on the region and moved inside the frame.
 */
export function squareRegion(region: Box, frame: FrameSize, minSide: number): Box {
  const longest = Math.max(region.w * frame.width, region.h * frame.height);
  const side = Math.min(Math.min(frame.width, frame.height), Math.max(longest * 1.5, minSide));
  const cx = (region.x + region.w / 2) * frame.width;
  const cy = (region.y + region.h / 2) * frame.height;
  const left = Math.min(frame.width - side, Math.max(0, cx - side / 2));
  const top = Math.min(frame.height - side, Math.max(0, cy - side / 2));
  return { x: left / frame.width, y: top / frame.height, w: side / frame.width, h: side / frame.height };
}

/**
 * Non-maximum suppression per label: of detections of one label that overlap (IoU over
 * `overlap`, or one lying mostly inside the other, as a whole-frame box and the same object
 * seen larger in a crop do), the best-scored one stays.
 */
export function suppress(detections: Detection[], overlap = 0.5): Detection[] {
  const kept: Detection[] = [];
  for (const d of [...detections].sort((a, b) => b.score - a.score)) {
    const same = (k: Detection) => k.label === d.label && (iou(k.box, d.box) > overlap || covered(d.box, k.box) > 0.8 || covered(k.box, d.box) > 0.8);
    if (!kept.some(same)) kept.push(d);
  }
  return kept;
}
