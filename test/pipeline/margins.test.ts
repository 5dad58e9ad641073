// Margins (decide.ts): a person or vehicle seen once, within one step of the detector's
// quantized scores from its threshold, is decided by noise. Such a sighting is looked at again,
// and only agreement between the looks, or a score clear of the threshold, makes it found.
// Made-up findings: no model runs, so each case is exactly the one the rule is for.
import { expect } from 'chai';
import type { Box, CameraRules, Detection } from '../../runtime/core/analysis.js';
import { agreedLooks, closerLooksAgreeOn, closerLooksShort, closerLooksSplit, moversToCheck, decide, doubts, judgeOf, movingShare, seenMoving, someoneUnsure, type FrameFindings } from '../../runtime/pipeline/decide.js';
import type { MoverTrack, SmallMovers } from '../../runtime/pipeline/small-movers.js';
import { MOTION_GRID, type MotionPattern, type MotionSample } from '../../runtime/pipeline/motion.js';
import { rulesManifest } from '../support/rules-manifest.js';

/** A pack whose detector's scores come in steps of `step`, person and vehicle thresholds 0.55. */
function steppedManifest(step: number) {
  const manifest = rulesManifest({ person: 0.55, vehicule: 0.55 });
  return { ...manifest, models: manifest.models.map((m) => ({ ...m, score_step: step })) };
}
const STEP = 0.08;
const manifest = steppedManifest(STEP);
const pattern: MotionPattern = { moving: true, pan: 0, repeat: 0, streaks: 0, flakes: 0 };

/** A sample where the cells under `moving` move. */
function sample(t: number, moving: Box): MotionSample {
  const cells = new Uint8Array(MOTION_GRID.x * MOTION_GRID.y);
  for (let y = 0; y < MOTION_GRID.y; y++) for (let x = 0; x < MOTION_GRID.x; x++) {
    const cx = (x + 0.5) / MOTION_GRID.x;
    const cy = (y + 0.5) / MOTION_GRID.y;
    if (cx >= moving.x && cx <= moving.x + moving.w && cy >= moving.y && cy <= moving.y + moving.h) cells[y * MOTION_GRID.x + x] = 1;
  }
  return { t, energy: 0.05, cells, solidCells: cells, region: moving, foreground: new Uint8Array(cells.length) };
}

function frame(t: number, detections: Detection[], moving: Box): FrameFindings {
  const scores: FrameFindings['scores'] = {};
  for (const d of detections) scores[d.label] = Math.max(scores[d.label] ?? 0, d.score);
  return { t, sample: sample(t, moving), scores, detections };
}

const walker = (x: number): Box => ({ x, y: 0.3, w: 0.1, h: 0.4 });
const seenOnce = (score: number, label: Detection['label'] = 'person') => [frame(0.5, [{ label, score, box: walker(0.2) }], walker(0.2))];

