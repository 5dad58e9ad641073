// The steps of decide() (pipeline/decide.ts), each on findings and motion made here, in the
// order the README lists the rules: second opinions, weather, what counts as found, small
// creatures where no one is, the risk. decide.test.ts checks the rules end to end.
import { expect } from 'chai';
import type { Box, CameraRules, Detection, ServiceLabel } from '../../runtime/core/analysis.js';
import type { Manifest } from '../../runtime/core/model-manifest.js';
import {
  creaturesWhereNoOne, foundRule, judgeOf as packJudge, rainScore, riskOf, secondOpinions, snowing, streakDoubts, weather, type FrameFindings, type Judge,
} from '../../runtime/pipeline/decide.js';
import { describeSway, SWAY_SECONDS, swayScores } from '../../runtime/pipeline/foliage.js';
import { MOTION_GRID, SAMPLE_FPS, type MotionPattern } from '../../runtime/pipeline/motion.js';
import type { MoverTrack, SmallMovers } from '../../runtime/pipeline/small-movers.js';
import { cellMotion, cells, cellsUnder, frame, gridBlock, pattern } from '../support/findings.js';
import { rulesManifest } from '../support/rules-manifest.js';

type Scores = FrameFindings['scores'];

const manifest = rulesManifest({ person: 0.55, vehicule: 0.55, animal: 0.5, plant: 0.4, flag: 0.4, rain: 0.5 });

/** What every step reads, from the pack and the camera, as decide() builds it. */
const judgeOf = (m: Manifest = manifest, rules?: CameraRules) => packJudge(m, rules);
const judge = judgeOf();
const rules = (r: Partial<CameraRules>): CameraRules => ({ masks: [], zones: [], labels: {}, ...r });
const band = (y0: number, y1: number): Array<[number, number]> => [[0, y0], [1, y0], [1, y1], [0, y1]];

/** A crown of leaves swaying back and forth in place (cells 1..5 x 1..4 of the grid), the camera still. */
const crown = gridBlock(1, 1, 5, 4);
const crownBox: Box = { x: 1 / MOTION_GRID.x, y: 1 / MOTION_GRID.y, w: 5 / MOTION_GRID.x, h: 4 / MOTION_GRID.y };
const sway = describeSway(cellMotion(40, (c, t) => (crown(c) ? [0.3 * Math.cos(t + c), 0.1 * Math.sin(t)] : [0, 0])), SAMPLE_FPS)!;
const swaying: MotionPattern = { ...pattern, sway };

const person = (score: number, box: Box): Detection => ({ label: 'person', score, box });
const walker = (x: number): Box => ({ x, y: 0.3, w: 0.1, h: 0.4 });

