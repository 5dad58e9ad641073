// Which moments of a clip the networks see. Inference is the cost, so the
// motion pass decides: the moving stretch is cut into equal parts and the
// liveliest sample of each part is taken, at most `max` per clip. Around a
// small moving region a crop is added, so distant objects fill the input.
import type { Box } from '../core/analysis.js';
import type { MotionSample } from './motion.js';

export interface ChosenFrame {
  /** index of the sample (frame number at the motion pass's sampling rate) */
  index: number;
  sample: MotionSample;
  /** a crop around the moving region, when it is small enough to be worth one */
  crop: Box | undefined;
}

/** A moving region under this share of the frame gets a crop of its own. */
const CROP_BELOW = 0.3;

export function cropAround(region: Box): Box {
  const side = (v: number) => Math.min(1, Math.max(0.3, v * 1.6));
  const w = side(region.w);
  const h = side(region.h);
  const cx = region.x + region.w / 2;
  const cy = region.y + region.h / 2;
  const x = Math.min(1 - w, Math.max(0, cx - w / 2));
  const y = Math.min(1 - h, Math.max(0, cy - h / 2));
  return { x, y, w, h };
}

export function chooseFrames(samples: MotionSample[], max: number): ChosenFrame[] {
  const moving = samples.map((sample, index) => ({ sample, index })).filter((s) => s.sample.region);
  if (moving.length === 0 || max < 1) return [];
  const parts = Math.min(max, moving.length);
  const chosen: Array<{ sample: MotionSample; index: number }> = [];
  for (let p = 0; p < parts; p++) {
    const part = moving.slice(Math.floor((p * moving.length) / parts), Math.floor(((p + 1) * moving.length) / parts));
    chosen.push(part.reduce((best, s) => (s.sample.energy > best.sample.energy ? s : best)));
  }
  return chosen.map(({ sample, index }) => {
    const region = sample.region!;
    return { index, sample, crop: region.w * region.h < CROP_BELOW ? cropAround(region) : undefined };
  });
}
