// What a clip may spend on the networks (pipeline/budget.ts), against a pipeline sampling it
// once a second.
import { expect } from 'chai';
import { clipBudget, decodeCost, FrameBudget, framesAffordable } from '../../runtime/pipeline/budget.js';

describe('the inference budget', () => {
  it('a clip spends on the networks less than sampling it once a second, and every frame gets its first look', () => {
    const detector = 300 * 300;
    const classifier = 224 * 224;
    const frame = detector + classifier;
    // a 3 s clip: the naive pipeline runs both models on 3 frames; the clip may spend 2.25 frames' worth, less a decode
    const decode = decodeCost({ width: 480, height: 270, nframes: 45 });
    expect(decode).to.be.closeTo((480 * 270 * 45) / 300, 1e-6);
    const total = clipBudget([detector, classifier], 3, decode);
    expect(total).to.be.closeTo(2.25 * frame - decode, 1e-6);
    expect(framesAffordable(total, detector)).to.equal(3);
    // two frames share what their first looks leave
    const share = (total - 2 * detector) / 2;
    expect(share).to.be.above(classifier).and.below(detector);
    const budget = new FrameBudget(total, detector, 2);
    expect(budget.take(classifier)).to.equal(true);
    expect(budget.take(classifier)).to.equal(false);
    expect(new FrameBudget(total, detector, 2).take(detector)).to.equal(false);
    // a long clip of large frames: its decode leaves fewer frames than the naive pipeline's
    expect(framesAffordable(clipBudget([detector, classifier], 10, decodeCost({ width: 1280, height: 720, nframes: 250 })), detector)).to.be.below(10);
    // a clip shorter than 1.5 s: nothing to spare, one first look all the same
    expect(framesAffordable(clipBudget([detector, classifier], 1, 0), detector)).to.equal(1);
    expect(new FrameBudget(clipBudget([detector, classifier], 1, 0), detector, 1).take(1)).to.equal(false);
  });

  it("says whether a frame's share holds looks without taking them", () => {
    const detector = 300 * 300;
    const classifier = 224 * 224;
    // a share of 1.5 classifier looks: one of them, not the detector's and the classifier's together
    const budget = new FrameBudget(detector + 1.5 * classifier, detector, 1);
    expect(budget.affords(detector + classifier)).to.equal(false);
    expect(budget.affords(classifier)).to.equal(true);
    expect(budget.take(classifier)).to.equal(true); // affords took nothing
    expect(budget.affords(classifier)).to.equal(false);
  });
});