describe('decide, step 1: second opinions on each frame', () => {
  it('without camera rules, animals or sway, the frames are as found', () => {
    const found = [frame(0, [person(0.9, walker(0.2))], walker(0.2)), frame(1.5, [{ label: 'vehicule', score: 0.5, box: walker(0.6) }], walker(0.6))];
    expect(secondOpinions(found, pattern, judge)).to.deep.equal(found);
  });

  it("a detection under the camera's mask is gone, and its label's score with it; the rest of the frame stays", () => {
    const feetLow = person(0.9, { x: 0.2, y: 0.5, w: 0.1, h: 0.4 }); // bottom-centre at y = 0.9
    const feetHigh = person(0.6, { x: 0.6, y: 0.1, w: 0.1, h: 0.3 }); // at y = 0.4
    const [f] = secondOpinions([frame(0, [feetLow, feetHigh], walker(0.2))], pattern, judgeOf(manifest, rules({ masks: [band(0.8, 1)] })));
    expect(f!.detections).to.deep.equal([feetHigh]);
    expect(f!.scores.person).to.equal(0.6);
  });

  it('a person box over half the frame where an animal is seen is the animal: dropped, the person score from the other persons', () => {
    const closeUp = person(0.7, { x: 0.1, y: 0.05, w: 0.8, h: 0.9 });
    const small = person(0.45, walker(0.1));
    const found = [frame(0, [closeUp, small], walker(0.1), { animal: 0.8 })];
    const before = structuredClone(found);
    const [f] = secondOpinions(found, pattern, judge);
    expect(f!.detections).to.deep.equal([small]);
    expect(f!.scores).to.deep.equal({ animal: 0.8, person: 0.45 });
    expect(found, 'the input frames are left as they were').to.deep.equal(before);
    // without an animal seen, or with the animal unsure, the close-up stays a person
    for (const animal of [0, 0.2]) {
      expect(secondOpinions([frame(0, [closeUp], walker(0.1), { animal })], pattern, judge)[0]!.detections).to.deep.equal([closeUp]);
    }
  });

  it('in a frame with heavy rain taken out (each pixel\'s darkest over a fifth of a second), an animal box holding a surer person is the walker\'s trail: dropped; not around a less sure person', () => {
    const walking = person(0.58, { x: 0.49, y: 0.44, w: 0.02, h: 0.11 });
    const trail: Detection = { label: 'animal', score: 0.5, box: { x: 0.22, y: 0, w: 0.56, h: 1 } };
    const derained = { ...frame(1.5, [walking, trail], walker(0.4)), derained: true };
    const [f] = secondOpinions([derained], pattern, judge);
    expect(f!.detections).to.deep.equal([walking]);
    expect(f!.scores.animal).to.equal(0);
    const surer = { ...trail, score: 0.7 };
    expect(secondOpinions([{ ...frame(1.5, [walking, surer], walker(0.4)), derained: true }], pattern, judge)[0]!.detections, 'an animal surer than the person stays (and the person inside it is its part)').to.deep.equal([surer]);
  });

  it('in a frame as it is, an animal box over half the view holding two surer shoppers is their bodies: dropped; a cow with a less sure herdsman before it stays', () => {
    const shoppers = [person(0.93, { x: 0.56, y: 0.25, w: 0.15, h: 0.65 }), person(0.73, { x: 0.65, y: 0.45, w: 0.18, h: 0.55 })];
    const half: Detection = { label: 'animal', score: 0.57, box: { x: 0.44, y: 0, w: 0.56, h: 1 } };
    const [f] = secondOpinions([frame(2.9, [...shoppers, half], { x: 0.5, y: 0.2, w: 0.35, h: 0.8 })], pattern, judge);
    expect(f!.detections).to.deep.equal(shoppers);
    expect(f!.scores.animal).to.equal(0);
    const cow: Detection = { label: 'animal', score: 0.9, box: { x: 0.2, y: 0.3, w: 0.5, h: 0.5 } };
    const herdsman = person(0.6, { x: 0.4, y: 0.35, w: 0.1, h: 0.4 });
    expect(secondOpinions([frame(1, [cow, herdsman], cow.box)], pattern, judge)[0]!.detections).to.deep.include(cow);
  });

  it('the trail in a frame with heavy rain taken out, where the look at the same moment as it is found the person (the camera panning): dropped; not for a person found a second away', () => {
    const trail: Detection = { label: 'animal', score: 0.66, box: { x: 0.31, y: 0.1, w: 0.29, h: 0.78 } };
    const derained = { ...frame(7.1, [trail], trail.box), derained: true };
    const asItIs = (t: number) => frame(t, [person(0.79, { x: 0.33, y: 0.17, w: 0.25, h: 0.66 })], trail.box);
    const [dry] = secondOpinions([derained, asItIs(7.1)], pattern, judge);
    expect(dry!.detections).to.deep.equal([]);
    expect(dry!.scores.animal).to.equal(0);
    expect(secondOpinions([derained, asItIs(8.1)], pattern, judge)[0]!.detections, 'a person a second away is another moment').to.deep.equal([trail]);
  });

  it('in heavy rain (a look with the drops taken out) or rain seen in the clip, an upright animal box on a person seen at the same moment is that person again, found as seen twice; a box longer than tall, one a second away, or a dry clip with no rain taken out stays an animal', () => {
    // the woman coming in through the made downpour: a person derained, unsure, an animal on her 0.3 s later (a 16:9 view)
    const wide = { ...pattern, aspect: 16 / 9 };
    const seenFirst = { ...frame(7.1, [person(0.5, { x: 0.37, y: 0.04, w: 0.27, h: 0.95 })], walker(0.4)), derained: true };
    const onHer: Detection = { label: 'animal', score: 0.79, box: { x: 0.42, y: 0, w: 0.25, h: 0.99 } };
    const [, again] = secondOpinions([seenFirst, frame(7.4, [onHer], walker(0.4))], wide, judge);
    expect(again!.detections).to.deep.equal([{ ...onHer, label: 'person', score: 0.5 }]);
    expect(again!.scores).to.include({ person: 0.5, animal: 0 });
    const found = (frames: FrameFindings[], aspect = wide) => foundRule(secondOpinions(frames, aspect, judge), judge, aspect.aspect)('person', 0.5);
    expect(found([seenFirst, frame(7.4, [onHer], walker(0.4))])).to.equal(true);
    expect(found([seenFirst]), 'seen once, under its threshold').to.equal(false);
    // a body longer than tall is no standing person (the same boxes on a view twice as wide)
    expect(found([seenFirst, frame(7.4, [onHer], walker(0.4))], { ...pattern, aspect: 32 / 9 })).to.equal(false);
    expect(found([seenFirst, frame(8.4, [onHer], walker(0.4))]), 'a second away is another moment').to.equal(false);
    expect(found([{ ...seenFirst, derained: undefined }, frame(7.4, [onHer], walker(0.4))]), 'dry, no rain taken out').to.equal(false);
    expect(found([{ ...seenFirst, derained: undefined }, frame(7.4, [onHer], walker(0.4))], { ...wide, streaks: 0.5 }), 'rain seen, the frames as they are').to.equal(true);
    expect(found([{ ...seenFirst, detections: [person(0.35, seenFirst.detections[0]!.box)] }, frame(7.4, [onHer], walker(0.4))]), 'a person under confirm_score').to.equal(false);
  });

  it('in rain, a sighting in a frame as it is (or a creature in one with the drops taken out) that its moment, framed the same with the streaks opened out, does not hold was the streaks\': dropped (a person or vehicle only where it sees none there), and that look adds nothing of its own; held, it stays', () => {
    // the produce on a belt in a made downpour: a bird 0.66 as it is, 0.21 with the streaks opened out
    const rainy = { ...pattern, streaks: 0.5 };
    const crop: Box = { x: 0, y: 0, w: 0.56, h: 1 };
    const bird: Detection = { label: 'animal', score: 0.66, box: { x: 0.01, y: 0.5, w: 0.22, h: 0.3 } };
    const asItIs = { ...frame(5.5, [bird], crop), framing: crop };
    const opened = (detections: Detection[], t = 5.5, framing: Box | null = crop): FrameFindings => ({ ...frame(t, detections, crop), ...(framing ? { framing } : {}), opened: true });
    const kept = secondOpinions([asItIs, opened([{ ...bird, score: 0.21 }, { label: 'vehicule', score: 0.7, box: walker(0.6) }])], rainy, judge);
    expect(kept).to.have.length(1);
    expect(kept[0]!.detections).to.deep.equal([]);
    expect(kept[0]!.scores.animal).to.equal(0);
    const stays = (...frames: FrameFindings[]) => secondOpinions([asItIs, ...frames], rainy, judge)[0]!.detections;
    expect(stays(opened([{ ...bird, score: judge.unsure }])), 'held at confirm_score').to.deep.equal([bird]);
    expect(stays(opened([], 6.5)), 'another moment vouches for nothing').to.deep.equal([bird]);
    expect(stays(opened([], 5.5, null)), 'nor another framing').to.deep.equal([bird]);
    // a person is dropped only where the opened look sees no such body there at all (opening thins a far walker's limbs too)
    const far = { ...frame(2, [person(0.66, walker(0.3))], crop), framing: crop };
    const thinned = secondOpinions([far, opened([person(0.3, walker(0.31))], 2)], rainy, judge);
    expect(thinned.flatMap((f) => f.detections), 'held at any score').to.deep.equal([person(0.66, walker(0.3))]);
    expect(secondOpinions([far, opened([person(0.9, walker(0.7))], 2)], rainy, judge)[0]!.detections, 'another place').to.deep.equal([]);
    // with the drops taken out over time, a creature may be the ghost of what moved or slid there: asked too; a person or vehicle is not
    const derained = { ...asItIs, derained: false };
    expect(secondOpinions([derained, opened([])], rainy, judge)[0]!.detections, 'a creature in a frame derained over time').to.deep.equal([]);
    expect(secondOpinions([derained, opened([{ ...bird, score: judge.unsure }])], rainy, judge)[0]!.detections, 'held there').to.deep.equal([bird]);
    const walkerDerained = { ...far, derained: true };
    expect(secondOpinions([walkerDerained, opened([], 2)], rainy, judge)[0]!.detections, 'a person in a frame derained over time').to.deep.equal([person(0.66, walker(0.3))]);
    expect(streakDoubts([derained], rainy, judge), 'a derained creature is looked at opened').to.deep.equal([{ label: 'animal', t: 5.5, box: bird.box, framing: crop }]);
    expect(streakDoubts([walkerDerained], rainy, judge), 'a derained person is not').to.deep.equal([]);

    // where to look so: the surest sighting per label, in rain only, until one is held
    expect(streakDoubts([asItIs], rainy, judge)).to.deep.equal([{ label: 'animal', t: 5.5, box: bird.box, framing: crop }]);
    expect(streakDoubts([asItIs], pattern, judge), 'dry').to.deep.equal([]);
    expect(streakDoubts([asItIs, opened([{ ...bird, score: 0.21 }])], rainy, judge), 'looked at').to.deep.equal([]);
    const later = { ...frame(6, [{ ...bird, score: 0.58 }], crop), framing: crop };
    expect(streakDoubts([asItIs, later, opened([])], rainy, judge), 'the next, once the surest was the streaks\'').to.deep.equal([{ label: 'animal', t: 6, box: bird.box, framing: crop }]);
    expect(streakDoubts([asItIs, later, opened([bird])], rainy, judge), 'the surest held').to.deep.equal([]);
    const walking = person(0.8, walker(0.3));
    expect(streakDoubts([frame(2, [walking, { ...bird, score: 0.4 }])], rainy, judge), 'a person; an animal under its threshold is not looked at').to.deep.equal([{ label: 'person', t: 2, box: walking.box }]);
  });

  it('in rain, unsure sightings that agree across frames are asked of the opened look too: the streaks read as a freight car\'s ribs, each under its threshold, are not a vehicle found', () => {
    // the belt of produce at night in heavy rain: the classifier's "freight car" over its whole crop at 0.37 and 0.5
    const rainy = { ...pattern, streaks: 0.5 };
    const crop: Box = { x: 0, y: 0, w: 0.56, h: 1 };
    const ribs = (t: number, score: number) => ({ ...frame(t, [{ label: 'vehicule', score, box: crop }], crop), framing: crop });
    const asTheyAre = [ribs(2.7, 0.37), ribs(5.5, 0.5)];
    const found = (frames: FrameFindings[], seen: MotionPattern) => {
      const kept = secondOpinions(frames, seen, judge).filter((f) => !f.opened);
      const isFound = foundRule(kept, judge, seen.aspect);
      return kept.some((f) => isFound('vehicule', f.scores.vehicule ?? 0));
    };
    expect(found(asTheyAre, rainy), 'agreed as they are').to.equal(true);
    expect(streakDoubts(asTheyAre, rainy, judge), 'the surest is looked at opened').to.deep.equal([{ label: 'vehicule', t: 5.5, box: crop, framing: crop }]);
    const opened = { ...frame(5.5, [], crop), framing: crop, opened: true };
    expect(found([...asTheyAre, opened], rainy), 'the opened look saw no vehicle there').to.equal(false);
    const held = { ...opened, detections: [{ label: 'vehicule' as const, score: 0.2, box: crop }] };
    expect(found([...asTheyAre, held], rainy), 'held at any score').to.equal(true);
    expect(streakDoubts([ribs(5.5, 0.35)], rainy, judge), 'under confirm_score it weighs nothing: not looked at').to.deep.equal([]);
  });

  it('in rain, a sighting its opened look does not hold stays where another frame as it is saw it again, unrefuted, where one body could have gone: a car driving up the lot; not a reading again in place, nor one vouched for by a refuted sighting', () => {
    // the overhead lot at night in a lit drizzle: the car as the frames are at 0.3 s and 1.3 s, nothing opened at 0.3 s
    const rainy = { ...pattern, streaks: 0.5, aspect: 16 / 9 };
    const crop: Box = { x: 0, y: 0, w: 0.56, h: 1 };
    const car = (t: number, box: Box) => ({ ...frame(t, [{ label: 'vehicule' as const, score: 0.58, box }], crop), framing: crop });
    const opened = (t: number): FrameFindings => ({ ...frame(t, [], crop), framing: crop, opened: true });
    const first = car(0.3, { x: 0.13, y: 0.48, w: 0.24, h: 0.52 });
    const next = car(1.3, { x: 0.2, y: 0.3, w: 0.16, h: 0.41 });
    const kept = (frames: FrameFindings[]) => secondOpinions(frames, rainy, judge).flatMap((f) => f.detections.map(() => f.t));
    expect(kept([first, next, opened(0.3)])).to.deep.equal([0.3, 1.3]);
    expect(kept([first, opened(0.3)]), 'seen once').to.deep.equal([]);
    expect(kept([first, next, opened(0.3), opened(1.3)]), 'refuted at both moments').to.deep.equal([]);
    expect(kept([first, car(1.3, first.detections[0]!.box), opened(0.3)]), 'the same reading in place').to.deep.equal([1.3]);
    expect(kept([first, { ...next, detections: [person(0.58, next.detections[0]!.box)], scores: { person: 0.58 } }, opened(0.3)]), 'another label').to.deep.equal([1.3]);
  });

  it('a person box inside an animal seen surer and at least twice its size at the same moment is the animal\'s head: dropped; not a surer person, nor one seen a while apart', () => {
    const cat: Detection = { label: 'animal', score: 0.95, box: { x: 0.05, y: 0.1, w: 0.8, h: 0.85 } };
    const face = person(0.84, { x: 0.42, y: 0.1, w: 0.35, h: 0.4 });
    const walkerBy = person(0.7, walker(0.88));
    const found = [frame(0.3, [face, walkerBy], cat.box), frame(0.7, [cat], cat.box)];
    const [f] = secondOpinions(found, pattern, judge);
    expect(f!.detections).to.deep.equal([walkerBy]);
    expect(f!.scores.person).to.equal(0.7);
    // the surer reading stays: a crouching person the detector half takes for an animal
    const crouching = person(0.97, face.box);
    expect(secondOpinions([frame(0.3, [crouching], cat.box), frame(0.7, [cat], cat.box)], pattern, judge)[0]!.detections).to.deep.equal([crouching]);
    // two seconds apart, the animal may have gone: the person stays
    expect(secondOpinions([frame(0.3, [face], cat.box), frame(2.3, [cat], cat.box)], pattern, judge)[0]!.detections).to.deep.equal([face]);
  });

  it('a person or vehicle boxed among two or more things that fly of its size, within two seconds, is one of the flock: dropped; not beside birds far smaller, one bird, nor a flock three seconds away', () => {
    // a 16:9 view: a bird banking, wings up, boxed as a person 0.03 x 0.11 (19 x 40 px of 640 x 360)
    const banking = person(0.79, { x: 0.5, y: 0.31, w: 0.03, h: 0.12 });
    const car: Detection = { label: 'vehicule', score: 0.6, box: { x: 0.7, y: 0.2, w: 0.06, h: 0.08 } };
    const flock: Box[] = [{ x: 0.3, y: 0.6, w: 0.05, h: 0.12 }, { x: 0.4, y: 0.7, w: 0.06, h: 0.11 }];
    const wide: MotionPattern = { ...pattern, aspect: 16 / 9 };
    const inFlock = (t: number, detections: Detection[], flyers: Box[]): FrameFindings => ({ ...frame(t, detections, walker(0.3)), flyers });
    const [f] = secondOpinions([inFlock(3.8, [banking, car], flock)], wide, judge);
    expect(f!.detections).to.deep.equal([]);
    expect(f!.scores).to.deep.equal({ person: 0, vehicule: 0 });
    // the flock seen in another view of the same sample (a look closer): the same
    const look = inFlock(3.8, [banking], []);
    expect(secondOpinions([inFlock(3.8, [], flock), look], wide, judge)[1]!.detections).to.deep.equal([]);
    // a bird boxed twice (two views, or as both "bird" and "airplane") is one bird; the box itself is no other
    const once: Box[] = [flock[0]!, { ...flock[0]!, x: flock[0]!.x + 0.005 }, banking.box];
    expect(secondOpinions([inFlock(3.8, [banking], once)], wide, judge)[0]!.detections).to.deep.equal([banking]);
    // a closer look at one bird sees it alone; its flock was boxed in a sample 0.7 s on
    expect(secondOpinions([inFlock(3.1, [banking], []), inFlock(3.8, [], flock)], wide, judge)[0]!.detections).to.deep.equal([]);
    // in heavy snow the detector boxed one bird beside it, and two more in the sample 1.6 s before
    const snowed = secondOpinions([inFlock(2.2, [], flock), inFlock(3.8, [banking], [{ x: 0.29, y: 0.63, w: 0.03, h: 0.11 }])], wide, judge);
    expect(snowed[1]!.detections).to.deep.equal([]);
    // a person five times a bird's height (pigeons about a walker) stays, and so do one bird, or a flock three seconds away
    const walking = person(0.8, { x: 0.5, y: 0.1, w: 0.1, h: 0.6 });
    expect(secondOpinions([inFlock(3.8, [walking], flock)], wide, judge)[0]!.detections).to.deep.equal([walking]);
    expect(secondOpinions([inFlock(3.8, [banking], flock.slice(1))], wide, judge)[0]!.detections).to.deep.equal([banking]);
    expect(secondOpinions([inFlock(0.8, [banking], []), inFlock(3.8, [], flock)], wide, judge)[0]!.detections).to.deep.equal([banking]);
  });

  it('what the detector calls a phone (the pack\'s `vehicles_from_above`) seen at two moments at places apart that one body could reach, held by no one, is a vehicle seen from above, as sure as the detector was; not one lying where it was, one held by a person, one seen once, or two too far apart for one body', () => {
    // a car driving up an overhead lot: its roof a "cell phone" 0.98 at 6.2 s, 0.99 at 7 s
    const roof = (t: number, y: number, score: number): FrameFindings => ({ ...frame(t, [], { x: 0.3, y, w: 0.15, h: 0.35 }), fromAbove: [{ box: { x: 0.3, y, w: 0.15, h: 0.35 }, score }] });
    const driving = secondOpinions([roof(6.2, 0.4, 0.98), roof(7, 0.1, 0.99)], pattern, judge);
    expect(driving.map((f) => f.detections)).to.deep.equal([
      [{ label: 'vehicule', score: 0.98, box: { x: 0.3, y: 0.4, w: 0.15, h: 0.35 } }],
      [{ label: 'vehicule', score: 0.99, box: { x: 0.3, y: 0.1, w: 0.15, h: 0.35 } }],
    ]);
    expect(driving.map((f) => f.scores.vehicule)).to.deep.equal([0.98, 0.99]);
    expect(riskOf(driving, foundRule(driving, judge), false, judge).risk).to.equal('intrusion');
    // a phone on a desk, its box jittering; a phone in the hand of someone walking by; one sighting; two far apart at once
    const lying = [roof(6.2, 0.4, 0.98), roof(7, 0.41, 0.99)];
    const held = [roof(6.2, 0.4, 0.98), roof(7, 0.1, 0.99)].map((f) => ({ ...f, detections: [person(0.9, { x: 0.25, y: f.fromAbove![0]!.box.y - 0.1, w: 0.25, h: 0.6 })] }));
    const afar = [roof(6.2, 0.4, 0.98), { ...roof(6.3, 0.1, 0.99), fromAbove: [{ box: { x: 0.8, y: 0.1, w: 0.03, h: 0.05 }, score: 0.99 }] }];
    for (const found of [lying, held, [roof(6.2, 0.4, 0.98)], afar]) {
      expect(secondOpinions(found, pattern, judge).flatMap((f) => f.detections.filter((d) => d.label === 'vehicule'))).to.deep.equal([]);
    }
  });

  it('an unsure person lying on swaying cells is the leaves; a sure one, or one off the crown, stays', () => {
    const onLeaves = person(0.45, { x: 0.15, y: 0.2, w: 0.2, h: 0.3 });
    const sure = person(0.9, { x: 0.15, y: 0.2, w: 0.2, h: 0.3 });
    const offLeaves = person(0.45, { x: 0.75, y: 0.5, w: 0.1, h: 0.3 });
    const [f] = secondOpinions([frame(0, [onLeaves, offLeaves], crownBox)], swaying, judge);
    expect(f!.detections).to.deep.equal([offLeaves]);
    expect(secondOpinions([frame(0, [sure], crownBox)], swaying, judge)[0]!.detections).to.deep.equal([sure]);
    // the same unsure person in a clip without sway stays
    expect(secondOpinions([frame(0, [onLeaves], crownBox)], pattern, judge)[0]!.detections).to.deep.equal([onLeaves]);
  });

  describe('an animal read into swaying leaves', () => {
    // a house among the trees, read as an animal in one pose of the leaves and not in the next
    const house: Box = { x: 0.2, y: 0.25, w: 0.12, h: 0.1 };
    const animal = (score: number, box = house): Detection => ({ label: 'animal', score, box });
    const animals = (frames: FrameFindings[], p = swaying) => secondOpinions(frames, p, judge).flatMap((f) => f.detections.filter((d) => d.label === 'animal'));

    it('seen in one place, sure or not, and missed there by a look at another moment: the leaves\', dropped', () => {
      expect(animals([frame(1, [animal(0.66)], crownBox), frame(2, [], crownBox)])).to.deep.equal([]);
      expect(animals([frame(1, [animal(0.58)], crownBox), frame(2.5, [], crownBox), frame(4, [animal(0.34, { ...house, x: 0.21 })], crownBox)])).to.deep.equal([]);
    });

    it('seen by every look that framed its place, it rests there: kept', () => {
      const frames = [frame(1, [animal(0.66)], crownBox), frame(2, [animal(0.58)], crownBox), { ...frame(3, [], crownBox), framing: { x: 0.6, y: 0, w: 0.4, h: 1 } }];
      expect(animals(frames), 'the look framed elsewhere does not count').to.have.length(2);
    });

    it('seen going from place to place, off the leaves, or where nothing sways: kept', () => {
      const elsewhere = animal(0.66, { x: 0.3, y: 0.3, w: 0.12, h: 0.1 });
      expect(animals([frame(1, [animal(0.66)], crownBox), frame(2, [elsewhere], crownBox), frame(3, [], crownBox)]), 'went its way').to.have.length(2);
      const onGrass = animal(0.66, { x: 0.7, y: 0.7, w: 0.12, h: 0.1 });
      expect(animals([frame(1, [onGrass], crownBox), frame(2, [], crownBox)]), 'off the crown').to.have.length(1);
      expect(animals([frame(1, [animal(0.66)], crownBox), frame(2, [], crownBox)], pattern), 'no sway').to.have.length(1);
    });
  });

  it('an unsure person on swaying cells that a look at the same moment framed closer saw too stays, in both looks; the same framing again, or another body, does not keep it', () => {
    const far = person(0.42, { x: 0.2, y: 0.25, w: 0.03, h: 0.1 });
    const wide = { ...frame(1, [far], crownBox), framing: { x: 0, y: 0, w: 0.6, h: 1 } };
    const closer = { ...frame(1, [person(0.42, { x: 0.205, y: 0.25, w: 0.03, h: 0.1 })], crownBox), framing: { x: 0.1, y: 0.1, w: 0.25, h: 0.4 } };
    const kept = secondOpinions([wide, closer], swaying, judge);
    expect(kept.map((f) => f.detections.length), 'seen in both framings').to.deep.equal([1, 1]);
    // a look with the same framing (the frame as it is after the frame with the drops taken out) sees the same leaves the same way
    const again = { ...closer, framing: wide.framing };
    expect(secondOpinions([wide, again], swaying, judge).map((f) => f.detections.length), 'framed alike').to.deep.equal([0, 0]);
    // the closer look saw a person elsewhere, or at another moment: no corroboration
    const elsewhere = { ...closer, detections: [person(0.42, { x: 0.5, y: 0.25, w: 0.03, h: 0.1 })] };
    expect(secondOpinions([wide, elsewhere], swaying, judge)[0]!.detections, 'another body').to.deep.equal([]);
    const later = { ...closer, t: 1.5, sample: frame(1.5, [], crownBox).sample };
    expect(secondOpinions([wide, later], swaying, judge)[0]!.detections, 'another moment').to.deep.equal([]);
    // under confirm_score in either look: leaves
    const faint = { ...closer, detections: [person(0.34, closer.detections[0]!.box)] };
    expect(secondOpinions([wide, faint], swaying, judge)[0]!.detections, 'the closer look unsure under confirm_score').to.deep.equal([]);
  });

  it('in the dim, persons over whose boxes the motion saw nothing, where it saw no person, are dropped unless sure by a step; by day, or beside one it saw, they stay', () => {
    const flowerHead = { x: 0.2, y: 0.35, w: 0.55, h: 0.6 }; // a sunflower filling the view, its head read as a person
    const swayingPetal = { x: 0.33, y: 0.11, w: 0.08, h: 0.11 }; // the one place the motion saw move
    const dark = (f: FrameFindings): FrameFindings => ({ ...f, dim: true });
    // the default pack's detector, its scores 0.08 apart
    const judge = judgeOf({ ...manifest, models: manifest.models.map((m) => ({ ...m, score_step: 0.08 })) });
    const looks = [dark(frame(3.8, [person(0.58, flowerHead)], swayingPetal)), dark(frame(4.4, [person(0.5, flowerHead)], swayingPetal))];
    const dropped = secondOpinions(looks, pattern, judge);
    expect(dropped.map((f) => f.detections)).to.deep.equal([[], []]);
    expect(dropped.map((f) => f.scores.person ?? 0)).to.deep.equal([0, 0]);
    // sure by a step of the detector's scores (0.55 + 0.08), one standing still in the dark stays
    const standing = [dark(frame(3.8, [person(0.66, flowerHead)], swayingPetal)), dark(frame(4.4, [person(0.58, flowerHead)], swayingPetal))];
    expect(secondOpinions(standing, pattern, judge).map((f) => f.detections.map((d) => d.score))).to.deep.equal([[0.66], []]);
    // by day the detector alone is heard: a person standing still
    const byDay = looks.map(({ dim: _, ...f }) => f);
    expect(secondOpinions(byDay, pattern, judge).map((f) => f.detections.length)).to.deep.equal([1, 1]);
    // seated in the dim, moving a cell of his box now and then: present
    const seated = { x: 0.6, y: 0.52, w: 0.14, h: 0.31 };
    const fidgets = [dark(frame(0.2, [person(0.73, seated)], { x: 0.67, y: 0.56, w: 0.08, h: 0.11 })), dark(frame(0.6, [person(0.84, seated)], { x: 0.67, y: 0.56, w: 0.08, h: 0.11 }))];
    expect(secondOpinions(fidgets, pattern, judge).map((f) => f.detections.length)).to.deep.equal([1, 1]);
    // a face at a handheld webcam in a dim room: the camera's motion left nothing moving in the
    // scene, but the view changed over the face, and that is the motion pass seeing it
    const face = { x: 0.03, y: 0.01, w: 0.97, h: 0.99 };
    const handheld = [0.3, 1.9].map((t) => {
      const f = dark(frame(t, [person(0.58, face)], face));
      return { ...f, sample: { ...f.sample, sceneCells: cells() } };
    });
    expect(secondOpinions(handheld, pattern, judge).map((f) => f.detections.length)).to.deep.equal([1, 1]);
    // one person who walked in the dim keeps the others, still, beside him
    const walking = dark(frame(5, [person(0.7, walker(0.8))], walker(0.8)));
    expect(secondOpinions([...looks, walking], pattern, judge).map((f) => f.detections.length)).to.deep.equal([1, 1, 1]);
  });
});

