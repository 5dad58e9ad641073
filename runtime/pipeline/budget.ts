// What one clip may spend on the networks: no more than a naive pipeline would
// (every model on one whole frame per second of clip), less one such frame,
// which pays for the motion pass and the crops; a clip too short for that
// still gets one first look. A run costs its model's input pixels, which is
// what an inference's time follows on a CPU (SSD 300x300 about twice
// MobileNet 224x224). Every chosen frame takes its first look; what is left is
// shared equally between the frames for their closer looks (region,
// classifier), so the result does not depend on which frame's inferences
// finished first.

/** What a naive pipeline spends on a clip, every model (by cost) on every naive frame, less one of those frames. */
export function clipBudget(costs: number[], naiveFrames: number): number {
  return (naiveFrames - 1) * costs.reduce((a, b) => a + b, 0);
}

/** How many frames can each take their first look within the clip's budget (one at least). */
export function framesAffordable(total: number, firstLook: number): number {
  return firstLook > 0 ? Math.max(1, Math.floor(total / firstLook)) : Infinity;
}

/** One frame's share of what the clip's first looks leave. */
export class FrameBudget {
  private left: number;

  constructor(total: number, firstLook: number, frames: number) {
    this.left = frames > 0 ? Math.max(0, total - firstLook * frames) / frames : 0;
  }

  /** A closer look costing `cost`: granted while the frame's share holds it. */
  take(cost: number): boolean {
    if (this.left < cost) return false;
    this.left -= cost;
    return true;
  }
}
