// Failed dashboard sign-ins per client address: after `limit` failures within
// a window, that address must wait until the oldest of them leaves the window
// (429 with Retry-After), whatever key it tries. Keys are long random strings
// (README, Dashboard), so this mostly keeps a guessing loop from filling the
// log and the CPU: it also says which failures are worth a log line (at most
// two per address and window). The table is bounded: the least recently
// failing address goes first.

/** addresses remembered at most */
const MAX_ADDRESSES = 10_000;

interface Failures {
  /** times of its failures within the window, oldest first */
  times: number[];
  /** when it was last reported as throttled */
  reportedMs: number;
}

export interface Failure {
  /** its first failure in the window: log it */
  first: boolean;
  /** the address is throttled from now on and was not reported so within the window: log it */
  throttled: boolean;
}

export class SignInThrottle {
  private readonly byAddress = new Map<string, Failures>();

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds the address must wait before it may try again; 0 when it may try now. */
  waitS(address: string): number {
    const times = this.recent(address)?.times ?? [];
    if (times.length < this.limit) return 0;
    return Math.max(1, Math.ceil((times[0]! + this.windowMs - this.now()) / 1000));
  }

  /** Counts a failure of the address. */
  failed(address: string): Failure {
    const now = this.now();
    const entry = this.recent(address) ?? { times: [], reportedMs: -Infinity };
    entry.times = [...entry.times, now].slice(-this.limit);
    this.byAddress.delete(address); // re-inserted last: the map stays ordered by latest failure
    this.byAddress.set(address, entry);
    if (this.byAddress.size > MAX_ADDRESSES) this.byAddress.delete(this.byAddress.keys().next().value!);
    const throttled = entry.times.length >= this.limit && entry.reportedMs <= now - this.windowMs;
    if (throttled) entry.reportedMs = now;
    return { first: entry.times.length === 1, throttled };
  }

  private recent(address: string): Failures | undefined {
    const entry = this.byAddress.get(address);
    if (!entry) return undefined;
    const since = this.now() - this.windowMs;
    entry.times = entry.times.filter((t) => t > since);
    if (!entry.times.length && entry.reportedMs <= since) {
      this.byAddress.delete(address);
      return undefined;
    }
    return entry;
  }
}