describe('decide, step 2: the weather', () => {
  it('snow is flakes seen over more of the view than streaks: its first look takes them out; rain, a downpour and a dry clip are not snow', () => {
    expect(snowing({ ...pattern, flakes: 0.4, streaks: 0, repeat: 0.2 })).to.equal(true);
    expect(snowing({ ...pattern, flakes: 0.1, streaks: 0.6, repeat: 0.1 })).to.equal(false);
    expect(snowing({ ...pattern, flakes: 0, streaks: 0.9, repeat: 0.1 })).to.equal(false);
    expect(snowing(pattern)).to.equal(false);
  });

  it('streaks over much of the view are rain at the precipitation score; a dry clip gets no rain score', () => {
    const rainy: MotionPattern = { ...pattern, streaks: 0.6, repeat: 0.1 };
    const scores: Scores = {};
    weather(scores, [], rainy, judge);
    expect(scores.rain).to.equal(Math.round(rainScore(rainy) * 1000) / 1000);
    expect(scores.rain).to.be.at.least(judge.threshold('rain'));
    const dry: Scores = {};
    weather(dry, [], pattern, judge);
    expect(dry).to.deep.equal({});
  });

  it('a crown swaying on a still camera, nothing found over it: plant and wind at the sway scores', () => {
    const scores: Scores = {};
    weather(scores, [frame(0, [], crownBox)], swaying, judge);
    const expected = swayScores(sway, MOTION_GRID, [], () => 0, judge.threshold('flag'));
    expect(expected.plant).to.be.above(0);
    expect(scores.wind).to.equal(Math.round(expected.wind * 1000) / 1000);
    expect(scores.plant).to.be.at.least(Math.round(expected.plant * 1000) / 1000 - 1e-9);
  });

  it('a compact place fluttering where the detector boxed a flag ("kite"), the classifier silent: a flag, and its place; boxed elsewhere, none', () => {
    const cloth = gridBlock(5, 1, 3, 2);
    const fluttering: MotionPattern = { ...pattern, sway: describeSway(cellMotion(40, (c, t) => (cloth(c) ? [0.2, 0.8 * Math.sin(2 * Math.PI * 0.25 * t)] : [0, 0])), SAMPLE_FPS)! };
    const place: Box = { x: 5 / MOTION_GRID.x, y: 1 / MOTION_GRID.y, w: 3 / MOTION_GRID.x, h: 2 / MOTION_GRID.y };
    const boxed = (box: Box): FrameFindings => ({ ...frame(0, [], place), flags: [{ box, score: 0.88 }] });
    const there: Scores = {};
    expect(weather(there, [boxed({ x: 0.43, y: 0.12, w: 0.22, h: 0.2 })], fluttering, judge).flagPlace).to.deep.equal(place);
    expect(there.flag).to.be.at.least(judge.threshold('flag'));
    const elsewhere: Scores = {};
    expect(weather(elsewhere, [boxed({ x: 0.05, y: 0.6, w: 0.2, h: 0.2 })], fluttering, judge)).to.deep.equal({});
    expect(elsewhere.flag ?? 0).to.equal(0);
    // a flag boxed on a camera whose view holds nothing fluttering is no flag either (a kite in the sky)
    const still: Scores = {};
    weather(still, [boxed({ x: 0.43, y: 0.12, w: 0.22, h: 0.2 })], pattern, judge);
    expect(still.flag ?? 0).to.equal(0);
  });

  it('a "kite" in a fluttering place boxed with two or more things that fly of its size going about is a bird of a flock: no flag; flags in a row, each boxed where it stays, are flags', () => {
    const cloth = gridBlock(2, 3, 3, 1);
    const fluttering: MotionPattern = { ...pattern, sway: describeSway(cellMotion(40, (c, t) => (cloth(c) ? [0.2, 0.8 * Math.sin(2 * Math.PI * 0.25 * t)] : [0, 0])), SAMPLE_FPS)! };
    const place: Box = { x: 2 / MOTION_GRID.x, y: 3 / MOTION_GRID.y, w: 3 / MOTION_GRID.x, h: 1 / MOTION_GRID.y };
    const bird = (x: number, y: number): Box => ({ x, y, w: 0.02, h: 0.05 });
    const look = (t: number, flags: Box[], flyers: Box[]): FrameFindings => ({ ...frame(t, [], place), flags: flags.map((box) => ({ box, score: 0.34 })), flyers });
    // the flock circling: a bird boxed as a kite in the place, others of its size elsewhere, somewhere else each moment
    const kite = bird(0.3, 0.34);
    const flock = [look(0.4, [kite], [kite, bird(0.36, 0.28), bird(0.44, 0.4)]), look(2.2, [], [bird(0.57, 0.14), bird(0.74, 0.14), bird(0.41, 0.22)])];
    const birds: Scores = {};
    expect(weather(birds, flock, fluttering, judge)).to.deep.equal({});
    expect(birds.flag ?? 0).to.equal(0);
    // the same kite with the others boxed again where they were at the other moment: flags on their poles
    const row = [look(0.4, [kite], [kite, bird(0.36, 0.28), bird(0.44, 0.4)]), look(2.2, [kite], [kite, bird(0.36, 0.28), bird(0.44, 0.4)])];
    const flags: Scores = {};
    expect(weather(flags, row, fluttering, judge).flagPlace).to.deep.equal(place);
    expect(flags.flag).to.be.above(0);
  });

  it('in rain, a sway read with the drops taken out gives plant and wind beside rain, where it is as smooth as a sway; the drops\' residue does not', () => {
    const scores: Scores = {};
    weather(scores, [], { ...swaying, sway: { ...sway, inRain: true }, streaks: 0.6, repeat: 0.1 }, judge);
    expect(scores).to.include.keys('rain', 'plant', 'wind');
    // flows that turn by 1.4 radians a sample (correlated by 0.17 with the one before): no sway in rain
    const residue = describeSway(cellMotion(40, (c, t) => (crown(c) ? [0.3 * Math.cos(1.4 * t + c), 0.1 * Math.sin(1.4 * t)] : [0, 0])), SAMPLE_FPS)!;
    const wet: Scores = {};
    weather(wet, [], { ...swaying, sway: { ...residue, inRain: true }, streaks: 0.6, repeat: 0.1 }, judge);
    expect(Object.keys(wet)).to.deep.equal(['rain']);
  });

  it('a person seen at confirm_score or more over the crown explains its motion: no foliage; one seen less does not', () => {
    const over = (score: number) => [frame(0, [person(score, { x: 0, y: 0, w: 0.6, h: 0.7 })], crownBox)];
    const explained: Scores = {};
    weather(explained, over(judge.unsure), swaying, judge);
    expect(explained).to.not.have.any.keys('plant', 'wind');
    const faint: Scores = {};
    weather(faint, over(judge.unsure - 0.1), swaying, judge);
    expect(faint).to.include.keys('plant', 'wind');
  });

  it('a person found over the crown only after the sway was read moved none of its cells: foliage, where the detector looked there then and saw no one', () => {
    const body = { x: 0, y: 0, w: 0.6, h: 0.7 };
    const later = frame(SWAY_SECONDS + 10, [person(0.9, body)], crownBox);
    const lookedThen: Scores = {};
    weather(lookedThen, [frame(2, [], crownBox), later], swaying, judge);
    expect(lookedThen).to.include.keys('plant', 'wind');
    // no look while the sway was read: nothing says he was not there, he explains it
    const neverLooked: Scores = {};
    weather(neverLooked, [later], swaying, judge);
    expect(neverLooked).to.not.have.any.keys('plant', 'wind');
  });

  it("what stood out of the background joined to a found person's box, at that moment, is the person's (limbs, a walker beside): no foliage; a sway beside it that did not stand out is", () => {
    const body: Box = { x: 1 / MOTION_GRID.x, y: 1 / MOTION_GRID.y, w: 2 / MOTION_GRID.x, h: 4 / MOTION_GRID.y }; // the crown's first two columns
    const seenWith = (foreground: Uint8Array): FrameFindings[] => {
      const f = frame(0, [person(0.9, body)], crownBox);
      return [{ ...f, sample: { ...f.sample, foreground } }];
    };
    const joined: Scores = {};
    weather(joined, seenWith(cellsUnder(crownBox)), swaying, judge);
    expect(joined).to.not.have.any.keys('plant', 'wind');
    // only the body stood out, or something apart from it: the crown's other cells sway on their own
    const apart = cellsUnder(body);
    apart[7 * MOTION_GRID.x + 9] = 1;
    for (const foreground of [cellsUnder(body), apart]) {
      const beside: Scores = {};
      weather(beside, seenWith(foreground), swaying, judge);
      expect(beside).to.include.keys('plant', 'wind');
    }
  });

  it('a plant the classifier was surer of keeps its score', () => {
    const scores: Scores = { plant: 0.97 };
    weather(scores, [frame(0, [], crownBox)], swaying, judge);
    expect(scores.plant).to.be.at.least(0.97);
  });
});

