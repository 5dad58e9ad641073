// The highlight plan: which seconds are cut and where boxes are, from the
// Analysis alone (pure functions, no ffmpeg).
import { expect } from 'chai';
import type { KeyFrame } from '../../runtime/core/analysis.js';
import { MAX_HIGHLIGHT_S, NOTHING_HIGHLIGHT_S, boxAt, chooseWindow, planHighlight, scoreAt, trackSpan } from '../../runtime/highlight/plan.js';
import { piecewiseLinear } from '../../runtime/highlight/filters.js';
import { analysisOf, personKeyframes } from './support.js';

const still = { x: 0.3, y: 0.2, w: 0.3, h: 0.5 };

describe('highlight plan', () => {
  it('keeps the whole clip when it is short enough', () => {
    const keyframes = personKeyframes(0, 6, 1, () => still);
    expect(chooseWindow(keyframes, 6.5, MAX_HIGHLIGHT_S)).to.deep.equal({ start: 0, end: 6.5 });
  });

  it('cuts a long clip around its highest-scoring keyframes', () => {
    const duration = 40;
    const keyframes: KeyFrame[] = [];
    for (let t = 0; t <= duration; t += 1) keyframes.push({ t, score: t >= 25 && t <= 29 ? 0.95 : 0.05, detections: [] });
    const w = chooseWindow(keyframes, duration, MAX_HIGHLIGHT_S);
    expect(w.end - w.start).to.be.closeTo(MAX_HIGHLIGHT_S, 1e-6);
    expect(w.start).to.be.at.most(25);
    expect(w.end).to.be.at.least(29);
    expect(w.start).to.be.at.least(0);
    expect(w.end).to.be.at.most(duration);
  });

  it('never cuts past the ends of the clip', () => {
    const keyframes: KeyFrame[] = [{ t: 29.5, score: 1, detections: [] }, { t: 0.2, score: 0.1, detections: [] }];
    const late = chooseWindow(keyframes, 30, MAX_HIGHLIGHT_S);
    expect(late.end).to.be.at.most(30);
    expect(late.start).to.be.at.most(29.5);
    const early = chooseWindow([{ t: 0.1, score: 1, detections: [] }], 30, MAX_HIGHLIGHT_S);
    expect(early.start).to.equal(0);
  });

  it('gives a clip where nothing was found a short window and no boxes', () => {
    const keyframes: KeyFrame[] = [0, 5, 10, 15].map((t) => ({ t, score: 0.2, detections: [] }));
    const plan = planHighlight(analysisOf(keyframes, 'safe', ['NOTHING']), 20);
    expect(plan.nothing).to.equal(true);
    expect(plan.tracks).to.deep.equal([]);
    expect(plan.window.end - plan.window.start).to.be.closeTo(NOTHING_HIGHLIGHT_S, 1e-6);
  });

  it('follows one moving object as one track, interpolating between inferred frames', () => {
    const box = (t: number) => ({ x: 0.1 + 0.1 * t, y: 0.2, w: 0.2, h: 0.3 });
    const plan = planHighlight(analysisOf(personKeyframes(0, 4, 1, box)), 5);
    expect(plan.tracks).to.have.length(1);
    const track = plan.tracks[0];
    expect(track.points).to.have.length(5);
    expect(boxAt(track, 1.5).x).to.be.closeTo(box(1.5).x, 1e-9);
    expect(boxAt(track, 2.25).x).to.be.closeTo(box(2.25).x, 1e-9);
    // held at the ends rather than extrapolated
    expect(boxAt(track, 4.4).x).to.be.closeTo(box(4).x, 1e-9);
    const span = trackSpan(track, plan.window);
    expect(span.start).to.equal(0);
    expect(span.end).to.be.greaterThan(4).and.at.most(5);
  });

  it('keeps two objects of one label apart, and separates labels', () => {
    const keyframes: KeyFrame[] = [0, 1, 2].map((t) => ({
      t,
      score: 0.8,
      detections: [
        { label: 'person', score: 0.9, box: { x: 0.05 + 0.02 * t, y: 0.1, w: 0.1, h: 0.3 } },
        { label: 'person', score: 0.7, box: { x: 0.7 - 0.02 * t, y: 0.1, w: 0.1, h: 0.3 } },
        { label: 'vehicule', score: 0.6, box: { x: 0.7 - 0.02 * t, y: 0.1, w: 0.1, h: 0.3 } },
      ],
    }));
    const plan = planHighlight(analysisOf(keyframes, 'danger', ['person', 'vehicule']), 3);
    expect(plan.tracks.map((t) => t.label).sort()).to.deep.equal(['person', 'person', 'vehicule']);
    for (const track of plan.tracks) expect(track.points).to.have.length(3);
    const left = plan.tracks.find((t) => t.label === 'person' && t.points[0].box.x < 0.5)!;
    expect(scoreAt(left, 1)).to.be.closeTo(0.9, 1e-9);
  });

  it('draws only the labels that drove the result', () => {
    const keyframes: KeyFrame[] = [{
      t: 0.5, score: 0.8,
      detections: [
        { label: 'person', score: 0.9, box: still },
        { label: 'plant', score: 0.4, box: { x: 0, y: 0, w: 0.1, h: 0.1 } },
      ],
    }];
    const plan = planHighlight(analysisOf(keyframes, 'danger', ['person']), 2);
    expect(plan.tracks.map((t) => t.label)).to.deep.equal(['person']);
  });
});

describe('piecewise-linear ffmpeg expression', () => {
  // evaluates the expression the way ffmpeg would, for a check of the formula itself
  function evaluate(expr: string, t: number): number {
    const js = expr
      .replace(/\bgte\(t,([^)]+)\)/g, `(${t}>=$1?1:0)`)
      .replace(/\blt\(t,([^)]+)\)/g, `(${t}<$1?1:0)`)
      .replace(/\bt\b/g, String(t));
    return Function(`return ${js}`)() as number;
  }

  it('is linear between points and constant outside them', () => {
    const expr = piecewiseLinear([[1, 10], [3, 30], [4, 0]]);
    expect(evaluate(expr, 0)).to.equal(10);
    expect(evaluate(expr, 2)).to.be.closeTo(20, 1e-9);
    expect(evaluate(expr, 3.5)).to.be.closeTo(15, 1e-9);
    expect(evaluate(expr, 9)).to.equal(0);
  });
});
