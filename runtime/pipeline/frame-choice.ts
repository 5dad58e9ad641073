// Which moments of a clip the networks see. Inference is the cost, so the
// motion pass decides: the moving stretch is cut into equal parts and the
// liveliest sample of each part is taken. How many parts follows how long
// things move: a few for a short event, more for a long busy clip, at most
// `max` (inference.max_frames), and never more than a naive pipeline sampling
// the clip once a second would look at. Around a moving region that is small
// in the frame a square region is added, so distant objects fill more of the
// network's input; around a lone frame's, at a closer look's scale.
import type { Box } from '../core/analysis.js';
import { area, squareRegion, type FrameSize } from './boxes.js';
import { SAMPLE_FPS, type MotionSample } from './motion.js';

export interface ChosenFrame {
  /** index of the sample (frame number at the motion pass's sampling rate) */
  index: number;
  sample: MotionSample;
  /** a region around the moving area, when it is small enough to be worth one */
  crop: Box | undefined;
  /** a closer look framed on one small mover's path (a dim view is exposed for it: dim-view.ts) */
  onMover?: boolean;
}

/** A frame for every this many seconds of motion... */
const SECONDS_PER_FRAME = 1.5;
/** ...and never fewer than this: a person must be seen twice to be confirmed when unsure. */
const MIN_FRAMES = 2;

/** Frames a pipeline sampling once a second takes from a clip this long (ffmpeg's fps=1: at 0 s, 1 s, ...). */
export function naiveFrames(clipSeconds: number): number {
  return Math.max(1, Math.round(clipSeconds));
}

/**
 * Frames for a clip whose motion lasts `seconds`, of a clip `clipSeconds` long: never more
 * than one a second of clip, so a short clip costs no more than sampling it once a second.
 */
export function framesFor(seconds: number, max: number, clipSeconds = Infinity): number {
  return Math.min(max, naiveFrames(clipSeconds), Math.max(MIN_FRAMES, Math.ceil(seconds / SECONDS_PER_FRAME)));
}

/** A closer look's region side, as a share of a first look's least: the network's input at twice the scale. */
export const CLOSER_SIDE = 0.5;

/** A region covering more of the frame than this adds little to the whole frame: not worth a run. */
const REGION_BELOW = 0.75;

/**
 * @param samples every sample of the motion pass (their count is the clip's length)
 * @param max frames at most (besides the clip's own bound)
 * @param frame the clip's size in pixels (regions are square in pixels)
 * @param minSide a region is never smaller than this many pixels (the network's input side)
 */
export function chooseFrames(samples: MotionSample[], max: number, frame: FrameSize, minSide: number): ChosenFrame[] {
  const moving = samples.map((sample, index) => ({ sample, index })).filter((s) => s.sample.region);
  if (moving.length === 0 || max < 1) return [];
  const parts = Math.min(framesFor(moving.length / SAMPLE_FPS, max, samples.length / SAMPLE_FPS), moving.length);
  const chosen: Array<{ sample: MotionSample; index: number }> = [];
  if (parts === 1) {
    // A lone frame stands for the whole moving stretch: its middle, or the middle of the samples
    // where something stands out of the background, when some do (an object there, not only a
    // change: rain or snow keep every sample of a clip changing, after the walker has left too).
    const standing = moving.filter((s) => s.sample.foreground.includes(1));
    const stretch = standing.length ? standing : moving;
    chosen.push(stretch[stretch.length >> 1]!);
  } else {
    // With several parts, each part's liveliest sample, where what moves is most in view.
    for (let p = 0; p < parts; p++) {
      const part = moving.slice(Math.floor((p * moving.length) / parts), Math.floor(((p + 1) * moving.length) / parts));
      chosen.push(part.reduce((best, s) => (s.sample.energy > best.sample.energy ? s : best)));
    }
  }
  // A lone look decides the clip alone, and what it sees once must clear its threshold by a step
  // of the detector's scores (decide.ts, doubts): a small mover is where the detector is least
  // sure, so the lone look frames it as a margin's closer look would, instead of running twice.
  return chosen.map(({ sample, index }) => framed(sample, index, frame, parts === 1 ? CLOSER_SIDE * minSide : minSide));
}

/** A moving sample with the region around its motion, when that is small enough to be worth one. */
function framed(sample: MotionSample, index: number, frame: FrameSize, minSide: number): ChosenFrame {
  const region = squareRegion(sample.region!, frame, minSide);
  return { index, sample, crop: area(region) < REGION_BELOW ? region : undefined };
}

/**
 * A lone frame framed as the frames of a longer clip are (its region at least `minSide`), where
 * chooseFrames framed it closer; none where that is the view it already has (both square about
 * the same moving area: the same side is the same view).
 */
export function widerView(lone: ChosenFrame, frame: FrameSize, minSide: number): ChosenFrame | undefined {
  const wider = framed(lone.sample, lone.index, frame, minSide);
  return lone.crop && wider.crop?.w !== lone.crop.w ? wider : undefined;
}

/**
 * A moment framed as a lone frame is (its region at least CLOSER_SIDE of `minSide`), where
 * that is another view than the one it has; none where it is the same.
 */
export function closerView(moment: ChosenFrame, frame: FrameSize, minSide: number): ChosenFrame | undefined {
  const closer = framed(moment.sample, moment.index, frame, CLOSER_SIDE * minSide);
  return closer.crop && closer.crop.w !== moment.crop?.w ? closer : undefined;
}

/**
 * Another moment of the clip than the `taken` samples: its liveliest other moving sample (where
 * what moves is most in view), framed as the frames of a longer clip are (what a lone frame's
 * closer framing cut off is in view); none when nothing else moved.
 */
export function anotherMoment(samples: MotionSample[], taken: number[], frame: FrameSize, minSide: number): ChosenFrame | undefined {
  let best: { sample: MotionSample; index: number } | undefined;
  samples.forEach((sample, index) => {
    if (sample.region && !taken.includes(index) && (!best || sample.energy > best.sample.energy)) best = { sample, index };
  });
  return best && framed(best.sample, best.index, frame, minSide);
}
