// Gives the memory of finished clips back once the daemon is idle. Frames,
// crops and the encoders' output are buffers outside V8's heap, which V8
// collects only under allocation pressure: after a burst, an idle daemon would
// keep them for hours. When no job has run for a moment, one full collection
// (milliseconds on the daemon's heap) frees them, and glibc is then asked to
// give what was freed back to the system (core/memory.ts). It needs gc exposed
// (NODE_OPTIONS=--expose-gc, as the systemd unit sets); without it, nothing.
import type { EventBus } from '../core/bus.js';
import type { Feature } from '../core/feature.js';
import { collectThenTrim } from '../core/memory.js';

const IDLE_MS = 2000;

export class IdleCollector implements Feature {
  readonly name = 'idle-collector';
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: Array<() => void> = [];

  constructor(private readonly deps: { bus: EventBus; busy: () => boolean }) {}

  async start(): Promise<void> {
    if (typeof globalThis.gc !== 'function') return;
    this.unsubscribe = [this.deps.bus.on('result.final', () => this.schedule())];
  }

  async stop(): Promise<void> {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    clearTimeout(this.timer);
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => (this.deps.busy() ? this.schedule() : collectThenTrim().unref()), IDLE_MS);
    this.timer.unref();
  }
}
