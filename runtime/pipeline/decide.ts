// From what the networks saw in each chosen frame, and how things moved, to
// the result: label scores aggregated over frames, the weather labels from
// the motion pattern, and the risk rules (README, "Labels and risk").
import type { Box, Detection, KeyFrame, Risk, ServiceLabel } from '../core/analysis.js';
import type { Manifest } from '../models/manifest.js';
import { MOTION_GRID, type MotionPattern, type MotionSample } from './motion.js';

/** What the networks made of one chosen frame. */
export interface FrameFindings {
  t: number;
  sample: MotionSample;
  /** label -> best score in this frame (boxed or not) */
  scores: Partial<Record<ServiceLabel, number>>;
  /** boxed findings, in frame coordinates */
  detections: Detection[];
}

export interface Decision {
  risk: Risk;
  labels: ServiceLabel[];
  scores: Partial<Record<ServiceLabel, number>>;
  keyframes: KeyFrame[];
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * Share of a box's cells that move, and of the cells outside it. A box smaller than a cell
 * takes the cell under its centre.
 */
function boxShares(box: Box, cells: Uint8Array): { inside: number; outside: number } {
  let inside = 0;
  let movingInside = 0;
  let movingOutside = 0;
  for (let y = 0; y < MOTION_GRID.y; y++) {
    for (let x = 0; x < MOTION_GRID.x; x++) {
      const cx = (x + 0.5) / MOTION_GRID.x;
      const cy = (y + 0.5) / MOTION_GRID.y;
      const moving = cells[y * MOTION_GRID.x + x]!;
      if (cx < box.x || cx > box.x + box.w || cy < box.y || cy > box.y + box.h) {
        movingOutside += moving;
      } else {
        inside++;
        movingInside += moving;
      }
    }
  }
  const outsideCount = MOTION_GRID.x * MOTION_GRID.y - inside;
  const outside = outsideCount ? movingOutside / outsideCount : 0;
  if (inside > 0) return { inside: movingInside / inside, outside };
  const x = Math.min(MOTION_GRID.x - 1, Math.floor((box.x + box.w / 2) * MOTION_GRID.x));
  const y = Math.min(MOTION_GRID.y - 1, Math.floor((box.y + box.h / 2) * MOTION_GRID.y));
  return { inside: cells[y * MOTION_GRID.x + x]!, outside };
}

/** Share of a box covered by the sample's moving cells. */
export function movingShare(box: Box, sample: MotionSample): number {
  return boxShares(box, sample.cells).inside;
}

/**
 * How much more a box moves than the rest of the frame, counting solid changes only: in rain
 * every cell flickers, so an intruder is what moves more than the rain around it.
 */
export function standsOut(box: Box, sample: MotionSample): number {
  const { inside, outside } = boxShares(box, sample.solidCells);
  return inside - outside;
}

/** rain: changes over most of the frame, mostly in specks (drops), going nowhere */
export function rainScore(p: MotionPattern): number {
  if (p.spread < 0.5 || p.fragmentation < 0.45 || p.travel > 0.2) return 0;
  return Math.min(1, p.spread * p.fragmentation * 1.25);
}

/** wind: motion that switches on and off in place (swaying leaves and branches) */
export function windScore(p: MotionPattern, plant: number): number {
  if (p.oscillation < 0.25 || p.travel > 0.2 || (plant < 0.3 && p.spread < 0.15)) return 0;
  return Math.min(1, p.oscillation * 1.5);
}

export function decide(frames: FrameFindings[], pattern: MotionPattern, manifest: Manifest): Decision {
  const threshold = (label: ServiceLabel) => manifest.thresholds[label] ?? manifest.default_threshold;
  const scores: Partial<Record<ServiceLabel, number>> = {};
  const raise = (label: ServiceLabel, score: number) => {
    if (score > (scores[label] ?? 0)) scores[label] = round(score);
  };
  for (const frame of frames) for (const [label, score] of Object.entries(frame.scores)) raise(label as ServiceLabel, score);
  raise('rain', rainScore(pattern));
  raise('wind', windScore(pattern, scores.plant ?? 0));

  const labels = (Object.keys(scores) as ServiceLabel[]).filter((l) => scores[l]! >= threshold(l));

  // Intrusion: a person or vehicle found with confidence where something moved. In rain every
  // cell flickers with drops: there the box must move more than the rain around it.
  const rainy = labels.includes('rain');
  const boxMoves = (box: Box, sample: MotionSample) =>
    rainy ? standsOut(box, sample) >= 0.25 : movingShare(box, sample) >= 0.1;
  let intrusion = 0;
  for (const frame of frames) {
    for (const label of manifest.risk.intrusion_labels) {
      const score = frame.scores[label] ?? 0;
      if (score < threshold(label)) continue;
      const boxes = frame.detections.filter((d) => d.label === label && d.score >= threshold(label));
      // A finding without a box (a whole-frame classification) counts when its frame moved, but
      // not in rain, where every frame does.
      const moving = boxes.length ? boxes.some((d) => boxMoves(d.box, frame.sample)) : !rainy && frame.sample.region !== undefined;
      if (moving) intrusion = Math.max(intrusion, score);
    }
  }
  let risk: Risk = 'safe';
  if (intrusion > 0) {
    risk = 'intrusion';
    raise('intrusion', intrusion);
    labels.push('intrusion');
  } else if ((scores.person ?? 0) >= manifest.risk.uncertain_person || labels.some((l) => manifest.risk.intrusion_labels.includes(l))) {
    risk = 'danger'; // a person-like finding that does not add up to a moving intruder: a human should look
  }
  if (labels.length === 0) {
    labels.push('other'); // something moved, and nothing the pack knows explains it
    scores.other = round(Math.max(0.01, 1 - Math.max(0, ...Object.values(scores))));
  }

  const reported = new Set(labels);
  const keyframes: KeyFrame[] = frames.map((f) => {
    const detections = f.detections.filter((d) => reported.has(d.label) && d.score >= threshold(d.label) * 0.5);
    const score = Math.max(0, ...[...reported].map((l) => f.scores[l] ?? 0), f.sample.energy);
    return { t: f.t, score: round(score), detections: detections.map((d) => ({ ...d, score: round(d.score) })) };
  });
  return { risk, labels: labels.sort(), scores, keyframes };
}
