// The event rules of watched cameras, fed samples at 5 per second: when motion
// starts an event, when quiet ends it, where a long one is split, and how the
// cool-down keeps swaying from starting events back to back.
import { expect } from 'chai';
import { MotionEvents, type EventChange } from '../../runtime/capture/events.js';

const RULES = { minMotionS: 0.6, quietS: 2, maxClipS: 10, cooldownS: 3 };
const STEP = 0.2;

/** Feeds `moving(t)` from t0 to t1 (exclusive) every STEP s; returns the changes with their sample time. */
function feed(events: MotionEvents, t0: number, t1: number, moving: (t: number) => boolean): Array<EventChange & { t: number }> {
  const out: Array<EventChange & { t: number }> = [];
  for (let i = 0; t0 + i * STEP < t1 - 1e-9; i++) {
    const t = Math.round((t0 + i * STEP) * 1000) / 1000;
    for (const change of events.sample(t, moving(t))) out.push({ ...change, t });
  }
  return out;
}

describe('motion event rules', () => {
  it('starts an event dated from the first moving sample once motion held min_motion_s, and ends it quiet_s after the last', () => {
    const events = new MotionEvents(RULES);
    const changes = feed(events, 0, 9, (t) => t >= 3 && t < 6);
    expect(changes).to.have.length(2);
    expect(changes[0]).to.deep.include({ type: 'start', at: 3, t: 3.6 });
    expect(changes[1]).to.deep.include({ type: 'end', start: 3, split: false, t: 7.8 });
    expect((changes[1] as { motionEnd: number }).motionEnd).to.be.closeTo(5.8, 1e-9);
    expect(events.state).to.equal('cooldown');
  });

  it('starts nothing for motion shorter than min_motion_s, nor for a single changed frame', () => {
    const events = new MotionEvents(RULES);
    expect(feed(events, 0, 10, (t) => (t >= 2 && t < 2.4) || Math.abs(t - 6) < 1e-9)).to.deep.equal([]);
    expect(events.state).to.equal('idle');
  });

  it('keeps one event through pauses shorter than quiet_s', () => {
    const events = new MotionEvents(RULES);
    // a walk with a 1.5 s stop in the middle
    const changes = feed(events, 0, 15, (t) => (t >= 1 && t < 4) || (t >= 5.5 && t < 8));
    expect(changes.map((c) => c.type)).to.deep.equal(['start', 'end']);
    expect((changes[1] as { motionEnd: number }).motionEnd).to.be.closeTo(7.8, 1e-9);
  });

  it('splits an event at max_clip_s, the next part starting where it was cut', () => {
    const events = new MotionEvents(RULES);
    const changes = feed(events, 0, 30, (t) => t >= 1 && t < 24);
    expect(changes.map((c) => c.type)).to.deep.equal(['start', 'end', 'start', 'end', 'start', 'end']);
    expect(changes[1]).to.deep.include({ split: true, start: 1 });
    expect(changes[2]).to.deep.include({ type: 'start', at: 11 });
    expect(changes[3]).to.deep.include({ split: true, start: 11 });
    expect(changes[5]).to.deep.include({ split: false, start: 21 });
  });

  it('starts no event during the cool-down: a swaying branch every 2 s makes one event, then one per cool-down', () => {
    const events = new MotionEvents({ ...RULES, quietS: 1 });
    // bursts of 1 s of motion every 2.5 s
    const sway = (t: number) => t % 2.5 < 1;
    const changes = feed(events, 0, 20, sway);
    const starts = changes.filter((c) => c.type === 'start').map((c) => (c as { at: number }).at);
    // each event ends 1 s after its burst, then 3 s of cool-down: never back to back
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).to.be.at.least(5);
    expect(starts.length).to.be.within(2, 4);
  });

  it('ends the event under way when interrupted (the stream dropped), dated to its last motion', () => {
    const events = new MotionEvents(RULES);
    feed(events, 0, 3, (t) => t >= 1);
    expect(events.eventStart).to.equal(1);
    const [end] = events.interrupt(5);
    expect(end).to.deep.include({ type: 'end', start: 1, split: false });
    expect((end as { motionEnd: number }).motionEnd).to.be.closeTo(2.8, 1e-9);
    expect(events.interrupt(6)).to.deep.equal([]);
  });
});
