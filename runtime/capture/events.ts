// When motion on a watched camera is an event: a pure state machine fed with
// one verdict per sampled frame (moving or not) and its time. Motion that
// holds for minMotionS starts an event (dated from its first moving frame);
// quietS without motion ends it (dated to its last moving frame); an event
// reaching maxClipS is split, the next part starting where it was cut; after
// an event ends, no new one starts for cooldownS.

export interface EventRules {
  minMotionS: number;
  quietS: number;
  maxClipS: number;
  cooldownS: number;
}

/** What happened with one sample: times in seconds, on the clock the samples are dated with. */
export type EventChange =
  | { type: 'start'; at: number }
  /** motionEnd: the last moving sample (or the split time); split: the event goes on as a new one from motionEnd */
  | { type: 'end'; start: number; motionEnd: number; split: boolean };

export type EventPhase = 'idle' | 'pending' | 'event' | 'cooldown';

/**
 * Motion that pauses for at most this long (or minMotionS when longer) still holds: a walker
 * whose frames barely differ for a sample or two has not stopped.
 */
const HOLD_GAP_S = 0.5;

export class MotionEvents {
  private phase: EventPhase = 'idle';
  /** first moving sample of the motion under way (pending or event) */
  private since = 0;
  private lastMoving = 0;
  private coolUntil = 0;

  constructor(private readonly rules: EventRules) {}

  get state(): EventPhase {
    return this.phase;
  }

  /** The start of the event under way, if any. */
  get eventStart(): number | undefined {
    return this.phase === 'event' ? this.since : undefined;
  }

  /** One sample; returns what it changed (nothing, a start, an end, or an end and a start when split). */
  sample(t: number, moving: boolean): EventChange[] {
    const { minMotionS, quietS, maxClipS } = this.rules;
    switch (this.phase) {
      case 'cooldown':
        if (t < this.coolUntil) return [];
        this.phase = 'idle';
        return this.sample(t, moving);
      case 'idle':
        if (!moving) return [];
        this.phase = 'pending';
        this.since = t;
        this.lastMoving = t;
        return this.sample(t, moving);
      case 'pending':
        if (!moving) {
          if (t - this.lastMoving > Math.max(HOLD_GAP_S, minMotionS)) this.phase = 'idle';
          return [];
        }
        this.lastMoving = t;
        if (t - this.since < minMotionS) return [];
        this.phase = 'event';
        return [{ type: 'start', at: this.since }];
      case 'event': {
        if (moving) this.lastMoving = t;
        if (t - this.since >= maxClipS) {
          const start = this.since;
          this.since = t;
          return [{ type: 'end', start, motionEnd: t, split: true }, { type: 'start', at: t }];
        }
        if (!moving && t - this.lastMoving >= quietS) return [this.finish(t)];
        return [];
      }
    }
  }

  /** Ends the event under way now (the stream dropped, the camera is stopping); dated to its last motion. */
  interrupt(t: number): EventChange[] {
    if (this.phase === 'pending') this.phase = 'idle';
    return this.phase === 'event' ? [this.finish(t)] : [];
  }

  private finish(t: number): EventChange {
    const change: EventChange = { type: 'end', start: this.since, motionEnd: this.lastMoving, split: false };
    this.phase = this.rules.cooldownS > 0 ? 'cooldown' : 'idle';
    this.coolUntil = t + this.rules.cooldownS;
    return change;
  }
}