describe('decide, step 3: what counts as found', () => {
  const seen = (...scores: number[]) => scores.map((s, i) => frame(i * 1.5, [person(s, walker(0.1 + 0.3 * i))], walker(0.1 + 0.3 * i)));

  it('a label at its threshold is found, under it not', () => {
    const found = foundRule([], judge);
    expect(found('animal', 0.5)).to.equal(true);
    expect(found('animal', 0.49)).to.equal(false);
    expect(found('person', 0.55)).to.equal(true);
    expect(found('person', 0.5)).to.equal(false);
  });

  it('a person seen in two frames, one of them at confirm_score, is found from confirm_score', () => {
    const found = foundRule(seen(0.42, 0.35), judge);
    expect(found('person', 0.42)).to.equal(true);
    expect(found('person', 0.4)).to.equal(true);
    expect(found('person', 0.39)).to.equal(false);
  });

  it('never one frame alone, nor two sightings under confirm_score, nor a label that makes no intrusion', () => {
    expect(foundRule(seen(0.45), judge)('person', 0.45)).to.equal(false);
    expect(foundRule(seen(0.38, 0.35), judge)('person', 0.38)).to.equal(false);
    const animals = [0, 1.5].map((t) => frame(t, [{ label: 'animal', score: 0.45, box: walker(0.2) }], walker(0.2)));
    expect(foundRule(animals, judge)('animal', 0.45)).to.equal(false);
    // the camera's own intrusion labels decide which labels agreement serves
    expect(foundRule(animals, judgeOf(manifest, rules({ intrusionLabels: ['animal'] })))('animal', 0.45)).to.equal(true);
  });

  it('sightings agree only where one body could have made both: two small unsure persons across the view half a second apart are two doubts, not one person', () => {
    const small = (x: number): Box => ({ x, y: 0.5, w: 0.03, h: 0.08 });
    const apart = [frame(1, [person(0.42, small(0.05))], small(0.05)), frame(1.5, [person(0.42, small(0.85))], small(0.85))];
    expect(foundRule(apart, judge)('person', 0.42)).to.equal(false);
    // the same small sightings a runner's way apart (twice his size in half a second), or the far one seen long after, agree
    const near = [frame(1, [person(0.42, small(0.05))], small(0.05)), frame(1.5, [person(0.42, small(0.15))], small(0.15))];
    expect(foundRule(near, judge)('person', 0.42)).to.equal(true);
    const later = [frame(1, [person(0.42, small(0.05))], small(0.05)), frame(6, [person(0.42, small(0.85))], small(0.85))];
    expect(foundRule(later, judge)('person', 0.42)).to.equal(true);
  });

  it("a camera's label filter: only the labels it lists, each from its own minimum", () => {
    const found = foundRule([], judgeOf(manifest, rules({ labels: { person: 0.7 } })));
    expect(found('person', 0.6)).to.equal(false);
    expect(found('person', 0.7)).to.equal(true);
    expect(found('vehicule', 0.99)).to.equal(false);
  });
});

