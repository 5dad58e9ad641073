// A camera's masks, zones and label filters applied to one clip. Polygons are
// in relative coordinates (as Frigate keeps them); masks are rasterised once
// per clip onto the motion pass's pixels, so a masked pixel never changes and
// never differs from the background; detections and zones are tested at a
// box's bottom-centre, where an object touches the ground (Frigate does the same).
import type { Box, CameraRules, Detection, Polygon, Scores, ServiceLabel } from '../core/analysis.js';

/** Ray casting: is (x, y) inside the polygon? */
export function insidePolygon(x: number, y: number, polygon: Polygon): boolean {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const [xi, yi] = polygon[i]!;
    const [xj, yj] = polygon[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** 1 for each pixel (row-major width x height) whose centre lies in a mask; undefined when nothing is masked. */
export function rasteriseMasks(masks: Polygon[], width: number, height: number): Uint8Array | undefined {
  if (!masks.length) return undefined;
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const px = (x + 0.5) / width;
      const py = (y + 0.5) / height;
      if (masks.some((m) => insidePolygon(px, py, m))) out[y * width + x] = 1;
    }
  }
  return out;
}

function bottomCentre(box: Box): [number, number] {
  return [box.x + box.w / 2, Math.min(1, box.y + box.h)];
}

/** Is the box's bottom-centre in a mask? */
export function isMasked(box: Box, rules: CameraRules | undefined): boolean {
  if (!rules?.masks.length) return false;
  const [x, y] = bottomCentre(box);
  return rules.masks.some((m) => insidePolygon(x, y, m));
}

/** Is the box's bottom-centre inside a zone (any box when the camera has no zones)? */
export function inZone(box: Box, rules: CameraRules | undefined): boolean {
  if (!rules?.zones.length) return true;
  const [x, y] = bottomCentre(box);
  return rules.zones.some((z) => insidePolygon(x, y, z.points));
}

/** Does a label at this score count on this camera (always, when the camera filters no labels)? */
export function labelAllowed(label: ServiceLabel, score: number, rules: CameraRules | undefined): boolean {
  if (!rules || Object.keys(rules.labels).length === 0) return true;
  const min = rules.labels[label];
  return min !== undefined && score >= min;
}

/** A frame's findings without masked detections and labels the camera does not count. */
export function applyCameraRules<T extends { scores: Scores; detections: Detection[] }>(
  frame: T,
  rules: CameraRules | undefined,
): T {
  if (!rules) return frame;
  const detections = frame.detections.filter((d) => !isMasked(d.box, rules) && labelAllowed(d.label, d.score, rules));
  const scores: Scores = {};
  for (const [label, score] of Object.entries(frame.scores) as Array<[ServiceLabel, number]>) {
    if (!labelAllowed(label, score, rules)) continue;
    // a label seen only in boxes, all of them masked, is not seen
    const boxed = frame.detections.some((d) => d.label === label);
    scores[label] = boxed ? Math.max(0, ...detections.filter((d) => d.label === label).map((d) => d.score)) : score;
  }
  return { ...frame, detections, scores };
}