describe('margins: a sighting one step from its threshold is looked at again', () => {
  it('the judge takes the step from the pack: its models\' largest score_step', () => {
    expect(judgeOf(manifest).step).to.equal(STEP);
    expect(judgeOf(steppedManifest(0)).step).to.equal(0);
  });

  for (const score of [0.5, 0.58]) {
    it(`a person seen once at ${score} (threshold 0.55, steps of ${STEP}) is a doubt, with the frame and box to look at`, () => {
      const found = doubts(seenOnce(score), pattern, judgeOf(manifest));
      expect(found).to.deep.equal([{ label: 'person', t: 0.5, box: walker(0.2) }]);
    });
  }

  for (const score of [0.42, 0.66]) {
    it(`a person seen once at ${score}, more than a step from the threshold, is no doubt`, () => {
      expect(doubts(seenOnce(score), pattern, judgeOf(manifest))).to.deep.equal([]);
    });
  }

  it('a person seen only unsure on swaying leaves (which the second opinions drop), from confirm_score up, is a doubt: looked at closer', () => {
    const cells = MOTION_GRID.x * MOTION_GRID.y;
    const all = (v: number) => new Float32Array(cells).fill(v);
    // every cell sways in place: persistent, back and forth, smooth, slow, textured still
    const swaying: MotionPattern = { ...pattern, sway: { cameraStill: true, duty: all(0.8), straightness: all(0.1), speed: all(0.2), smoothness: all(0.5) } };
    expect(doubts(seenOnce(0.42), swaying, judgeOf(manifest))).to.deep.equal([{ label: 'person', t: 0.5, box: walker(0.2) }]);
    expect(doubts(seenOnce(0.34), swaying, judgeOf(manifest)), 'under confirm_score').to.deep.equal([]);
    expect(doubts(seenOnce(0.42), pattern, judgeOf(manifest)), 'without sway: an unsure sighting, no margin').to.deep.equal([]);
  });

  it('where leaves sway, leaves taken for a person at one place do not take the only look from a walker half seen beside them: both places are looked at closer, the surer first, and a vehicle\'s margin before the person\'s second place', () => {
    const cells = MOTION_GRID.x * MOTION_GRID.y;
    // the left half of the view sways in place (a tree line); the right half is still (a field)
    const left = (v: number) => Float32Array.from({ length: cells }, (_, c) => ((c % MOTION_GRID.x) < MOTION_GRID.x / 2 ? v : 0));
    const all = (v: number) => new Float32Array(cells).fill(v);
    const trees: MotionPattern = { ...pattern, sway: { cameraStill: true, duty: left(0.8), straightness: all(0.1), speed: all(0.2), smoothness: all(0.5) } };
    const leaves = { x: 0.1, y: 0.3, w: 0.1, h: 0.2 };
    const walkerBeside = walker(0.7);
    const look = frame(1, [{ label: 'person', score: 0.5, box: leaves }, { label: 'person', score: 0.42, box: walkerBeside }], { x: 0, y: 0.2, w: 0.8, h: 0.6 });
    expect(doubts([look], trees, judgeOf(manifest))).to.deep.equal([
      { label: 'person', t: 1, box: leaves },
      { label: 'person', t: 1, box: walkerBeside },
    ]);
    // without swaying leaves, the 0.5 is a margin, and the walker's 0.42 (more than a step under 0.55) none
    expect(doubts([look], pattern, judgeOf(manifest)), 'no sway').to.deep.equal([{ label: 'person', t: 1, box: leaves }]);
    // nor beside a lone swaying cell: no foliage witnessed (a mouse circling an arena sways a cell)
    const lone = Float32Array.from({ length: cells }, (_, c) => (c === 3 * MOTION_GRID.x + 1 ? 0.8 : 0));
    const oneCell: MotionPattern = { ...pattern, sway: { ...trees.sway!, duty: lone } };
    expect(doubts([look], oneCell, judgeOf(manifest)), 'a lone swaying cell').to.deep.equal([{ label: 'person', t: 1, box: leaves }]);
    const car = frame(2, [{ label: 'vehicule', score: 0.58, box: walker(0.4) }], walker(0.4));
    expect(doubts([look, car], trees, judgeOf(manifest)).map((d) => d.label)).to.deep.equal(['person', 'vehicule', 'person']);
  });

  it('in heavy rain or snow (looks at frames with its drops taken out), a person seen once from confirm_score up to the threshold is a doubt; under confirm_score, clear of the threshold, or dry, no doubt', () => {
    const wet = true;
    for (const score of [0.42, 0.5]) expect(doubts(seenOnce(score), pattern, judgeOf(manifest), wet)).to.deep.equal([{ label: 'person', t: 0.5, box: walker(0.2) }]);
    for (const score of [0.34, 0.66]) expect(doubts(seenOnce(score), pattern, judgeOf(manifest), wet)).to.deep.equal([]);
    expect(doubts(seenOnce(0.42), pattern, judgeOf(manifest))).to.deep.equal([]);
  });

  // Rain seen in the clip (streaks over half the view), in any light: the first looks see its frames as they are
  const raining: MotionPattern = { ...pattern, streaks: 0.5, aspect: 16 / 9 };

  it('in rain seen in the clip, the frames seen as they are, a person seen once from confirm_score up to the threshold is a doubt too', () => {
    for (const score of [0.42, 0.5]) expect(doubts(seenOnce(score), raining, judgeOf(manifest))).to.deep.equal([{ label: 'person', t: 0.5, box: walker(0.2) }]);
    expect(doubts(seenOnce(0.34), raining, judgeOf(manifest)), 'under confirm_score').to.deep.equal([]);
  });

  it('in rain, where no person was seen, an animal boxed upright from a step under confirm_score up is a doubt for a person, at its surest sighting; not longer than tall, more than a step under confirm_score, nor in a dry clip', () => {
    // the woman walking into the made downpour at two thirds of the bench's size (a 16:9 view): an animal 0.42
    const her: Detection = { label: 'animal', score: 0.42, box: { x: 0.38, y: 0.09, w: 0.24, h: 0.9 } };
    const looks = [frame(6.5, [], walker(0.4)), frame(7.1, [her], her.box)];
    expect(doubts(looks, raining, judgeOf(manifest))).to.deep.equal([{ label: 'person', t: 7.1, box: her.box }]);
    expect(doubts(looks, { ...raining, aspect: 32 / 9 }, judgeOf(manifest)), 'the same box on a view twice as wide: longer than tall').to.deep.equal([]);
    // the woman in the downpour with the camera panning, as she is: an animal 0.34, a step under
    expect(doubts([frame(7.1, [{ ...her, score: 0.34 }], her.box)], raining, judgeOf(manifest)), 'a step under confirm_score').to.deep.equal([{ label: 'person', t: 7.1, box: her.box }]);
    expect(doubts([frame(7.1, [{ ...her, score: 0.26 }], her.box)], raining, judgeOf(manifest)), 'more than a step under confirm_score').to.deep.equal([]);
    expect(doubts(looks, { ...pattern, aspect: 16 / 9 }, judgeOf(manifest)), 'dry').to.deep.equal([]);
    // a person seen is the person's own doubt, or none
    const seen = [frame(7.1, [her, { label: 'person', score: 0.66, box: walker(0.1) }], her.box)];
    expect(doubts(seen, raining, judgeOf(manifest))).to.deep.equal([]);
  });

  it('a person seen in two frames is no doubt: the frames agree already', () => {
    const frames = [frame(0.5, [{ label: 'person', score: 0.58, box: walker(0.2) }], walker(0.2)), frame(2, [{ label: 'person', score: 0.5, box: walker(0.5) }], walker(0.5))];
    expect(doubts(frames, pattern, judgeOf(manifest))).to.deep.equal([]);
  });

  /** A vehicle seen from above in two frames, each time unsure (confirm_score 0.4). */
  const seenTwice = (first: number, second: number) => [
    frame(0.5, [{ label: 'vehicule', score: first, box: walker(0.2) }], walker(0.2)),
    frame(2, [{ label: 'vehicule', score: second, box: walker(0.5) }], walker(0.5)),
  ];

  it('seen in two frames, the better short of confirm_score by less than a step: a doubt at the better sighting', () => {
    expect(doubts(seenTwice(0.34, 0.36), pattern, judgeOf(manifest))).to.deep.equal([{ label: 'vehicule', t: 2, box: walker(0.5) }]);
    expect(decide(seenTwice(0.34, 0.36), pattern, manifest).labels).to.not.include('vehicule');
  });

  it('seen in two frames, one at confirm_score, or both more than a step under it: no doubt', () => {
    expect(doubts(seenTwice(0.34, 0.42), pattern, judgeOf(manifest))).to.deep.equal([]);
    expect(decide(seenTwice(0.34, 0.42), pattern, manifest).labels).to.include('vehicule');
    expect(doubts(seenTwice(0.3, 0.31), pattern, judgeOf(manifest))).to.deep.equal([]);
  });

  it('a third look at confirm_score makes the three agree', () => {
    const looked = [...seenTwice(0.34, 0.36), frame(2.3, [{ label: 'vehicule', score: 0.43, box: walker(0.55) }], walker(0.55))];
    expect(decide(looked, pattern, manifest).labels).to.include('vehicule');
  });

  it('a person and a vehicle, each seen once near its threshold: two doubts', () => {
    const car: Box = { x: 0.6, y: 0.5, w: 0.3, h: 0.2 };
    const frames = [frame(0.5, [{ label: 'person', score: 0.5, box: walker(0.2) }, { label: 'vehicule', score: 0.58, box: car }], { x: 0.1, y: 0.2, w: 0.8, h: 0.6 })];
    expect(doubts(frames, pattern, judgeOf(manifest)).map((d) => d.label).sort()).to.deep.equal(['person', 'vehicule']);
  });

  it('a pack with fine-grained scores (score_step 0) has no doubts, and a lone sighting at its threshold is found as before', () => {
    const fine = steppedManifest(0);
    expect(doubts(seenOnce(0.58), pattern, judgeOf(fine))).to.deep.equal([]);
    expect(decide(seenOnce(0.58), pattern, fine).labels).to.include('person');
  });

  it('outside the camera\'s zones a sighting decides nothing: no doubt', () => {
    const rules: CameraRules = { masks: [], zones: [{ name: 'drive', points: [[0.7, 0], [1, 0], [1, 1], [0.7, 1]] }], labels: {} };
    expect(doubts(seenOnce(0.58), pattern, judgeOf(manifest, rules))).to.deep.equal([]);
  });

  it('a lone sighting one step above the threshold that a look again does not confirm is not found', () => {
    const d = decide(seenOnce(0.58), pattern, manifest);
    expect(d.labels).to.not.include('person');
    expect(d.risk).to.equal('safe');
  });

  it('the same sighting, confirmed by a look again (a second sighting over the model\'s min_score), is found: person, intrusion', () => {
    const look = frame(0.5, [{ label: 'person', score: 0.34, box: { x: 0.21, y: 0.31, w: 0.09, h: 0.38 } }], walker(0.2));
    const d = decide([...seenOnce(0.58), look], pattern, manifest);
    expect(d.labels).to.include.members(['person', 'intrusion']);
    expect(d.risk).to.equal('intrusion');
  });

  it('a sighting one step under the threshold, confirmed by a look again, is found; unconfirmed, it is not', () => {
    const look = frame(0.8, [{ label: 'person', score: 0.42, box: walker(0.23) }], walker(0.23));
    expect(decide([...seenOnce(0.5), look], pattern, manifest).labels).to.include('person');
    expect(decide(seenOnce(0.5), pattern, manifest).labels).to.not.include('person');
  });

  it('a lone sighting clear of the threshold by a step or more is found without a second look', () => {
    expect(decide(seenOnce(0.66), pattern, manifest).labels).to.include.members(['person', 'intrusion']);
  });
});

