// A pass that runs on demand, one at a time: a request during a pass asks for one
// more pass after it, so a burst of events (jobs accepted, results final) costs at
// most two passes and never two at once. Used by the job runner, the deliveries and
// the outbox drop policy.
import { withoutLogFields } from './log.js';

export class CoalescingPump {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly onError: (err: unknown) => void,
    /** no further pass once this says so (the owner is stopping) */
    private readonly stopped: () => boolean,
  ) {}

  request(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    // the pass serves every request, so it carries none's log fields (request id)
    this.running = withoutLogFields(() => this.loop());
  }

  /** Resolves once the pass in progress, if any, has ended. */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.again = false;
        await this.pass();
      } while (this.again && !this.stopped());
    } catch (err) {
      this.onError(err);
    } finally {
      this.running = undefined; // in the same turn as the last check: no request falls between
    }
  }
}
