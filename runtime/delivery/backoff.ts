// Exponential backoff with jitter: doubles per consecutive miss up to a ceiling,
// so many gateways that lost the same uplink do not all knock at once.
export class Backoff {
  misses = 0;

  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
  ) {}

  /** Counts a miss and returns how long to wait before the next try. */
  miss(): number {
    this.misses++;
    const base = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.misses - 1, 30));
    return Math.round(base * (0.8 + Math.random() * 0.2));
  }

  reset(): void {
    this.misses = 0;
  }
}
