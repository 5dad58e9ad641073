// What one clip may spend on the networks: no more than a naive pipeline would
// (every model on one whole frame per second of clip), less what the naive
// pipeline does not pay: the motion pass's decode of the clip (the naive
// pipeline decodes it once, as the chosen frames' decode does) and a fixed
// cost per clip (a second ffmpeg, the motion pass's arithmetic, the crops:
// about 100 ms more than the naive pipeline's fixed cost, where it spends
// 140 ms on a frame), taken as three quarters of one of its frames. A
// clip too short for that still gets one first look. A run costs its model's
// input pixels, which is what an inference's time follows on a CPU (SSD
// 300x300 about twice MobileNet 224x224). Every chosen frame takes its first look; what is left is
// shared equally between the frames for their closer looks (region,
// classifier), so the result does not depend on which frame's inferences
// finished first.

/**
 * Decoding one source pixel (H.264, at the motion pass's sampling) costs about this share of a
 * network input pixel's inference: a 720x576 frame about 1.3 ms where the 300x300 detector takes
 * 93 ms, on x86-64 and Arm alike (both run SIMD code for each).
 */
export const DECODE_COST_PER_PIXEL = 1 / 300;

/** The fixed cost per clip beyond the naive pipeline's, in naive frames (every model once). */
export const FIXED_COST_FRAMES = 0.75;

/** What decoding a whole clip costs, in network input pixels. */
export function decodeCost(clip: { width: number; height: number; nframes: number }): number {
  return clip.width * clip.height * Math.max(0, clip.nframes) * DECODE_COST_PER_PIXEL;
}

/**
 * What a naive pipeline spends on a clip, every model (by cost) on every naive frame, less the
 * fixed cost per clip and a decode of the clip.
 */
export function clipBudget(costs: number[], naiveFrames: number, decode = 0): number {
  const frame = costs.reduce((a, b) => a + b, 0);
  return Math.max(0, (naiveFrames - FIXED_COST_FRAMES) * frame - decode);
}

/** How many frames can each take their first look within the clip's budget (one at least). */
export function framesAffordable(total: number, firstLook: number): number {
  return firstLook > 0 ? Math.max(1, Math.floor(total / firstLook)) : Infinity;
}

/**
 * One frame's share of what the clip's first looks leave. A frame `assured` its other models'
 * look (the classifier for what the detector does not know: a flag, a spider, a plant) has it
 * whatever is left: the clip's liveliest frame, where decoding a large clip a second time (a
 * 1080p one) is what takes the room for it. Beside that decode the one look costs little, and
 * it is the only chance to name what moved.
 */
export class FrameBudget {
  private left: number;

  constructor(total: number, firstLook: number, frames: number, readonly assured = false) {
    this.left = frames > 0 ? Math.max(0, total - firstLook * frames) / frames : 0;
  }

  /** Whether the frame's share still holds looks costing `cost` in all (nothing taken). */
  affords(cost: number): boolean {
    return this.left >= cost;
  }

  /** A closer look costing `cost`: granted while the frame's share holds it. */
  take(cost: number): boolean {
    if (!this.affords(cost)) return false;
    this.left -= cost;
    return true;
  }
}