describe('decide, step 4: small creatures where no one is', () => {
  const track = (box: Box): MoverTrack => ({ box, from: 1, to: 3, seconds: 2, sightings: 20, travel: 4, striding: 4, turning: 0.3, pausing: 0.3, hops: 0, guessed: 0, contrast: 3, velocity: { x: 5, y: 0 }, course: [] });
  const spider: Box = { x: 0.4, y: 0.7, w: 0.05, h: 0.05 };
  /** The small movers, counting how often they are asked for. */
  function movers(creatures: MoverTrack[], score = 0.6, travellers: MoverTrack[] = []) {
    const asked = { count: 0 };
    return { asked, get: (): SmallMovers => (asked.count++, { creatures, travellers, faint: [], score }) };
  }

  it('nobody found: each creature an animal at the movers\' score, where it went, and the animal score raised', () => {
    const m = movers([track(spider)]);
    const scores: Scores = { plant: 0.2 };
    const creatures = creaturesWhereNoOne(scores, [], foundRule([], judge), judge, m.get);
    expect(creatures).to.deep.equal([{ label: 'animal', score: 0.6, box: spider }]);
    expect(scores).to.deep.equal({ plant: 0.2, animal: 0.6 });
    expect(m.asked.count).to.equal(1);
  });

  it('a person found: the small movers are not even asked for, and add nothing', () => {
    const m = movers([track(spider)]);
    const scores: Scores = { person: 0.9 };
    expect(creaturesWhereNoOne(scores, [], foundRule([], judge), judge, m.get)).to.deep.equal([]);
    expect(scores).to.deep.equal({ person: 0.9 });
    expect(m.asked.count).to.equal(0);
    // a person seen but not found does not stop them
    expect(creaturesWhereNoOne({ person: 0.3 }, [], foundRule([], judge), judge, movers([track(spider)]).get)).to.have.length(1);
  });

  it("a creature outside every zone of the camera does not count; one inside does", () => {
    const zoned = judgeOf(manifest, rules({ zones: [{ name: 'floor', points: band(0.5, 1) }] }));
    const high: Box = { x: 0.4, y: 0.1, w: 0.05, h: 0.05 };
    const creatures = creaturesWhereNoOne({}, [], foundRule([], zoned), zoned, movers([track(high), track(spider)]).get);
    expect(creatures.map((c) => c.box)).to.deep.equal([spider]);
  });

  it("inside the place of a flag found fluttering, a creature is the cloth's folds (and flakes crossing them): not an animal; one beside it is", () => {
    const flag: Box = { x: 0.33, y: 0.11, w: 0.42, h: 0.44 };
    const fold: Box = { x: 0.4, y: 0.15, w: 0.13, h: 0.12 };
    const creatures = creaturesWhereNoOne({}, [], foundRule([], judge), judge, movers([track(fold), track(spider)]).get, flag);
    expect(creatures.map((c) => c.box)).to.deep.equal([spider]);
    expect(creaturesWhereNoOne({}, [], foundRule([], judge), judge, movers([track(fold)]).get)).to.have.length(1);
  });

  it('a traveller the detector boxed as a thing that flies on its path in two samples while it went is a bird crossing: an animal; not once, not off its path, not at another time', () => {
    // on a straight course across the sky for 3 s, from 0.5 s to 3.5 s
    const course: MoverTrack = { ...track({ x: 0.2, y: 0.1, w: 0.45, h: 0.2 }), from: 0.5, to: 3.5, seconds: 3, turning: 0.02, pausing: 0 };
    const kite = (x: number): Box => ({ x, y: 0.15, w: 0.02, h: 0.06 });
    const flying = (t: number, flyers: Box[]): FrameFindings => ({ ...frame(t, [], course.box), flyers });
    const crossing = [flying(0.8, [kite(0.28)]), flying(2.6, []), flying(3, [kite(0.54)])];
    const scores: Scores = {};
    const birds = creaturesWhereNoOne(scores, crossing, foundRule([], judge), judge, movers([], 0, [course]).get);
    expect(birds.map((b) => [b.label, b.box])).to.deep.equal([['animal', course.box]]);
    expect(birds[0]!.score).to.be.closeTo(0.8, 1e-9); // followed 3 s: 0.6 + 0.3 x 2 / 3
    expect(scores.animal).to.equal(0.8);
    const birdsOf = (frames: FrameFindings[]) => creaturesWhereNoOne({}, frames, foundRule([], judge), judge, movers([], 0, [course]).get);
    expect(birdsOf(crossing.slice(0, 2)), 'one sample').to.deep.equal([]);
    expect(birdsOf([flying(0.8, [kite(0.8)]), flying(3, [{ ...kite(0.3), y: 0.7 }])]), 'off its path').to.deep.equal([]);
    expect(birdsOf([flying(5, [kite(0.28)]), flying(6, [kite(0.54)])]), 'after it went').to.deep.equal([]);
  });

  it('no movers followed, or none found: nothing; a surer animal score stays', () => {
    expect(creaturesWhereNoOne({}, [], foundRule([], judge), judge)).to.deep.equal([]);
    const scores: Scores = { animal: 0.9 };
    creaturesWhereNoOne(scores, [], foundRule([], judge), judge, movers([track(spider)], 0.6).get);
    expect(scores.animal).to.equal(0.9);
    expect(creaturesWhereNoOne({}, [], foundRule([], judge), judge, movers([], 0).get)).to.deep.equal([]);
  });
});