describe('closer looks at small movers: a far walker at night is small too', () => {
  const track = (box: Box): MoverTrack => ({ box, from: 1, to: 4, seconds: 3, sightings: 15, travel: 3, striding: 3, turning: 0.1, pausing: 0.2, hops: 0, guessed: 0, contrast: 3, velocity: { x: 4, y: 0 }, course: [] });
  const movers = (...boxes: Box[]) => (): SmallMovers => ({ creatures: boxes.map(track), travellers: [], faint: [], score: 0.9 });
  const far: Box = { x: 0.3, y: 0.55, w: 0.05, h: 0.07 };

  it('where no one was found, the small movers are looked at; where someone was, none', () => {
    expect(moversToCheck([], pattern, manifest, undefined, movers(far)).map((c) => c.box)).to.deep.equal([far]);
    const someone = [0.5, 2].map((t) => frame(t, [{ label: 'person', score: 0.9, box: walker(0.2 + t / 10) }], walker(0.2 + t / 10)));
    expect(moversToCheck(someone, pattern, manifest, undefined, movers(far))).to.deep.equal([]);
  });

  it('a traveller on a steady course (a far walker, a car) is looked at too, but never makes an animal', () => {
    const travelling = (): SmallMovers => ({ creatures: [], travellers: [track(far)], faint: [], score: 0 });
    expect(moversToCheck([], pattern, manifest, undefined, travelling).map((c) => c.box)).to.deep.equal([far]);
    expect(decide([], pattern, manifest, undefined, travelling).labels).to.not.include('animal');
  });

  it('on a camera that moved as a whole, small movers are neither looked at nor made animals: no background stands still', () => {
    const cells = MOTION_GRID.x * MOTION_GRID.y;
    const still = { duty: new Float32Array(cells), straightness: new Float32Array(cells), speed: new Float32Array(cells), smoothness: new Float32Array(cells) };
    const panned: MotionPattern = { ...pattern, pan: 3, sway: { ...still, cameraStill: false } };
    expect(moversToCheck([], panned, manifest, undefined, movers(far))).to.deep.equal([]);
    expect(decide([], panned, manifest, undefined, movers(far)).labels).to.not.include('animal');
    // the same movers on a camera held still: looked at, and an animal
    const held: MotionPattern = { ...pattern, sway: { ...still, cameraStill: true } };
    expect(moversToCheck([], held, manifest, undefined, movers(far)).map((c) => c.box)).to.deep.equal([far]);
    expect(decide([], held, manifest, undefined, movers(far)).labels).to.include('animal');
  });

  it('a small mover outside the camera\'s zones is not looked at', () => {
    const rules: CameraRules = { masks: [], zones: [{ name: 'gate', points: [[0.7, 0], [1, 0], [1, 1], [0.7, 1]] }], labels: {} };
    expect(moversToCheck([], pattern, manifest, rules, movers(far))).to.deep.equal([]);
  });

  const look = (t: number, score: number) => frame(t, score > 0 ? [{ label: 'person', score, box: far }] : [], far);
  it('the looks agree on a person when each sees one and one at its threshold', () => {
    expect(closerLooksAgreeOn([look(1.6, 0.58), look(3.4, 0.42)], manifest)).to.deep.equal(['person']);
  });
  it('one look alone, or looks under the threshold, leave the mover a creature', () => {
    expect(closerLooksAgreeOn([look(1.6, 0.66), look(3.4, 0)], manifest)).to.deep.equal([]);
    expect(closerLooksAgreeOn([look(1.6, 0.5), look(3.4, 0.42)], manifest)).to.deep.equal([]);
    expect(closerLooksAgreeOn([look(1.6, 0.9)], manifest)).to.deep.equal([]);
  });
  it('looks that split (one sees a person, the other nothing) ask for a third moment, and agree when it sees the mover too, sure in one', () => {
    const split = [look(1.6, 0.84), look(3.4, 0)];
    expect(closerLooksSplit(split, manifest)).to.equal(true);
    expect(closerLooksAgreeOn([...split, look(2.5, 0.5)], manifest)).to.deep.equal(['person']);
    expect(closerLooksAgreeOn([...split, look(2.5, 0)], manifest), 'the third moment blind too').to.deep.equal([]);
    const unsure = [look(1.4, 0), look(3.6, 0.42)];
    expect(closerLooksSplit(unsure, manifest)).to.equal(true);
    expect(closerLooksAgreeOn([...unsure, look(2.5, 0.58)], manifest)).to.deep.equal(['person']);
    expect(closerLooksAgreeOn([...unsure, look(2.5, 0.5)], manifest), 'none of the three sure').to.deep.equal([]);
  });
  it('two looks at one moment (in rain, the drops taken out two ways) are one sighting: they neither agree nor split the moments', () => {
    expect(closerLooksAgreeOn([look(3.6, 0.58), look(3.6, 0.5), look(1.2, 0), look(2.4, 0)], manifest)).to.deep.equal([]);
    expect(closerLooksSplit([look(3.6, 0.58), look(3.6, 0.5), look(1.2, 0)], manifest)).to.equal(true);
    expect(closerLooksAgreeOn([look(3.6, 0.58), look(3.6, 0), look(2.4, 0.42)], manifest)).to.deep.equal(['person']);
  });
  it('looks that agreed on a person keep the person alone: the animal one of them saw on the same body is its ghost', () => {
    const ghost = { ...frame(1.8, [{ label: 'animal', score: 0.73, box: far }], far), flyers: [] };
    const agreed = agreedLooks([look(2.4, 0.58), ghost, look(3.6, 0.42)], ['person']);
    expect(agreed.map((f) => f.detections.map((d) => d.label))).to.deep.equal([['person'], [], ['person']]);
    expect(agreed[1]!.scores).to.deep.equal({ animal: 0 });
  });
  it('looks that see a person at two moments, the best a step short of its threshold, ask for more moments; agreed, seen once, or far short, they do not', () => {
    // the threshold is 0.55 and a step 0.08: a far walker at a low bitrate scores 0.5 at both moments
    const short = [look(1.6, 0.5), look(3.8, 0.5)];
    expect(closerLooksShort(short, manifest)).to.equal(true);
    expect(closerLooksAgreeOn(short, manifest)).to.deep.equal([]);
    expect(closerLooksAgreeOn([...short, look(2.7, 0.5), look(2.1, 0.66)], manifest), 'a moment between, sure').to.deep.equal(['person']);
    expect(closerLooksShort([look(1.6, 0.58), look(3.4, 0.42)], manifest), 'agreed').to.equal(false);
    expect(closerLooksShort([look(1.6, 0.5), look(3.4, 0)], manifest), 'seen once: split, not short').to.equal(false);
    expect(closerLooksShort([look(1.6, 0.42), look(3.4, 0.34)], manifest), 'more than a step short').to.equal(false);
  });
  it('looks that agree, or that both see nothing, ask for no third moment', () => {
    expect(closerLooksSplit([look(1.6, 0.84), look(3.4, 0.42)], manifest)).to.equal(false);
    expect(closerLooksSplit([look(1.6, 0.5), look(3.4, 0.42)], manifest)).to.equal(false);
    expect(closerLooksSplit([look(1.6, 0), look(3.4, 0)], manifest)).to.equal(false);
  });

  it('a look\'s sample shows the mover moving where the grid was too coarse to see it, so a walker found there intrudes', () => {
    const still: MotionSample = { ...sample(1.6, { x: 0.9, y: 0.9, w: 0.01, h: 0.01 }), region: undefined };
    expect(movingShare(far, still)).to.equal(0);
    const seen = seenMoving(still, far);
    expect(movingShare(far, seen)).to.equal(1);
    expect(seen.region).to.deep.equal(far);
    const walked = (i: number): Box => ({ ...far, x: far.x + i * 0.04 }); // a far walker, a body length on
    const frames = [1.6, 3.4].map((t, i) => ({ ...frame(t, [{ label: 'person' as const, score: i ? 0.42 : 0.66, box: walked(i) }], far), sample: seenMoving({ ...still, t }, walked(i)) }));
    expect(decide(frames, pattern, manifest).risk).to.equal('intrusion');
  });

  it('a person found on the path a small mover went moved through, though his box barely moves (a far walker going away); the same boxes seen by the first looks stayed put', () => {
    const still: MotionSample = { ...sample(1.6, { x: 0.9, y: 0.9, w: 0.01, h: 0.01 }), region: undefined };
    const path: Box = { x: far.x, y: far.y - 0.02, w: far.w, h: far.h + 0.02 };
    const away = (i: number): Box => ({ ...far, y: far.y - i * 0.005, h: far.h * (1 - i * 0.05) });
    const looks = [1.6, 3.4].map((t, i) => ({ ...frame(t, [{ label: 'person' as const, score: i ? 0.58 : 0.79, box: away(i) }], far), sample: seenMoving({ ...still, t }, path) }));
    expect(decide(looks, pattern, manifest).risk).to.equal('intrusion');
    const firstLooks = looks.map((f) => ({ ...f, sample: { ...f.sample, path: undefined } }));
    expect(decide(firstLooks, pattern, manifest).risk).to.equal('danger');
  });

  it('someone unsure: a person or vehicle the detector saw where none was found (a lone closer look then looks wider); not where one was found, nor where none was seen', () => {
    expect(someoneUnsure(seenOnce(0.42), pattern, manifest)).to.equal(true);
    expect(someoneUnsure(seenOnce(0.34, 'vehicule'), pattern, manifest)).to.equal(true);
    expect(someoneUnsure(seenOnce(0.71), pattern, manifest)).to.equal(false);
    expect(someoneUnsure(seenOnce(0.9, 'animal'), pattern, manifest)).to.equal(false);
    expect(someoneUnsure([frame(0.5, [], walker(0.2))], pattern, manifest)).to.equal(false);
  });
});
