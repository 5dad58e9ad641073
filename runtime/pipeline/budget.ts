// What one clip may spend on the networks: no more than a naive pipeline would
// (every model on one whole frame per second of clip), less one such frame,
// which pays for the motion pass and the crops; a clip too short for that
// still gets one first look. A run costs its model's input
// pixels, which is what an inference's time follows on a CPU (SSD 300x300
// about twice MobileNet 224x224). Every chosen frame is owed its first look;
// the closer looks (region, classifier) take what is left, first come first
// served.

export class InferenceBudget {
  private left: number;
  private owed: number;

  /**
   * @param total what the clip may spend
   * @param firstLook the cost of a frame's first look (the detectors on the whole frame)
   * @param frames the frames that will each take a first look
   */
  constructor(total: number, private readonly firstLook: number, frames: number) {
    this.left = total;
    this.owed = firstLook * frames;
  }

  /** What a naive pipeline spends on a clip, every model (by cost) on every naive frame, less one of those frames. */
  static naive(costs: number[], naiveFrames: number): number {
    return (naiveFrames - 1) * costs.reduce((a, b) => a + b, 0);
  }

  /** How many frames can each have their first look. */
  static framesAffordable(total: number, firstLook: number): number {
    return firstLook > 0 ? Math.max(1, Math.floor(total / firstLook)) : Infinity;
  }

  /** A frame takes its first look: always granted (the frames were counted to fit). */
  takeFirstLook(): void {
    this.left -= this.firstLook;
    this.owed -= this.firstLook;
  }

  /** A closer look costing `cost`: granted when it leaves enough for the first looks still owed. */
  take(cost: number): boolean {
    if (this.left - this.owed < cost) return false;
    this.left -= cost;
    return true;
  }
}