describe('decide, step 5: the risk', () => {
  const risk = (frames: FrameFindings[], rainy = false, j: Judge = judge) => riskOf(frames, foundRule(frames, j), rainy, j);
  const crossing = (score: number, label: ServiceLabel = 'person') =>
    [0, 1.5, 3].map((t, i) => frame(t, [{ label, score, box: walker(0.1 + i * 0.3) }], walker(0.1 + i * 0.3)));
  const staying = (label: ServiceLabel, box: Box) => [0, 1.2, 2.4].map((t) => frame(t, [{ label, score: 0.9, box }], box));

  it('a person found moving through the view: intrusion, at its best score', () => {
    expect(risk(crossing(0.8))).to.deep.equal({ risk: 'intrusion', intrusion: 0.8 });
    expect(risk(crossing(0.8, 'vehicule'))).to.deep.equal({ risk: 'intrusion', intrusion: 0.8 });
  });

  it('a person who stays put is danger; a vehicle that stays put is safe; nothing found is safe', () => {
    const seat: Box = { x: 0.4, y: 0.4, w: 0.15, h: 0.3 };
    expect(risk(staying('person', seat))).to.deep.equal({ risk: 'danger', intrusion: 0 });
    expect(risk(staying('vehicule', seat))).to.deep.equal({ risk: 'safe', intrusion: 0 });
    expect(risk(crossing(0.3))).to.deep.equal({ risk: 'safe', intrusion: 0 });
    expect(risk(staying('animal', seat))).to.deep.equal({ risk: 'safe', intrusion: 0 });
  });

  it('stayed put is measured in pixels: a person crossing a 16:9 view a third of his height is moving, one coming down it as far too', () => {
    // 0.2 of the width by 0.4 of the height of a 16:9 frame: 0.35 by 0.4 of the height in pixels
    const at = (x: number, y: number): Box => ({ x, y, w: 0.2, h: 0.4 });
    const moves = (from: Box, to: Box, aspect: number) =>
      riskOf([frame(0, [{ label: 'person', score: 0.9, box: from }], from), frame(1.5, [{ label: 'person', score: 0.9, box: to }], to)],
        foundRule([], judge), false, judge, aspect).risk;
    // across by 0.08 of the width (0.14 of the height, a third of his height) and down by 0.14 of the height
    expect(moves(at(0.4, 0.3), at(0.48, 0.3), 16 / 9)).to.equal('intrusion');
    expect(moves(at(0.4, 0.3), at(0.4, 0.44), 16 / 9)).to.equal('intrusion');
    expect(moves(at(0.4, 0.3), at(0.48, 0.3), 1), 'counted in shares of each side, the crossing was under 0.3 of his height').to.equal('danger');
  });

  it('on a camera that moved, stayed put is measured in the scene: a parked car the pan carries across the frame is still, a walker the camera follows is not', () => {
    // a pan: the view's content slides left by a tenth of the width a second, and every cell changes
    const view = (t: number) => ({ x: -0.1 * t, y: 0 });
    const inFrame = (box: Box, t: number): Box => ({ ...box, x: box.x + view(t).x });
    /** a frame of the pan seeing `box` (in the frame), where `moving` (in the frame) changed against the view */
    const seen = (t: number, label: ServiceLabel, box: Box, moving?: Box): FrameFindings => {
      const f = frame(t, [{ label, score: 0.9, box }]);
      return { ...f, sample: { ...f.sample, cells: cells().fill(1), view: view(t), sceneCells: moving ? cellsUnder(moving) : cells() } };
    };
    const stillCamera = (frames: FrameFindings[]) => frames.map((f) => ({ ...f, sample: { ...f.sample, view: undefined, sceneCells: undefined } }));
    const car: Box = { x: 0.5, y: 0.5, w: 0.3, h: 0.2 };
    const parked = [0, 1.5, 3].map((t) => seen(t, 'vehicule', inFrame(car, t)));
    expect(risk(parked)).to.deep.equal({ risk: 'safe', intrusion: 0 });
    expect(risk(stillCamera(parked)).risk, 'taken for a still camera, it drove across the frame').to.equal('intrusion');
    // the camera follows a walker: his box stays in the middle of the frame while the view slides by
    const followed = [0, 1.5, 3].map((t) => seen(t, 'person', walker(0.4), walker(0.4)));
    expect(risk(followed).risk).to.equal('intrusion');
    expect(risk(stillCamera(followed)).risk, 'taken for a still camera, he stayed put').to.equal('danger');
    // seen once while the camera moves: whether its own cells changed against the view decides
    const seat: Box = { x: 0.4, y: 0.4, w: 0.15, h: 0.3 };
    expect(risk([seen(1, 'person', inFrame(seat, 1))])).to.deep.equal({ risk: 'danger', intrusion: 0 });
    expect(risk([seen(1, 'person', inFrame(seat, 1), inFrame(seat, 1))]).risk).to.equal('intrusion');
  });

  it('in rain a box must move more than the rain around it', () => {
    const everywhere = cells().fill(1);
    const inRain = (moving: 'box' | 'everywhere') => crossing(0.8).map((f) => ({
      ...f, sample: { ...f.sample, solidCells: moving === 'box' ? cellsUnder(f.detections[0]!.box) : everywhere },
    }));
    expect(risk(inRain('box'), true).risk).to.equal('intrusion');
    expect(risk(inRain('everywhere'), true)).to.deep.equal({ risk: 'danger', intrusion: 0 });
    expect(risk(inRain('everywhere'), false).risk, 'dry, the same cells are motion under the box').to.equal('intrusion');
  });

  it('in rain a box a small mover went through at that time moves (heavy rain leaves a walker no cells of his own); not one it passed at another time, nor one that went nowhere', () => {
    const drowned = crossing(0.8).map((f) => ({ ...f, sample: { ...f.sample, solidCells: cells().fill(1) } }));
    // the walker's boxes are at x 0.1, 0.4, 0.7 (0.1 wide, y 0.3 to 0.7) at 0, 1.5 and 3 s
    const mover = (course: MoverTrack['course'], travel = 6): MoverTrack => ({
      box: { x: 0.1, y: 0.4, w: 0.7, h: 0.2 }, from: course[0]!.t, to: course[course.length - 1]!.t, seconds: 3, sightings: 30,
      travel, striding: travel, turning: 0, pausing: 0, hops: 0.2, guessed: 0, contrast: 1.5, velocity: { x: 20, y: 0 }, course,
    });
    const along = mover([0, 0.5, 1, 1.5, 2, 2.5, 3].map((t) => ({ t, x: 0.15 + t * 0.2, y: 0.5 })));
    const inRain = (movers: MoverTrack[]) => riskOf(drowned, foundRule(drowned, judge), true, judge, 1, movers);
    expect(inRain([along])).to.deep.equal({ risk: 'intrusion', intrusion: 0.8 });
    expect(inRain([])).to.deep.equal({ risk: 'danger', intrusion: 0 });
    const late = mover([4, 4.5, 5].map((t) => ({ t, x: 0.15 + (t - 4) * 0.3, y: 0.5 })));
    expect(inRain([late]).risk, 'through the boxes, a second after').to.equal('danger');
    const jitter = mover([0, 1.5, 3].map((t) => ({ t, x: 0.15 + t * 0.2, y: 0.5 })), 0.5);
    expect(inRain([jitter]).risk, 'a mover that went less than its own length').to.equal('danger');
    const seated = [0, 1.5, 3].map((t) => ({ ...drowned[0]!, t }));
    expect(riskOf(seated, foundRule(seated, judge), true, judge, 1, [along]).risk, 'one who stayed put, a mover passing through').to.equal('danger');
  });

  it('a box seen at one place twice, on the course of a small mover whose whole path lies about it, went somewhere (a far walker going away), in rain or dry; a passer-by does not move it, nor, dry, a vehicle\'s', () => {
    // the far walker going away from the camera: his boxes 2.2 s apart hardly move (the detector's
    // jitter), while the movers, at a finer size, follow him up the view 2.3 of his lengths
    const box = (x: number, y: number): Box => ({ x, y, w: 0.015, h: 0.06 });
    const there = [frame(2.4, [{ label: 'person', score: 0.42, box: box(0.329, 0.585) }]), frame(4.6, [{ label: 'person', score: 0.34, box: box(0.322, 0.58) }])]
      .map((f) => ({ ...f, sample: { ...f.sample, solidCells: cells().fill(1) } }));
    const course = [0.8, 1.4, 1.8, 2.4, 2.8, 3.4, 3.8, 4.4].map((t) => ({ t, x: 0.354 - (t - 0.8) * 0.005, y: 0.667 - (t - 0.8) * 0.016 }));
    const walker: MoverTrack = {
      box: { x: 0.33, y: 0.6, w: 0.03, h: 0.07 }, from: 0.6, to: 4.4, seconds: 3.8, sightings: 20,
      travel: 2.3, striding: 1.4, turning: 0.04, pausing: 0.68, hops: 0, guessed: 0, contrast: 2.1, velocity: { x: -1, y: -3 }, course,
    };
    const found = (frames: FrameFindings[]) => (label: ServiceLabel, score: number) => label === 'person' && score >= 0.4 && frames.length > 0;
    expect(riskOf(there, found(there), true, judge, 16 / 9, [walker])).to.deep.equal({ risk: 'intrusion', intrusion: 0.42 });
    expect(riskOf(there, found(there), true, judge, 16 / 9, []).risk, 'without the movers, he stayed put').to.equal('danger');
    // the same boxes, a mover crossing the view through them at 2.4 s: someone else passing by
    const passing: MoverTrack = { ...walker, box: { x: 0.1, y: 0.6, w: 0.6, h: 0.05 }, course: [1.4, 1.9, 2.4, 2.9, 3.4].map((t) => ({ t, x: 0.337 + (t - 2.4) * 0.25, y: 0.615 })) };
    expect(riskOf(there, found(there), true, judge, 16 / 9, [passing]).risk, 'a passer-by').to.equal('danger');
    // dry, the same: the grid's cells barely change about so small a box, the movers follow him
    const dry = there.map((f) => ({ ...f, sample: { ...f.sample, solidCells: cells(), cells: cells() } }));
    expect(riskOf(dry, found(dry), false, judge, 16 / 9, () => [walker]).risk, 'dry').to.equal('intrusion');
    expect(riskOf(dry, found(dry), false, judge, 16 / 9, [passing]).risk, 'dry, a passer-by').to.equal('danger');
    // a hand or a head moving about a seated person: its path lies about his box, but sweeps a part of it
    const boxed = (box: Box) => dry.map((f) => ({ ...f, detections: f.detections.map((d) => ({ ...d, box })) }));
    const seated = boxed({ x: 0.31, y: 0.52, w: 0.06, h: 0.2 });
    expect(riskOf(seated, found(seated), false, judge, 16 / 9, [walker]).risk, 'a part of a seated body').to.equal('danger');
    // dry, a person too large for the movers to follow whole is not asked of them
    let asked = false;
    const near = boxed({ x: 0.25, y: 0.4, w: 0.2, h: 0.5 });
    expect(riskOf(near, found(near), false, judge, 16 / 9, () => { asked = true; return [{ ...walker, box: { x: 0.26, y: 0.42, w: 0.18, h: 0.45 } }]; }).risk, 'near').to.equal('danger');
    expect(asked, 'the movers followed for a near person').to.equal(false);
    // a parked car is what people walk about: dry, a mover about a vehicle's boxes does not move it
    const parked = dry.map((f) => ({ ...f, detections: f.detections.map((d) => ({ ...d, label: 'vehicule' as const })), scores: { vehicule: f.scores.person! } }));
    const foundCar = (label: ServiceLabel, score: number) => label === 'vehicule' && score >= 0.4;
    expect(riskOf(parked, foundCar, false, judge, 16 / 9, [walker]).risk, 'a parked car').to.equal('safe');
  });

  it("outside every zone of the camera (the box's bottom-centre), neither intrusion nor danger", () => {
    const sky = judgeOf(manifest, rules({ zones: [{ name: 'sky', points: band(0, 0.5) }] })); // the walker's feet are at y = 0.7
    expect(risk(crossing(0.8), false, sky)).to.deep.equal({ risk: 'safe', intrusion: 0 });
    const path = judgeOf(manifest, rules({ zones: [{ name: 'path', points: band(0.6, 0.8) }] }));
    expect(risk(crossing(0.8), false, path).risk).to.equal('intrusion');
  });

  it('a person named by a whole-frame classification counts where its frame moved, but not in rain', () => {
    const unboxed = [0, 1.5].map((t) => frame(t, [], walker(0.3), { person: 0.7 }));
    expect(risk(unboxed)).to.deep.equal({ risk: 'intrusion', intrusion: 0.7 });
    expect(risk(unboxed, true)).to.deep.equal({ risk: 'danger', intrusion: 0 });
    const still = [0, 1.5].map((t) => frame(t, [], undefined, { person: 0.7 }));
    expect(risk(still).risk).to.equal('danger');
  });
});
