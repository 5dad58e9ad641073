// From what the networks saw in each chosen frame, and how things moved, to
// the result: label scores aggregated over frames, the weather labels from
// the motion pattern, and the risk rules (runtime/pipeline/README.md, "Labels and risk").
import type { Box, CameraRules, Detection, KeyFrame, Risk, Scores, ServiceLabel } from '../core/analysis.js';
import type { Manifest } from '../core/model-manifest.js';
import { area, centreDistance, covered, inside, iou } from './boxes.js';
import { applyCameraRules, inZone, labelAllowed } from './camera-rules.js';
import { cellGroups } from './cell-groups.js';
import { cellCentre, eitherOf, SWAY_SECONDS, swayFindings, swayingCells, swayingShare, swayScores } from './foliage.js';
import { inView } from './camera-path.js';
import type { Sighting } from './decoders.js';
import { MOTION_GRID, type MotionPattern, type MotionSample } from './motion.js';
import { followedScore, SMALL_SIDE, type MoverTrack, type SmallMovers } from './small-movers.js';
import { precipitationScore, snowSeen } from './precipitation.js';

/** What the networks made of one chosen frame. */
export interface FrameFindings {
  t: number;
  sample: MotionSample;
  /** label -> best score in this frame (boxed or not) */
  scores: Scores;
  /** boxed findings, in frame coordinates */
  detections: Detection[];
  /** the boxes of things that fly the detector saw (a bird, or what it takes one for), a label or not */
  flyers?: Box[];
  /** what the detector called a flag (a flag's evidence where a compact place flutters), a label or not */
  flags?: Sighting[];
  /** what the detector called a vehicle seen from above (a car's roof is a phone to it), a label or not */
  fromAbove?: Sighting[];
  /**
   * seen with the drops of rain or snow taken out: true, over a fifth of a second either side
   * (each pixel's darkest, or brightest); false, over the samples either side only; absent, as it is
   */
  derained?: boolean;
  /** the part of the frame the look framed (its region, in frame coordinates); absent: the whole frame */
  framing?: Box;
  /** the frame was underexposed (light.ts): a night, a dim room, the camera's gain up */
  dim?: boolean;
  /**
   * a second opinion on a frame as it is in rain: the same moment and framing with the thin
   * streaks of the drops opened out (dropWhatStreaksMade); it adds no sighting of its own
   */
  opened?: boolean;
}

export interface Decision {
  risk: Risk;
  labels: ServiceLabel[];
  scores: Scores;
  keyframes: KeyFrame[];
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * A box seen in sample `from`, where the same place in the scene lies in sample `to`'s view: on
 * a camera that moved between them, shifted as the view's content moved (motion.ts, `view`);
 * on a still camera, where it was.
 */
export function inViewOf(box: Box, from: MotionSample, to: MotionSample): Box {
  return from.view && to.view ? inView(box, from.view, to.view) : box;
}

/**
 * Share of a box's cells that move, and of the cells outside it. A box smaller than a cell
 * takes the cell under its centre.
 */
function boxShares(box: Box, cells: Uint8Array): { inside: number; outside: number } {
  const under = cellsInside(box);
  const inside = under.length;
  const movingInside = under.reduce((n, c) => n + cells[c.y * MOTION_GRID.x + c.x]!, 0);
  const movingOutside = cells.reduce((n, v) => n + v, 0) - movingInside;
  const outsideCount = MOTION_GRID.x * MOTION_GRID.y - inside;
  const outside = outsideCount ? movingOutside / outsideCount : 0;
  if (inside > 0) return { inside: movingInside / inside, outside };
  const x = Math.min(MOTION_GRID.x - 1, Math.floor((box.x + box.w / 2) * MOTION_GRID.x));
  const y = Math.min(MOTION_GRID.y - 1, Math.floor((box.y + box.h / 2) * MOTION_GRID.y));
  return { inside: cells[y * MOTION_GRID.x + x]!, outside };
}

/**
 * Share of a box covered by the sample's moving cells: changed since the last sample, or apart
 * from the background; on a camera that moved, changed against the view (a pan changes every
 * cell, and the clip's background is no one place's).
 */
export function movingShare(box: Box, sample: MotionSample): number {
  return boxShares(box, movedCells(sample)).inside;
}

/** The cells of a sample where something moved: changed or standing out of the background (on a camera that moved, in the scene). */
const movedCells = (sample: MotionSample): Uint8Array => sample.sceneCells ?? sample.cells.map((v, c) => v | sample.foreground[c]!);

/** The grid cells whose centres lie in a box, as column and row numbers. */
function cellsInside(box: Box): Array<{ x: number; y: number }> {
  const inside: Array<{ x: number; y: number }> = [];
  for (let y = 0; y < MOTION_GRID.y; y++) {
    for (let x = 0; x < MOTION_GRID.x; x++) {
      const cx = (x + 0.5) / MOTION_GRID.x;
      const cy = (y + 0.5) / MOTION_GRID.y;
      if (cx >= box.x && cx <= box.x + box.w && cy >= box.y && cy <= box.y + box.h) inside.push({ x, y });
    }
  }
  return inside;
}

/**
 * The sample with a box's cells marked apart from the background: what the small movers saw
 * move there at a finer size than the motion pass's grid (a far walker at night), along `box`,
 * its path.
 */
export function seenMoving(sample: MotionSample, box: Box): MotionSample {
  const foreground = sample.foreground.slice();
  for (let y = 0; y < MOTION_GRID.y; y++) {
    for (let x = 0; x < MOTION_GRID.x; x++) {
      const over = (x + 1) / MOTION_GRID.x > box.x && x / MOTION_GRID.x < box.x + box.w && (y + 1) / MOTION_GRID.y > box.y && y / MOTION_GRID.y < box.y + box.h;
      if (over) foreground[y * MOTION_GRID.x + x] = 1;
    }
  }
  return { ...sample, foreground, region: sample.region ?? box, path: box };
}

/**
 * How much more a box moves than the rest of the frame, counting solid changes (not specks) and
 * differences from the background: in rain every cell flickers, so an intruder is what moves
 * more than the rain around it. Drops and flakes are specks at the motion pass's size, and
 * never stay long enough to be foreground, so a slow walker in snow still stands out.
 */
export function standsOut(box: Box, sample: MotionSample): number {
  const { inside, outside } = boxShares(box, sample.solidCells.map((v, c) => v | sample.foreground[c]!));
  return inside - outside;
}

/**
 * rain (and snow, which the service's labels call rain): thin short-lived streaks or falling
 * flakes over a sixth of the view or more, not coming back in place (precipitation.ts)
 */
export function rainScore(p: MotionPattern): number {
  return precipitationScore({ streakSpread: p.streaks, flakeSpread: p.flakes, repeat: p.repeat });
}

/**
 * Snow: of what fell, flakes were seen over more of the view than streaks. A flake is a blob a
 * few pixels across, brighter than what it crosses (precipitation.ts): it hides a patch of what
 * is behind it where a raindrop hides a thin line, and the detector does not see through flakes as
 * it sees through lighter rain.
 */
export const snowing = (p: MotionPattern): boolean => snowSeen({ streakSpread: p.streaks, flakeSpread: p.flakes });

/** Rain or snow seen in the clip: its score at the `rain` label's threshold. */
const rainSeen = (p: MotionPattern, judge: Judge): boolean => rainScore(p) >= judge.threshold('rain');

/** What moves in place under these findings is explained by them: not foliage. */
const SWAY_EXPLAINED: ServiceLabel[] = ['person', 'vehicule', 'animal'];

/** A person box over this share of the frame is a close-up: one the detector also makes of animals' faces. */
const CLOSE_UP = 0.5;
/**
 * A thing stayed put when, in the chosen frame furthest from it in time (at least STILL_APART_S
 * apart) where a box of its label overlaps its box, that box's centre is less than SAME_PLACE of
 * the box's longer side away: detector jitter and a shaken camera stay under it, a walker does not.
 * Both are measured in pixels (the frame's aspect): counted in shares of each side, a walker
 * crossing a 16:9 view had to go 1.8 times as far as one coming down it.
 */
const SAME_PLACE = 0.3;
/** ...and its height changed by less than this factor (a walker coming closer grows). */
const SAME_SIZE = 1.25;
const STILL_APART_S = 0.5;

/**
 * Two boxes of one thing framed differently lie in one place: a whole and a part of it (a crop's
 * box on a walker's torso, the whole frame's on all of him), the smaller box this much inside the
 * larger.
 */
const ONE_PLACE = 0.5;

/** Two boxes in one place (ONE_PLACE), whatever their sizes. */
function onePlace(a: Box, b: Box): boolean {
  const [smaller, larger] = area(a) <= area(b) ? [a, b] : [b, a];
  return covered(smaller, larger) >= ONE_PLACE;
}

/**
 * Two boxes of one thing where it was (SAME_PLACE, SAME_SIZE): coming towards the camera or
 * going away changes the size, not the place.
 */
function samePlace(a: Box, b: Box, aspect: number): boolean {
  const grew = Math.max(a.h / b.h, b.h / a.h);
  return centreDistance(a, b, aspect) < SAME_PLACE * Math.max(b.w * aspect, b.h) && grew < SAME_SIZE;
}

/** Share of a box's grid cells that must move: a person is thin in the grid, a vehicle moves as a block. */
const MOVING_SHARE: Scores = { person: 0.1, vehicule: 0.3 };
/**
 * A person or vehicle seen in this many chosen frames counts as found (dark or far walkers, cars
 * from above) when one of them saw it at risk.confirm_score or more: a hysteresis, the other
 * sightings need only be kept by their model (its min_score), so one step of a quantized
 * detector's output in one frame does not decide the clip.
 */
const AGREEING_FRAMES = 2;

/**
 * Second opinion on close-ups: a person box covering most of the frame, in a frame where an
 * animal is seen, is the animal's face, not a person.
 */
function dropCloseUpPersons(frame: FrameFindings): FrameFindings {
  if ((frame.scores.animal ?? 0) < 0.3) return frame;
  return withoutDetections(frame, (d) => d.label === 'person' && area(d.box) > CLOSE_UP);
}

/** The frame without the detections `dropped` says are wrong, each of their labels scored by the ones left. */
function withoutDetections(frame: FrameFindings, dropped: (d: Detection) => boolean): FrameFindings {
  const detections = frame.detections.filter((d) => !dropped(d));
  if (detections.length === frame.detections.length) return frame;
  const scores = { ...frame.scores };
  for (const label of new Set(frame.detections.filter(dropped).map((d) => d.label))) {
    scores[label] = Math.max(0, ...detections.filter((d) => d.label === label).map((d) => d.score));
  }
  return { ...frame, detections, scores };
}

/** Frames this close in time see the same bodies where they were (a walk covers well under its own size). */
const SAME_MOMENT_S = 0.5;

/** The detections `kept` of `frames` seen at a frame's moment: in it, or in one within SAME_MOMENT_S. */
function sameMoment(frames: FrameFindings[], kept: (d: Detection) => boolean): (frame: FrameFindings) => Detection[] {
  const found = frames.map((f) => f.detections.filter(kept));
  return (frame) => found.filter((_, i) => Math.abs(frames[i]!.t - frame.t) <= SAME_MOMENT_S).flat();
}

/** A phone held is mostly inside the box of the person holding it. */
const HELD = 0.5;

/**
 * Second reading of what goes nowhere by itself: a phone moves in a hand. Where the detector saw
 * one (the pack's `vehicles_from_above`) at two moments, at places one body could reach in the
 * time between (oneBody) but not its same place (samePlace: a phone lying on a desk, its box
 * jittering), with no person boxed about it at either moment (HELD), what went there is no
 * phone: from straight above, a car's roof between its windscreen and rear window is a phone's
 * screen in its frame to the detector (every car driving through the overhead lot, 0.91 to 0.99,
 * by day and in infrared, where in the gray the classifier no longer names a car). Each such
 * sighting is read as a vehicle, as sure as the detector was.
 */
function vehiclesFromAbove(frames: FrameFindings[], aspect: number): FrameFindings[] {
  const personsAt = sameMoment(frames, (d) => d.label === 'person');
  const sightings = frames.flatMap((frame) => (frame.fromAbove ?? [])
    .filter((s) => !personsAt(frame).some((p) => covered(s.box, p.box) >= HELD))
    .map((s) => ({ ...s, t: frame.t, sample: frame.sample, frame })));
  type Seen = (typeof sightings)[number];
  const wentFrom = (a: Seen, b: Seen) => a.t !== b.t && oneBody(a, b, aspect) && !samePlace(inViewOf(a.box, a.sample, b.sample), b.box, aspect);
  const went = sightings.filter((a) => sightings.some((b) => wentFrom(a, b)));
  if (went.length === 0) return frames;
  return frames.map((frame) => {
    const read = went.filter((s) => s.frame === frame).map((s): Detection => ({ label: 'vehicule', score: s.score, box: s.box }));
    if (read.length === 0) return frame;
    return { ...frame, detections: [...frame.detections, ...read], scores: { ...frame.scores, vehicule: Math.max(frame.scores.vehicule ?? 0, ...read.map((d) => d.score)) } };
  });
}

/**
 * Second opinion on parts of animals: a person box lying inside the box of an animal seen at
 * least twice its size, at the same moment (the frame, or one within SAME_MOMENT_S), and more
 * surely than the person, is the animal's head or body, not someone there: the detector makes such
 * boxes of a cat's face. Two bodies do not fill one place; where the person is the surer reading
 * (a crouching walker the detector half takes for a dog), the person stays.
 */
function dropPersonsInsideAnimals(frames: FrameFindings[], judge: Judge): FrameFindings[] {
  const animalsAt = sameMoment(frames, (d) => d.label === 'animal' && d.score >= judge.threshold('animal'));
  return frames.map((frame) => {
    const around = animalsAt(frame);
    return withoutDetections(frame, (d) => d.label === 'person' &&
      around.some((a) => a.score > d.score && area(a.box) >= 2 * area(d.box) && covered(d.box, a.box) >= 0.8));
  });
}

/**
 * Second opinion on animals around persons, the other way round: an animal whose box holds a
 * person found at the same moment (in the same frame, in another look at it, or in a frame
 * within SAME_MOMENT_S), less surely than the person, is that person's body, not an animal
 * there. Two bodies do not fill one place. Where heavy rain is taken out of a frame (each
 * pixel's darkest over a fifth of a second either side), a walker near enough to swing his
 * limbs across his own width in that time is smeared into a dark trail, which the detector
 * calls an animal; in rain as it is, the detector called half of the store's view an animal
 * (0.57) around two shoppers it saw at 0.93 and 0.73.
 */
function dropAnimalsAroundPersons(frames: FrameFindings[]): FrameFindings[] {
  const personsAt = sameMoment(frames, (d) => d.label === 'person');
  return frames.map((frame) => {
    const around = personsAt(frame);
    return withoutDetections(frame, (d) => d.label === 'animal' && around.some((p) => p.score > d.score && covered(p.box, d.box) >= 0.8));
  });
}

/**
 * A body at least this many times as tall as it is wide (in pixels) stands upright: a person
 * standing or walking is two to four times as tall as wide; an animal on four legs is longer
 * than tall, and a cat or a dog sitting about one and a half times as tall.
 */
const UPRIGHT = 2;

/** An animal boxed upright (UPRIGHT, in pixels): in rain, the detector's other name for a person. */
const uprightAnimal = (d: Detection, aspect: number) => d.label === 'animal' && d.box.h >= UPRIGHT * d.box.w * aspect;

/**
 * Second opinion on one body named two ways in rain: where rain is seen, or the looks took the
 * drops out (a frame derained), an animal boxed where a person was seen at the same moment (in the same
 * frame or one within SAME_MOMENT_S, at confirm_score or more, one thing: sameThing), its box
 * upright, is that person seen again. The drops hide another part of a near body in each frame,
 * and taking them out leaves it another ghost, so the detector's name for it flips from look to
 * look (the woman coming in through the made downpour, at twice the bench's size: a person 0.58,
 * then an animal 0.79 on her 0.3 s later); her outline holds, and an upright one is a
 * person's. It counts at the lower of the two scores: seen in two looks, the person is agreed
 * across frames (foundRule) as a walker seen twice unsure is.
 */
function uprightBodiesInRain(frames: FrameFindings[], judge: Judge, aspect: number, rainy: boolean): FrameFindings[] {
  if (!rainy && !frames.some((f) => f.derained)) return frames;
  const personsAt = sameMoment(frames, (d) => d.label === 'person' && d.score >= judge.unsure);
  return frames.map((frame) => {
    const persons = personsAt(frame);
    const personOf = (d: Detection) => (uprightAnimal(d, aspect) ? persons.find((p) => sameThing(p.box, d.box)) : undefined);
    if (!frame.detections.some(personOf)) return frame;
    const detections = frame.detections.map((d) => {
      const person = personOf(d);
      return person ? { ...d, label: 'person' as const, score: Math.min(d.score, person.score) } : d;
    });
    const scored = (label: ServiceLabel) => detections.filter((d) => d.label === label).map((d) => d.score);
    return { ...frame, detections, scores: { ...frame.scores, animal: Math.max(0, ...scored('animal')), person: Math.max(frame.scores.person ?? 0, ...scored('person')) } };
  });
}

/** Things that fly, boxed at one moment besides a person or vehicle of their size, this many or more: a flock. */
const FLOCK_OTHERS = 2;
/**
 * A flock circling or passing is in view for seconds, its birds two seconds apart the same birds:
 * the things that fly boxed this close in time to a sighting count as its flock. A closer look
 * at one bird sees only the region around it, and in rain or snow the detector boxes one or two
 * of a flock's birds a sample: its flock is in the samples next to it, which the first look
 * takes one per second and a half of motion (frame-choice.ts).
 */
const FLOCK_MOMENT_S = 2;
/** Of its size: the longer sides, in pixels, within this factor (a bird's box grows and shrinks with its wings' pose). */
const KINDRED_SIZE = 2;

/**
 * Second opinion on flocks: a person or vehicle boxed where, within FLOCK_MOMENT_S of it, the
 * detector boxed at least two other things that fly (birds, or what it takes small birds for:
 * airplanes, kites) of its size, is one of them. A bird banking with its wings raised has a
 * standing figure's outline, and a flock shows every pose at once; people and cars do not fly
 * among birds of their size. The others are counted once each, whatever views saw them, and
 * never the box itself (a bird the detector calls both) or one where it was.
 */
function dropOnesOfAFlock(frames: FrameFindings[], judge: Judge, aspect: number): FrameFindings[] {
  return frames.map((frame) => withoutDetections(frame, (d) => judge.intruders.includes(d.label) && flockOf(d.box, frame.t, frames, aspect).length >= FLOCK_OTHERS));
}

/** Two boxes of one thing: they overlap by a third, or one lies in the other. */
const sameThing = (a: Box, b: Box) => iou(a, b) > 0.3 || covered(a, b) > 0.8 || covered(b, a) > 0.8;

/**
 * The things that fly (FrameFindings.flyers) boxed within FLOCK_MOMENT_S of `t`, of the size of
 * `box` (the longer sides in pixels within KINDRED_SIZE) and not where it is, each counted once
 * whatever views saw it.
 */
function flockOf(box: Box, t: number, frames: FrameFindings[], aspect: number): Array<{ box: Box; t: number }> {
  const side = (b: Box) => Math.max(b.w * aspect, b.h);
  const kindred = frames.filter((f) => Math.abs(f.t - t) <= FLOCK_MOMENT_S).flatMap((f) => (f.flyers ?? []).map((b) => ({ box: b, t: f.t })))
    .filter(({ box: b }) => iou(b, box) === 0 && Math.max(side(b), side(box)) <= KINDRED_SIZE * Math.min(side(b), side(box)));
  return kindred.filter((k, i) => !kindred.slice(0, i).some((o) => sameThing(o.box, k.box)));
}

/**
 * Whether one of the detector's flags is a bird of a flock: its "kite" is also what it takes a
 * small bird for. A flock circling in rain or snow moves the cells it circles over in most
 * samples, which reads as a place that flutters (the made flock in made rain came out `flag`
 * 0.51: a bird boxed as a kite there at 0.34). A flag boxed with two or more things that fly of
 * its size around it is one of them, unless those stay where they are: flags in a row on their
 * poles are boxed at the same places at other moments, birds go.
 */
function birdOfAFlock(flag: Sighting, t: number, frames: FrameFindings[], aspect: number): boolean {
  // boxed at the same place at another moment: it stays there
  const staying = (other: { box: Box; t: number }) =>
    frames.some((f) => Math.abs(f.t - other.t) > SAME_MOMENT_S && [...(f.flyers ?? []), ...(f.flags ?? []).map((s) => s.box)].some((o) => sameThing(o, other.box)));
  return flockOf(flag.box, t, frames, aspect).filter((b) => !staying(b)).length >= FLOCK_OTHERS;
}

/**
 * Second opinion on unsure sightings in foliage: a person or vehicle under its threshold whose
 * box lies mostly on cells that sway in place (foliage.ts) is leaves the detector half took for
 * one, unless a look at the same moment framed closer saw it there too (doubts: a far walker in
 * front of swaying trees is as unsure to the detector as leaves are, and closer he is a walker
 * again, where leaves stay leaves). A sure sighting always stands.
 */
function dropUnsureOnFoliage(frame: FrameFindings, frames: FrameFindings[], swaying: Uint8Array | undefined, judge: Judge, aspect: number): FrameFindings {
  if (!swaying) return frame;
  return withoutDetections(frame, (d) => onFoliage(d, swaying, judge) && !seenAgainThen(d, frame, frames, judge, aspect));
}

/** A box lies on foliage when this share of its cells sways in place. */
const ON_LEAVES = 0.5;

/** An unsure person, vehicle or animal on cells that sway in place. */
const onFoliage = (d: Detection, swaying: Uint8Array, judge: Judge) =>
  SWAY_EXPLAINED.includes(d.label) && d.score < judge.threshold(d.label) && swayingShare(d.box, swaying, MOTION_GRID) >= ON_LEAVES;

/**
 * Second opinion on animals in foliage: leaves and branches sway about their place, and what the
 * detector reads into them (a house among swaying trees, a knot of boughs) stays where it is,
 * read in one pose of the leaves and not in the next. An animal boxed on cells that sway in
 * place, seen only in one place (the clip's animal sightings all in one place with the surest:
 * onePlace), that a look framing that place at another moment did not see there, is the
 * foliage's. A creature goes from place to place, and is boxed at each (the small movers follow
 * the small ones, creaturesWhereNoOne); one resting in view stays, and the looks that frame it
 * see it. Persons and vehicles are left to the margins and the risk's rules: a person standing
 * still by a hedge is a danger the detector half sees, not one to drop.
 */
function dropAnimalsReadIntoLeaves(frames: FrameFindings[], swaying: Uint8Array | undefined): FrameFindings[] {
  if (!swaying) return frames;
  const animals = frames.flatMap((f) => f.detections.filter((d) => d.label === 'animal').map((d) => ({ t: f.t, detection: d })));
  if (animals.length === 0) return frames;
  const place = best(animals).detection.box;
  const staysOnLeaves = animals.every(({ detection }) => onePlace(detection.box, place) && swayingShare(detection.box, swaying, MOTION_GRID) >= ON_LEAVES);
  const seenThen = (t: number) => animals.some((a) => a.t === t);
  const missed = frames.some((f) => !seenThen(f.t) && framedPlace(f, place));
  return staysOnLeaves && missed ? frames.map((f) => withoutDetections(f, (d) => d.label === 'animal')) : frames;
}

/**
 * Two looks frame the same moment apart when the area of one framing is at most this share of
 * the other's: a closer look's region is half as wide, a quarter of the area. The same framing
 * again (a look at the frame with the drops taken out, then as it is) sees the same leaves the
 * same way.
 */
const FRAMED_APART = 0.5;
const framingArea = (f: FrameFindings) => (f.framing ? area(f.framing) : 1);

/** A boxed sighting, as oneBody takes it. */
const sightingAt = (frame: FrameFindings, d: Detection) => ({ t: frame.t, sample: frame.sample, box: d.box });

/** A look at the same moment framed apart from this one (one of them closer) saw the same label on the same body, both at confirm_score or more. */
function seenAgainThen(d: Detection, frame: FrameFindings, frames: FrameFindings[], judge: Judge, aspect: number): boolean {
  if (d.score < judge.unsure) return false;
  const here = sightingAt(frame, d);
  const apart = (other: FrameFindings) =>
    Math.min(framingArea(other), framingArea(frame)) <= FRAMED_APART * Math.max(framingArea(other), framingArea(frame));
  return frames.some((other) => other !== frame && Math.abs(other.t - frame.t) < 1e-6 && apart(other) &&
    other.detections.some((o) => o.label === d.label && o.score >= judge.unsure && oneBody(here, sightingAt(other, o), aspect)));
}

/**
 * A box over this share of its look's framing fills it. A crop all one thing leaves the detector
 * nothing around it to read it by: at the scale of the crop a texture's pattern (the dark rim of
 * an arena in the grain of a night view, a curve of wall and shadow) passes for a body as large
 * as the crop, and the same pattern in the whole view is not one. A real body that large in a
 * crop is plain in the whole frame too, with what surrounds it. A whole frame's box is a
 * close-up's (dropCloseUpPersons).
 */
const FILLS_FRAMING = 0.5;
/** A framing holds a box when this share of the box lies inside it. */
const HOLDS = 0.9;
/** A look framed `box`'s place: the whole frame, or a crop holding the box (HOLDS). */
const framedPlace = (f: FrameFindings, box: Box) => !f.framing || covered(box, f.framing) >= HOLDS;

/**
 * A box moves as a block where this share of its cells moves (a vehicle's MOVING_SHARE): a body
 * going through the view. A tenth (a person's limbs) is as much a small thing running inside a
 * pattern's box.
 */
const BLOCK_SHARE = MOVING_SHARE.vehicule!;

/**
 * A box moves as a block (BLOCK_SHARE) with its moving cells over two columns and two rows of the
 * grid at least: a body that fills a crop is an area of cells, and moving it moves an area (a car
 * driving through an overhead view moves three columns and as many rows of its box). A thing
 * smaller than a cell running inside the box moves a line of cells along its way: at night, where
 * a dim view's changes count at its light (motion.ts, movedDelta), a mouse running by the rim of
 * an arena moved one column of a 3x2 box the detector framed on the rim, a third of its cells.
 */
export function movesAsABlock(box: Box, sample: MotionSample): boolean {
  // a look along a small mover's path has the whole path marked standing out (seenMoving): what
  // moved at its moment is what changed then
  const moved = sample.path ? sample.cells : movedCells(sample);
  const under = cellsInside(box);
  const moving = under.filter((c) => moved[c.y * MOTION_GRID.x + c.x]);
  return moving.length >= BLOCK_SHARE * under.length && new Set(moving.map((c) => c.x)).size >= 2 && new Set(moving.map((c) => c.y)).size >= 2;
}

/**
 * A person or vehicle boxed over FILLS_FRAMING of its look's crop, its box not moving as a block
 * (movesAsABlock): a car driving through an overhead view fills its crop and moves as a block, and
 * the detector, which knows cars from above only large in its view, may lose it framed wider.
 */
const fillsItsFraming = (d: Detection, frame: FrameFindings, judge: Judge) =>
  judge.intruders.includes(d.label) && frame.framing !== undefined && area(d.box) >= FILLS_FRAMING * area(frame.framing) &&
  !movesAsABlock(d.box, frame.sample);

/** The sightings of `frames` that fill their framing (of `label` only, where it is given). */
const fillingSightings = (frames: FrameFindings[], judge: Judge, label?: ServiceLabel) =>
  frames.flatMap((f) => f.detections.filter((d) => (!label || d.label === label) && fillsItsFraming(d, f, judge)).map((d) => ({ f, d })));

/** `other` is a look framed wider than `frame` (apart: FRAMED_APART), holding `box`. */
const framedWider = (box: Box, frame: FrameFindings, other: FrameFindings) =>
  framingArea(frame) <= FRAMED_APART * framingArea(other) && framedPlace(other, box);

/**
 * A look framed wider than `frame` saw the same label on one body with `d`: at its moment, at its
 * model's min_score; at another, at confirm_score. A body the wider look missed at the crop's
 * moment is believed from another moment only where it was sure there: two unsure sightings
 * seconds apart, where one body could have gone anywhere, are two doubts (foundRule).
 */
function seenFramedWider(d: Detection, frame: FrameFindings, frames: FrameFindings[], judge: Judge, aspect: number): boolean {
  const least = (other: FrameFindings) => (Math.abs(other.t - frame.t) < 1e-6 ? 0 : judge.unsure);
  return frames.some((other) => framedWider(d.box, frame, other) &&
    other.detections.some((o) => o.label === d.label && o.score >= least(other) && oneBody(sightingAt(frame, d), sightingAt(other, o), aspect)));
}

/** A look framed wider than `frame` was taken at its moment, holding `d`. */
const lookedAtWider = (d: Detection, frame: FrameFindings, frames: FrameFindings[]) =>
  frames.some((other) => Math.abs(other.t - frame.t) < 1e-6 && framedWider(d.box, frame, other));

/**
 * Second opinion on what fills its framing: a person or vehicle boxed over half of its look's
 * crop, its box not moving as a block, is looked at again as a whole frame (framingDoubts).
 * Where that look, at its moment, saw no such body on one body with it, and no look framed wider
 * saw it sure at another (seenFramedWider), it is the crop's pattern; so is every sighting of the
 * same label that filled its framing in one place with it (onePlace: a pattern stays where it is,
 * and its box is as large as the crop it fills, a closer look's framed larger about it too), and
 * that no look framed wider saw either. Unlooked at, a sighting stands.
 */
function dropWhatFillsItsFraming(frames: FrameFindings[], judge: Judge, aspect: number): FrameFindings[] {
  const fillers = fillingSightings(frames, judge);
  // What fills its framing vouches for nothing, framed wider or not: a pattern fills a larger
  // crop about it as well (a crop on an arena's rim read as a person 0.58 held a smaller crop's
  // 0.42 there; a sunflower's head under an illuminator, a person 0.5 in a crop, was 0.5 again
  // in one framed twice as large about it).
  const vouching = frames.map((f) => withoutDetections(f, (d) => fillers.some((x) => x.f === f && x.d === d)));
  const unseen = fillers.filter(({ f, d }) => !seenFramedWider(d, f, vouching, judge, aspect));
  const contradicted = unseen.filter(({ f, d }) => lookedAtWider(d, f, frames));
  if (contradicted.length === 0) return frames;
  const pattern = (frame: FrameFindings) => (d: Detection) => unseen.some((u) => u.f === frame && u.d === d) &&
    contradicted.some((c) => c.d.label === d.label && onePlace(inViewOf(c.d.box, c.f.sample, frame.sample), d.box));
  return frames.map((f) => withoutDetections(f, pattern(f)));
}

/** What rain's streaks are checked for: what would raise a risk, or name a creature that is not there. */
const streakLabels = (judge: Judge): ServiceLabel[] => [...new Set([...judge.intruders, 'animal' as const])];

/**
 * A sighting that can weigh in what is found (foundRule): a person or vehicle from confirm_score
 * up (two such agree across frames), anything else at its threshold. Over a belt of produce in
 * heavy rain at night, the classifier read the streaks as a freight car's ribs at 0.36, 0.37 and
 * 0.5: under the threshold each, agreed together.
 */
const weighs = (d: Detection, judge: Judge) => d.score >= (judge.intruders.includes(d.label) ? judge.unsure : judge.threshold(d.label));

/** A frame as it is: neither derained nor opened (what streaks can be in). */
const asItIs = (f: FrameFindings) => f.derained === undefined && !f.opened;

/**
 * A sighting of `label` in `f` that the opened look of its moment vouches for: in a frame as it
 * is, any of streakLabels; in a frame with the drops taken out over time, a creature too. Taking
 * each pixel at its darkest (or brightest) over a fifth of a second leaves a ghost of what moved
 * or slid there: over a room panned slowly in a downpour and sent at a low bitrate, a table's
 * foot came out "animal" 0.5 (opened, nothing). A person or vehicle seen so is not asked: heavy
 * rain at night hides a walker from every frame as it is, opened or not.
 */
const vouchedByOpened = (f: FrameFindings, label: ServiceLabel) => !f.opened && (asItIs(f) || label === 'animal');

/** `look` took `frame`'s moment and framing again. */
const sameView = (look: FrameFindings, frame: FrameFindings) => Math.abs(look.t - frame.t) < 1e-6 &&
  (look.framing === undefined ? frame.framing === undefined : frame.framing !== undefined && covered(look.framing, frame.framing) >= HOLDS && covered(frame.framing, look.framing) >= HOLDS);

/**
 * The opened look of `frame`'s moment and framing holds `d`: the same label at the same place, at
 * confirm_score or more; a person or vehicle at any score its model kept. Opening thins a far
 * walker's limbs too, and a risk is dropped only where the opened look sees no such body there.
 */
const openedHolds = (d: Detection, opened: FrameFindings, judge: Judge, aspect: number) => {
  const least = judge.intruders.includes(d.label) ? 0 : judge.unsure;
  return opened.detections.some((o) => o.label === d.label && o.score >= least && samePlace(o.box, d.box, aspect));
};

/**
 * Second opinion in rain: the drops' streaks over a texture make shapes (over the produce on a
 * belt, a bird 0.66; over a wall, a figure). A sighting in a frame as it is that weighs in what is
 * found, of a label that would raise a risk or name a creature (or a creature's with the drops
 * taken out: vouchedByOpened), whose moment was looked at again the same way with the thin
 * streaks opened out of it (pixel-median.ts, streaksOpened: a body is wider than a streak, and
 * one frame alone is not smeared by the mover's own motion) and is not held there, was the
 * streaks', unless it went somewhere (wentOnAsItIs). The opened looks themselves add nothing:
 * they only vouch.
 */
function dropWhatStreaksMade(frames: FrameFindings[], judge: Judge, aspect: number): FrameFindings[] {
  const opened = frames.filter((f) => f.opened);
  if (opened.length === 0) return frames;
  const labels = streakLabels(judge);
  const refuted = (d: Detection, frame: FrameFindings) => opened.some((o) => sameView(o, frame) && !openedHolds(d, o, judge, aspect));
  const streakMade = (frame: FrameFindings) => (d: Detection) => labels.includes(d.label) && vouchedByOpened(frame, d.label) && weighs(d, judge) &&
    refuted(d, frame) && !wentOnAsItIs(d, frame, frames, judge, aspect, refuted);
  return frames.filter((f) => !f.opened).map((f) => withoutDetections(f, streakMade(f)));
}

/**
 * A sighting seen again in another frame as it is, by a sighting weighing as much that its own
 * opened look did not refute, at another place where one body could have gone in the time
 * between (oneBody, not samePlace). The drops' streaks are a texture that stays where it is: what
 * they make over a belt of produce (a freight car's ribs) they make again in place, while a body
 * they cross goes its way. Opening thins a car seen from above in infrared, its pale roof
 * crossed by the drops' streaks, as it thins a far walker's limbs: the overhead lot at night in
 * a drizzle lit by the illuminator lost its car driving up the lot so (0.58, 0.58, 0.66 as the
 * frames are), and the small movers' creature took its place, `animal`.
 */
function wentOnAsItIs(d: Detection, frame: FrameFindings, frames: FrameFindings[], judge: Judge, aspect: number, refuted: (d: Detection, f: FrameFindings) => boolean): boolean {
  const here = { t: frame.t, sample: frame.sample, box: d.box };
  return frames.some((f) => asItIs(f) && Math.abs(f.t - frame.t) > 1e-6 && f.detections.some((o) => {
    const there = { t: f.t, sample: f.sample, box: o.box };
    return o.label === d.label && weighs(o, judge) && !refuted(o, f) && oneBody(here, there, aspect) && !samePlace(inViewOf(d.box, frame.sample, f.sample), o.box, aspect);
  }));
}

/**
 * Where to look again with the streaks opened out (dropWhatStreaksMade), in rain: per label of
 * streakLabels seen where an opened look vouches (vouchedByOpened) and weighing in what is found
 * (weighs), the surest such sighting whose moment was not looked at so; none where an opened
 * look already held the label (the surest held, the rest are the same thing seen again).
 */
export function streakDoubts(found: FrameFindings[], pattern: MotionPattern, judge: Judge): Doubt[] {
  if (!rainSeen(pattern, judge)) return [];
  const aspect = pattern.aspect ?? 1;
  const opened = found.filter((f) => f.opened);
  const frames = secondOpinions(found, pattern, judge);
  return streakLabels(judge).flatMap((label) => {
    const seen = frames.filter((f) => vouchedByOpened(f, label)).flatMap((f) => f.detections.filter((d) => d.label === label && weighs(d, judge)).map((d) => ({ f, d })));
    if (seen.some(({ f, d }) => opened.some((o) => sameView(o, f) && openedHolds(d, o, judge, aspect)))) return [];
    const unlooked = seen.filter(({ f }) => !opened.some((o) => sameView(o, f)));
    if (unlooked.length === 0) return [];
    const { f, d } = unlooked.reduce((a, b) => (b.d.score > a.d.score ? b : a));
    return [{ label, t: f.t, box: d.box, ...(f.framing ? { framing: f.framing } : {}) }];
  });
}

/**
 * Where to look as a whole frame (dropWhatFillsItsFraming): per intruder label found only by what
 * filled its framing (without those sightings it would not be found), the surest of them not yet
 * looked at wider, in a crop of at most half the frame (the whole frame is then framed apart).
 * Where the label is found without them, or not at all, nothing more runs.
 */
export function framingDoubts(found: FrameFindings[], pattern: MotionPattern, judge: Judge): Doubt[] {
  const frames = secondOpinions(found, pattern, judge);
  const aspect = pattern.aspect ?? 1;
  const counts = (fs: FrameFindings[], label: ServiceLabel) => {
    const isFound = foundRule(fs, judge, aspect);
    return fs.some((f) => isFound(label, f.scores[label] ?? 0));
  };
  return judge.intruders.flatMap((label) => {
    const filling = fillingSightings(frames, judge, label);
    const without = frames.map((f) => withoutDetections(f, (d) => filling.some((s) => s.f === f && s.d === d)));
    if (filling.length === 0 || !counts(frames, label) || counts(without, label)) return [];
    const unlooked = filling.filter(({ f, d }) => area(f.framing!) <= FRAMED_APART && !lookedAtWider(d, f, frames));
    if (unlooked.length === 0) return [];
    const { f, d } = unlooked.reduce((a, b) => (b.d.score > a.d.score ? b : a));
    return [{ label, t: f.t, box: d.box }];
  });
}

/** A bird crossing: the detector boxed a thing that flies on the traveller's path in this many samples while it went. */
const FLYING_SAMPLES = 2;

/** The samples in which the detector boxed a thing that flies mostly on the track's path, while the track went there. */
function flyingOnPath(track: MoverTrack, frames: FrameFindings[]): number {
  const along = frames.filter((f) => f.t >= track.from - SAME_MOMENT_S && f.t <= track.to + SAME_MOMENT_S);
  return new Set(along.filter((f) => (f.flyers ?? []).some((b) => covered(b, track.box) >= 0.5)).map((f) => f.t)).size;
}

/**
 * Small creatures: where no person or vehicle was found, a small thing that moved through the
 * view as creatures do (small-movers.ts: a spider on a wall, a mouse, birds, an insect) is an
 * animal, seen where it went; and so is a traveller (a small thing going its way alone, on a
 * steady course) that the detector boxed as a thing that flies on its path in two samples: a
 * bird crossing the view flies straight, as a far walker walks, and the detector tells them
 * apart. Not outside the camera's zones, and not where a mask hides it.
 */
function smallCreatures(movers: SmallMovers, frames: FrameFindings[], rules?: CameraRules): Detection[] {
  const birds = movers.travellers.filter((t) => flyingOnPath(t, frames) >= FLYING_SAMPLES);
  return [
    ...movers.creatures.map((c) => ({ label: 'animal' as const, score: movers.score, box: c.box })),
    ...birds.map((b) => ({ label: 'animal' as const, score: followedScore(b.seconds), box: b.box })),
  ].filter((c) => inZone(c.box, rules));
}

/** A keyframe in the middle of each creature's track (a bird crossing's too), where no frame the networks saw shows it. */
function creatureKeyframes(tracks: MoverTrack[], creatures: Detection[], keyframes: KeyFrame[]): KeyFrame[] {
  return tracks.flatMap((track) => {
    const seen = creatures.find((c) => c.box === track.box);
    const t = round((track.from + track.to) / 2);
    if (!seen || keyframes.some((k) => k.t >= track.from && k.t <= track.to && k.detections.some((d) => d.label === 'animal'))) return [];
    return [{ t, score: round(seen.score), detections: [{ ...seen, score: round(seen.score) }] }];
  });
}

/** What every step reads: the pack's thresholds and the camera's rules. */
export interface Judge {
  rules?: CameraRules;
  threshold: (label: ServiceLabel) => number;
  /** risk.confirm_score: an unsure sighting, which agreement across frames can confirm */
  unsure: number;
  /** the labels that make an intrusion: the camera's, else the pack's */
  intruders: ServiceLabel[];
  /** how far apart the pack's quantized scores fall (its models' largest score_step): one step of noise */
  step: number;
}

/** The judge of a pack and a camera's rules. */
export function judgeOf(manifest: Manifest, rules?: CameraRules): Judge {
  return {
    rules,
    threshold: (label) => manifest.thresholds[label] ?? manifest.default_threshold,
    unsure: manifest.risk.confirm_score,
    intruders: rules?.intrusionLabels ?? manifest.risk.intrusion_labels,
    step: Math.max(0, ...manifest.models.map((m) => m.score_step)),
  };
}

/**
 * What a look at frames of heavy rain or snow as they are counts for: a person or vehicle the
 * detector is sure of. It looks for a walker near the camera, whom the frames with the drops
 * taken out over a fifth of a second leave a ghost; among the drops the detector half-sees
 * things in the streaks and flakes (a mouse under heavy snow, a "person" at 0.42 twice), so
 * what it is unsure of there, and every other label, is noise. The look keeps its framing: the
 * streaks' second opinion (streakDoubts) looks at the same moment framed the same.
 */
export function sureIntruders(frame: FrameFindings, judge: Judge): FrameFindings {
  const sure = (label: ServiceLabel, score: number) => judge.intruders.includes(label) && score >= judge.threshold(label);
  const scores: Scores = {};
  for (const [label, score] of Object.entries(frame.scores) as Array<[ServiceLabel, number]>) if (sure(label, score)) scores[label] = score;
  return { t: frame.t, sample: frame.sample, scores, detections: frame.detections.filter((d) => sure(d.label, d.score)), ...(frame.framing ? { framing: frame.framing } : {}), ...(frame.dim ? { dim: true } : {}) };
}

/** A person or vehicle seen once, within a step of its threshold, or only unsure on swaying leaves: where to look again. */
export interface Doubt {
  label: ServiceLabel;
  /** the frame it was seen in */
  t: number;
  box: Box;
  /** how that frame's look was framed (streakDoubts: looked at again the same way); absent: the whole frame, or another framing */
  framing?: Box;
}

/** A label's surest detection in one look, and when. */
type Seen = { t: number; detection: Detection };

/** Per intruder label, its boxed sightings: the best of each frame that saw it. */
function sightingsOf(frames: FrameFindings[], label: ServiceLabel): Seen[] {
  return frames.flatMap((f) => {
    const seen = f.detections.filter((d) => d.label === label);
    return seen.length ? [{ t: f.t, detection: seen.reduce((a, b) => (b.score > a.score ? b : a)) }] : [];
  });
}

/**
 * Margins: a person or vehicle seen in one frame only, its score within one step of the
 * detector's quantized output from its threshold (either side), is decided by noise: one step
 * up or down flips it. Seen in several frames, each time unsure, the best of them short of
 * confirm_score by less than a step is too: the agreement across frames (foundRule) that a
 * car seen from above or a dark walker counts by lacks one step in one frame. The pipeline
 * looks at it again (another moment, closer, at its best sighting), and agreement across frames
 * decides. Clear of the threshold, or agreed, it stands. In rain or snow (the clip's `rain`
 * score at its threshold, or `wet`: looks at frames with the drops taken out) one frame's score
 * says less: the drops hide another part of a body in each frame, and taking them out leaves a
 * walker another ghost, so the score of one body moves by several steps from frame to frame
 * (and as much with its region framed a few pixels over). A lone sighting anywhere from
 * confirm_score up to the threshold is a doubt there too, and where no person was seen, an
 * animal boxed upright is one for a person (uprightBodiesInRain: the same flip of names; the
 * woman in the made downpour at two thirds of the bench's size was an animal 0.42 once, and a
 * person 0.73 a tenth of a second before). So is a person or vehicle seen only unsure on swaying
 * leaves (inFoliage), which the second opinions would otherwise drop unseen again, and, where
 * leaves sway, one seen unsure beside them. Each label's first doubt comes before any label's
 * second (firstsFirst).
 */
export function doubts(found: FrameFindings[], pattern: MotionPattern, judge: Judge, wet = false): Doubt[] {
  if (judge.step <= 0) return [];
  const frames = secondOpinions(found, pattern, judge);
  const within = (score: number, mark: number) => Math.abs(score - mark) < judge.step;
  const swaying = swayingCells(pattern.sway);
  // foliage witnessed (swaying cells side by side), not a lone cell: someone beside it is a margin too
  const leavesSway = swayFindings(pattern.sway, MOTION_GRID).foliage > 0;
  const rainy = wet || rainSeen(pattern, judge);
  return firstsFirst(judge.intruders.map((label): Doubt[] => {
    const sightings = sightingsOf(frames, label).filter((s) => counted(s.detection, judge));
    const leaves = (beside: Seen[] = []) => (swaying ? inFoliage(found, label, swaying, judge, beside) : []);
    if (sightings.length === 0 && rainy && label === 'person') {
      const bodies = uprightAnimalsSeen(found, judge, pattern.aspect ?? 1);
      const surest = bodies.length ? best(bodies) : undefined;
      if (surest) return [{ label, t: surest.t, box: surest.detection.box }];
    }
    if (sightings.length === 0) return leaves();
    const { t, detection } = best(sightings);
    const doubtful = sightings.length === 1
      ? within(detection.score, judge.threshold(label)) || (rainy && detection.score >= judge.unsure && detection.score < judge.threshold(label))
      : detection.score < judge.unsure && within(detection.score, judge.unsure);
    if (doubtful) return [{ label, t, box: detection.box }];
    // a sure sighting elsewhere decides the label whatever the leaves hold
    return detection.score < judge.threshold(label) ? leaves(leavesSway ? sightings.filter((s) => s.detection.score >= judge.unsure) : []) : [];
  }));
}

/**
 * The animals boxed upright from a step under confirm_score up, each look's surest: in rain,
 * persons the detector named otherwise (uprightBodiesInRain). A step under it, as every margin is
 * a step of the detector's output: the woman in the made downpour, panned, was an upright animal
 * 0.34 as she is, and a person 0.79 looked at again.
 */
function uprightAnimalsSeen(found: FrameFindings[], judge: Judge, aspect: number): Seen[] {
  const upright = found.map((f) => applyCameraRules(f, judge.rules)).map((f) => ({ ...f, detections: f.detections.filter((d) => uprightAnimal(d, aspect) && d.score >= judge.unsure - judge.step) }));
  return sightingsOf(upright, 'animal');
}

/** Each label's first doubt before any label's second: the looks again are few (a vehicle's margin is not crowded out by a person's second place). */
const firstsFirst = (lists: Doubt[][]): Doubt[] => {
  const out: Doubt[] = [];
  for (let rank = 0; lists.some((l) => l.length > rank); rank++) for (const l of lists) if (l[rank]) out.push(l[rank]!);
  return out;
};

/**
 * Places apart looked at closer where leaves sway, at most: leaves taken for a person at one
 * place do not take the only look from a far walker half seen at another.
 */
const FOLIAGE_PLACES = 2;

/**
 * A person or vehicle seen only unsure on swaying leaves (dropUnsureOnFoliage), at confirm_score
 * or more: leaves half taken for one, or someone far in front of them. Swaying leaves make such
 * sightings, and someone half seen beside them (`beside`: unsure sightings off the leaves, where
 * none reached the threshold and foliage was witnessed) is as unsure: the surest of them all,
 * at up to FOLIAGE_PLACES places apart, are looked at closer, and the looks decide as margins' do.
 */
function inFoliage(found: FrameFindings[], label: ServiceLabel, swaying: Uint8Array, judge: Judge, beside: Seen[]): Doubt[] {
  const unsure = sightingsOf(found.map((f) => applyCameraRules(f, judge.rules)), label)
    .filter((s) => s.detection.score >= judge.unsure && onFoliage(s.detection, swaying, judge) && counted(s.detection, judge)).concat(beside);
  const places: typeof unsure = [];
  for (const s of unsure.sort((a, b) => b.detection.score - a.detection.score)) {
    if (places.length < FOLIAGE_PLACES && !places.some((p) => iou(p.detection.box, s.detection.box) > 0)) places.push(s);
  }
  return places.map(({ t, detection }) => ({ label, t, box: detection.box }));
}

/** A sighting the camera's rules let count: its label allowed at its score, inside the zones. */
const counted = (d: Detection, judge: Judge) => labelAllowed(d.label, d.score, judge.rules) && inZone(d.box, judge.rules);

/** The surest of some sightings. */
const best = <S extends { detection: Detection }>(sightings: S[]): S => sightings.reduce((a, b) => (b.detection.score > a.detection.score ? b : a));

/** The higher of a label's scores is kept, rounded as results show it. */
function raise(scores: Scores, label: ServiceLabel, score: number): void {
  if (score > (scores[label] ?? 0)) scores[label] = round(score);
}

/**
 * The share of a box's cells where the motion pass saw anything at all: a change from the sample
 * before (the camera's own motion too), a difference from the background, a change in the scene.
 */
const touchedShare = (box: Box, sample: MotionSample): number =>
  boxShares(box, sample.cells.map((v, c) => v | sample.foreground[c]! | (sample.sceneCells?.[c] ?? 0))).inside;

/**
 * Second opinion on persons in the dark: in a dim view (a night, an infrared illuminator) a
 * person over whose box the motion pass saw nothing (under a tenth of its cells, as a person's
 * box that moves, MOVING_SHARE), while it saw no person in the dim at all, is the detector's
 * alone, and must clear its threshold by a step of the detector's scores, as a lone frame's
 * must (Margins). Where the gain is up and gamma has pressed the view's contrast into a few
 * levels, the detector reads bodies into textures at its threshold (a sunflower's head and
 * petals filling the view, swaying under an illuminator: a person 0.5 to 0.58 in every look,
 * nowhere the motion was); a worker standing still by a bush swaying at night is 0.66 to 0.88.
 * Where the motion saw a person (a seated one fidgeting, a face talking at a webcam), every
 * sighting stays.
 */
function dropUntouchedInTheDim(frames: FrameFindings[], judge: Judge): FrameFindings[] {
  const inTheDark = (f: FrameFindings, d: Detection) => f.dim === true && d.label === 'person';
  const touched = (f: FrameFindings, d: Detection) => touchedShare(d.box, f.sample) >= MOVING_SHARE.person!;
  if (frames.some((f) => f.detections.some((d) => inTheDark(f, d) && touched(f, d)))) return frames;
  const unsure = (d: Detection) => d.score < judge.threshold('person') + judge.step;
  return frames.map((f) => withoutDetections(f, (d) => inTheDark(f, d) && !touched(f, d) && unsure(d)));
}

/**
 * Step 1, second opinions on each frame: the camera's masks and label filters, close-ups of
 * animals taken for persons, animals around a person surer than them (a walker's trail in frames
 * with heavy rain taken out), upright animals on a person in rain, unsure persons and
 * vehicles on swaying leaves, animals read into swaying leaves, persons inside an animal seen at the same moment, persons and
 * vehicles among a flock, persons and vehicles that filled a crop and were not there framed wider,
 * persons in the dim over whom the motion saw nothing, unless sure by a step.
 */
export function secondOpinions(found: FrameFindings[], pattern: MotionPattern, judge: Judge): FrameFindings[] {
  const swaying = swayingCells(pattern.sway);
  const aspect = pattern.aspect ?? 1;
  const ruled = dropWhatStreaksMade(vehiclesFromAbove(found, aspect), judge, aspect).map((f) => dropCloseUpPersons(applyCameraRules(f, judge.rules)));
  const each = uprightBodiesInRain(dropAnimalsAroundPersons(ruled), judge, aspect, rainSeen(pattern, judge))
    .map((f, _, all) => dropUnsureOnFoliage(f, all, swaying, judge, aspect));
  return dropUntouchedInTheDim(dropWhatFillsItsFraming(dropOnesOfAFlock(dropPersonsInsideAnimals(dropAnimalsReadIntoLeaves(each, swaying), judge), judge, aspect), judge, aspect), judge);
}

/** The box of one cell of the motion pass's grid. */
const cellBox = (c: number): Box => ({ x: (c % MOTION_GRID.x) / MOTION_GRID.x, y: Math.floor(c / MOTION_GRID.x) / MOTION_GRID.y, w: 1 / MOTION_GRID.x, h: 1 / MOTION_GRID.y });

/**
 * Where a thing found in a frame was: its box, and the cells that stood out of the clip's
 * background in that frame's sample joined to it (the group of foreground cells its box's
 * centre cells are in). The detector boxes what it recognised, a walker's body; what moves with
 * it spreads past the box (a limb swinging, a second walker beside, a walker coming nearer),
 * and those cells, moved back and forth over the clip, passed for foliage beside the walker. A
 * bush swaying about its place stays in the background (each pixel's median keeps its middle
 * pose) and seldom stands out of it.
 */
function foundPlace(box: Box, sample: MotionSample): Box[] {
  const joined = cellGroups(sample.foreground, MOTION_GRID).filter((group) => group.some((c) => inside(cellCentre(c, MOTION_GRID), box)));
  return [box, ...joined.flat().map(cellBox)];
}

/**
 * The looks taken while the sway was read (its first SWAY_SECONDS): what they found there moved
 * the cells it stood on. One found only later, where the detector looked then and found no
 * one, moved none of them: a walker coming up to the camera past the trees half a minute in,
 * his box over the whole crown, leaves the crown's swaying of the first seconds foliage still.
 * Where it took no look then, nothing says who was there: every look counts.
 */
function whileSwayRead(frames: FrameFindings[]): FrameFindings[] {
  const then = frames.filter((f) => f.t <= SWAY_SECONDS);
  return then.length ? then : frames;
}

const WHOLE_VIEW: Box = { x: 0, y: 0, w: 1, h: 1 };

/**
 * The views (a region's crop, or the whole frame) where the classifier saw a spider's web: silk
 * strung before the lens or across the view, which the illuminator lights at night. It sways in
 * the wind as leaves do, in place and back and forth; there the sway is the web's.
 */
const webViews = (frames: FrameFindings[], judge: Judge): Box[] =>
  frames.filter((f) => (f.scores.web ?? 0) >= judge.threshold('web')).map((f) => f.framing ?? WHOLE_VIEW);

/** A box lying this much inside a place that flutters is of what flutters there: the detector's flag, a creature's path in a flag's place. */
const FLAG_OWN = 0.5;
/** A creature's box with this share of its cells where the motion pass saw only blips is of what blipped there (a clock's digits). */
const ON_BLIPS = 0.5;

/**
 * Step 2, the weather from the pixels and the motion: rain and snow; then foliage, wind and
 * flags from what sways in place on a still camera (foliage.ts; in rain or snow read with the
 * drops taken out), not where a person, vehicle or animal was found, and no plant where the
 * classifier saw a web. Answers where a flag was found fluttering: what moves there is the cloth.
 */
export function weather(scores: Scores, frames: FrameFindings[], pattern: MotionPattern, judge: Judge): { flagPlace?: Box } {
  raise(scores, 'rain', rainScore(pattern));
  const explained = whileSwayRead(frames).flatMap((f) => f.detections.filter((d) => SWAY_EXPLAINED.includes(d.label) && d.score >= judge.unsure).flatMap((d) => foundPlace(d.box, f.sample)));
  // the classifier's flag score wherever it looked; the detector's where it boxed the flag
  const flags = frames.flatMap((f) => (f.flags ?? []).filter((s) => !birdOfAFlock(s, f.t, frames, pattern.aspect ?? 1)));
  const flagAt = (place: Box) => Math.max(scores.flag ?? 0, ...flags.filter((s) => covered(s.box, place) >= FLAG_OWN).map((s) => s.score));
  const sway = swayScores(pattern.sway, MOTION_GRID, explained, flagAt, judge.threshold('flag'));
  // the wind moves a web as it moves leaves: where the classifier named a web, no plant sways
  const webs = webViews(frames, judge);
  const foliage = webs.length ? swayScores(pattern.sway, MOTION_GRID, [...explained, ...webs], flagAt, judge.threshold('flag')).plant : sway.plant;
  if (foliage > 0) raise(scores, 'plant', eitherOf(scores.plant ?? 0, foliage));
  raise(scores, 'wind', sway.wind);
  raise(scores, 'flag', sway.flag);
  return sway.flag >= judge.threshold('flag') && sway.flagPlace ? { flagPlace: sway.flagPlace } : {};
}

/**
 * One body goes at most this many times its box's longer side in a second: a runner about four
 * of his heights, a car in a street or a lot about as many of its lengths.
 */
const BODY_SIDES_PER_S = 6;

/**
 * Whether two boxed sightings could be one body's: at the same moment, in one place (onePlace: a
 * whole and its part); at two, the second's centre within reach of the first's, carried to the
 * second's view (a camera that moved), its size plus the way a runner or a car goes in the time
 * between. A reach of a box's side at no time between let a sunflower's head filling a crop under
 * an illuminator (a "person" 0.5) be vouched for by a "person" 0.34 the whole frame boxed over
 * the leaves below it.
 */
function oneBody(a: { t: number; sample: MotionSample; box: Box }, b: { t: number; sample: MotionSample; box: Box }, aspect: number): boolean {
  const carried = inViewOf(a.box, a.sample, b.sample);
  if (Math.abs(a.t - b.t) < 1e-6) return onePlace(carried, b.box);
  const side = Math.max(carried.w * aspect, carried.h, b.box.w * aspect, b.box.h);
  return centreDistance(carried, b.box, aspect) <= side * (1 + BODY_SIDES_PER_S * Math.abs(a.t - b.t));
}

/**
 * Step 3, what counts as found: a label at its threshold, or a person or vehicle seen in
 * several frames, each time unsure (a dark or distant walker, a car seen from above), one of
 * them at confirm_score: agreement across frames stands in for one sure frame. They agree where
 * one body could have been seen both times (oneBody): two unsure sightings further apart than
 * anyone goes in the time between (leaves taken for a person at one moment, a moth at another)
 * are two doubts, not one sure thing.
 */
export function foundRule(frames: FrameFindings[], judge: Judge, aspect = 1): (label: ServiceLabel, score: number) => boolean {
  const sightings = new Map(judge.intruders.map((label) => [label, sightingsOf(frames, label).map((s) => s.detection.score)]));
  const agreed = new Set(judge.intruders.filter((label) => {
    const seen = frames.flatMap((f) => f.detections.filter((d) => d.label === label).map((d) => ({ frame: f, t: f.t, sample: f.sample, box: d.box, score: d.score })));
    return seen.some((a) => a.score >= judge.unsure && seen.some((b) => b.frame !== a.frame && oneBody(a, b, aspect)));
  }));
  // Margins: a person or vehicle seen in one frame only must clear its threshold by a step; the
  // pipeline looked at it again (doubts), and a second sighting makes it agreed.
  const sure = (label: ServiceLabel) => judge.threshold(label) + (sightings.get(label)?.length === 1 ? judge.step : 0);
  return (label, score) =>
    labelAllowed(label, score, judge.rules) && (score >= sure(label) || (agreed.has(label) && score >= judge.unsure));
}

/**
 * Step 4, small creatures, where the networks found no person or vehicle: a small thing that
 * moved as creatures do, or that crossed the view flying, is an animal. Small movers are
 * followed only then, and only on a camera held still (decide hands them over where
 * stillBackground holds). Not inside the place of a flag found fluttering (`flagPlace`): its
 * folds, and flakes crossing them, are followed there as small things that turn and stop. Not,
 * where every change the motion pass saw was a blip (`blips`), on the cells that blipped: a
 * burned-in clock's digits, turning in place each second, are followed there as a small thing
 * that hops about.
 */
export function creaturesWhereNoOne(scores: Scores, frames: FrameFindings[], found: (label: ServiceLabel, score: number) => boolean, judge: Judge, movers?: () => SmallMovers, flagPlace?: Box, blips?: Uint8Array): Detection[] {
  const someone = (Object.keys(scores) as ServiceLabel[]).some((l) => judge.intruders.includes(l) && found(l, scores[l]!));
  const creatures = (movers && !someone ? smallCreatures(movers(), frames, judge.rules) : [])
    .filter((c) => (!flagPlace || covered(c.box, flagPlace) < FLAG_OWN) && (!blips || boxShares(c.box, blips).inside < ON_BLIPS));
  for (const c of creatures) raise(scores, 'animal', c.score);
  return creatures;
}

/** A person or vehicle counts as found in these frames (after the second opinions). */
export function someoneFound(found: FrameFindings[], pattern: MotionPattern, manifest: Manifest, rules?: CameraRules): boolean {
  const judge = judgeOf(manifest, rules);
  return intrudersFound(secondOpinions(found, pattern, judge), judge, pattern.aspect);
}

/** Whether the frames (past the second opinions) hold a person or vehicle found. */
function intrudersFound(frames: FrameFindings[], judge: Judge, aspect?: number): boolean {
  const isFound = foundRule(frames, judge, aspect);
  return frames.some((f) => judge.intruders.some((l) => isFound(l, f.scores[l] ?? 0)));
}

/**
 * A person or vehicle the detector saw (at its model's min_score, past the second opinions)
 * where none was found: an unsure sighting, which a look at another framing may settle.
 */
export function someoneUnsure(found: FrameFindings[], pattern: MotionPattern, manifest: Manifest, rules?: CameraRules): boolean {
  const judge = judgeOf(manifest, rules);
  const frames = secondOpinions(found, pattern, judge);
  return !intrudersFound(frames, judge, pattern.aspect) && frames.some((f) => f.detections.some((d) => judge.intruders.includes(d.label)));
}

/**
 * Small movers are followed against the clip's background, each pixel's median over its
 * samples. A camera that moved as a whole (panned, tilted, shaken: the sway's cameraStill) has
 * none: what they follow there are the scene's own edges sliding by (a panned empty room gave
 * two creatures). The networks still see animals, people and vehicles in such a view.
 */
function stillBackground(pattern: MotionPattern): boolean {
  return pattern.sway?.cameraStill !== false;
}

/**
 * Small movers the detectors look at closer (clip-classifier), creatures before they count as
 * animals, travellers on a steady course and faint movers: at night a far walker is a small
 * mover too, and often a faint one. The longest followed first, the faint ones last. None
 * where a person or vehicle was found (they are not followed then) or the camera moved
 * (stillBackground), and none outside the camera's zones.
 */
export function moversToCheck(found: FrameFindings[], pattern: MotionPattern, manifest: Manifest, rules: CameraRules | undefined, movers: () => SmallMovers): MoverTrack[] {
  if (!stillBackground(pattern) || someoneFound(found, pattern, manifest, rules)) return [];
  const { creatures, travellers, faint } = movers();
  // the longest followed first; the faint ones after all the others
  const longest = (tracks: MoverTrack[]) => [...tracks].sort((a, b) => b.sightings - a.sightings);
  return [...longest([...creatures, ...travellers]), ...longest(faint)].filter((c) => inZone(c.box, rules));
}

/**
 * Per intruder label, its best score at each moment the closer looks at a small mover saw (0
 * where none saw it then): two looks at one moment (the drops taken out two ways) are one pose.
 */
function scoresInLooks(looks: FrameFindings[], judge: Judge): Array<{ label: ServiceLabel; seen: number[] }> {
  const moments = [...new Set(looks.map((f) => f.t))];
  return judge.intruders.map((label) => ({
    label,
    seen: moments.map((t) => Math.max(0, ...looks.filter((f) => f.t === t).flatMap((f) => f.detections)
      .filter((d) => d.label === label && labelAllowed(label, d.score, judge.rules)).map((d) => d.score))),
  }));
}

/**
 * Closer looks at a small mover show a person or vehicle (a far walker at night) when they
 * agree on it, as frames do (foundRule): seen at two moments or more, at its threshold at one.
 * The labels they agree on; none leaves it a creature.
 */
export function closerLooksAgreeOn(looks: FrameFindings[], manifest: Manifest, rules?: CameraRules): ServiceLabel[] {
  const judge = judgeOf(manifest, rules);
  return scoresInLooks(looks, judge).filter(({ label, seen }) =>
    seen.filter((s) => s > 0).length >= AGREEING_FRAMES && Math.max(...seen) >= judge.threshold(label)).map(({ label }) => label);
}

/**
 * The looks at a small mover that agreed on what it is (closerLooksAgreeOn), with that alone:
 * they looked at one body, and what else they saw on it (the ghost of a walker's swinging
 * limbs, where drops were taken out over a fifth of a second, called an animal) is that body.
 */
export function agreedLooks(looks: FrameFindings[], agreed: ServiceLabel[]): FrameFindings[] {
  return looks.map((f) => withoutDetections(f, (d) => !agreed.includes(d.label)));
}

/**
 * The looks at a small mover saw a person or vehicle at one moment, and at no other: one
 * moment's pose and noise against another's (a far walker at night flickers between 0.4 and 0.9
 * from one tenth of a second to the next, and out of the detector's sight in between, more so
 * in rain). One more moment along the mover's path decides (in rain, the same moments with
 * the drops taken out over less time).
 */
export function closerLooksSplit(looks: FrameFindings[], manifest: Manifest, rules?: CameraRules): boolean {
  const judge = judgeOf(manifest, rules);
  return scoresInLooks(looks, judge).some(({ seen }) => seen.filter((s) => s > 0).length === 1);
}

/**
 * The looks at a small mover saw a person or vehicle at two moments or more, never at its
 * threshold, the best of them short of it by less than a step of the detector's output: one
 * step of noise from agreeing (closerLooksAgreeOn), as a far walker at night at a low bitrate
 * scores 0.5 at two moments and 0.79 at others. More moments along the path decide, as the
 * margins look again (doubts).
 */
export function closerLooksShort(looks: FrameFindings[], manifest: Manifest, rules?: CameraRules): boolean {
  const judge = judgeOf(manifest, rules);
  return judge.step > 0 && scoresInLooks(looks, judge).some(({ label, seen }) => {
    const best = Math.max(...seen);
    return seen.filter((s) => s > 0).length >= AGREEING_FRAMES && best < judge.threshold(label) && judge.threshold(label) - best < judge.step;
  });
}

/**
 * A small mover is the body a box holds when this share of its whole path lies about the box
 * (within it grown to twice its size about its centre, where one body's boxes jitter): more than
 * half of it, where a passer-by's path runs on past the box.
 */
const BODY_ABOUT = 0.5;
const about = (b: Box): Box => ({ x: b.x - b.w / 2, y: b.y - b.h / 2, w: 2 * b.w, h: 2 * b.h });
/**
 * ...and, dry, its path is the body's own way when it spans at least this share of the box's area: a
 * body that went its own length swept a place as large as itself (a far walker going away, his
 * box 0.015 by 0.06 of the view: a path 2.3 times its area), where a hand or a head moving about a
 * seated person sweeps a part of his box (the seated classroom: a tenth to a quarter of it; a
 * face talking at a webcam, its mouth and eyes: under a hundredth). In rain the drops cut a
 * walker into parts, his head and legs followed apart, each sweeping a part of his box.
 */
const BODY_PATH = 0.5;

/**
 * A small mover that went its own length or more was inside the box at time t (its course
 * within SAME_MOMENT_S of it): the body the detector boxed there went somewhere.
 */
export function onCourse(box: Box, t: number, movers: MoverTrack[]): boolean {
  return movers.some((m) => m.travel >= 1 && m.course.some((p) =>
    Math.abs(p.t - t) <= SAME_MOMENT_S && inside(p, box)));
}

/**
 * Step 5, the risk: intrusion for a person or vehicle found inside the camera's zones that did
 * not stay put and whose box moves where it is (in rain: more than the rain around it, or a
 * small mover went through it then; a person's, where the mover on it went its own way), or that
 * was found on the path a small mover went (looked at closer); danger for a person found who does
 * not move through the view; safe otherwise. Answers the intruder's score too. movers: the small
 * movers followed, or what follows them when first asked.
 */
export function riskOf(frames: FrameFindings[], found: (label: ServiceLabel, score: number) => boolean, rainy: boolean, judge: Judge, aspect = 1, movers: MoverTrack[] | (() => MoverTrack[]) = []): { risk: Risk; intrusion: number } {
  const { rules } = judge;
  // followed only when a box asks (small-movers.ts, at 192 px): most clips decide without them
  let tracks: MoverTrack[] | undefined;
  const followed = () => (tracks ??= typeof movers === 'function' ? movers() : movers);
  // In rain, the motion pass's grid flickers everywhere, and heavy rain at night leaves a walker
  // no solid cells of his own: the small movers, which follow him with the drops taken out at a
  // finer size, show where he went.
  const boxMoves = (d: Detection, frame: FrameFindings) =>
    rainy ? standsOut(d.box, frame.sample) >= 0.25 || onCourse(d.box, frame.t, followed()) : movingShare(d.box, frame.sample) >= (MOVING_SHARE[d.label] ?? 0.1);
  // Seen at the same place in frames a while apart, even unsure there: parked, seated, standing.
  // Present, not intruding. The same place in the scene: on a camera that moved, where the other
  // frame's box lies in this frame's view.
  const stayedPut = (d: Detection, frame: FrameFindings) => {
    const sightings = frames.flatMap((other) => Math.abs(other.t - frame.t) < STILL_APART_S ? []
      : other.detections.map((o) => ({ label: o.label, dt: Math.abs(other.t - frame.t), box: inViewOf(o.box, other.sample, frame.sample) }))
        .filter((o) => o.label === d.label && iou(o.box, d.box) > 0));
    const furthest = sightings.sort((a, b) => b.dt - a.dt)[0];
    return furthest !== undefined && samePlace(furthest.box, d.box, aspect);
  };
  // Found on the path of a small mover looked at closer: the small movers saw it go its own
  // length or more, at a finer size than the detector's boxes jitter by (a far walker going away
  // from the camera barely moves his box in a second). The path is where the mover's blob went,
  // the core of a body the detector boxes whole: a box on it overlaps it.
  const onPath = (d: Detection, sample: MotionSample) => sample.path !== undefined && covered(d.box, sample.path) > 0;
  // So too a person's box (in rain, any intruder's) on the course of a small mover that went its
  // own length there (onCourse), its whole path lying mostly about the box (BODY_ABOUT): that
  // body went somewhere, where the detector's boxes of a far walker going away jitter by more
  // than he moves. A mover whose path runs on past the box is someone passing by. Dry, the movers
  // follow a body whole, so its way is as large as half its box (BODY_PATH; in rain the drops cut
  // a walker into parts, followed apart), and only a person small enough for them (SMALL_SIDE) is
  // asked: a larger one going away grows or shrinks past SAME_SIZE. Dry, a vehicle's box is left
  // to its cells: people walk about a parked car.
  const followable = (d: Detection) => d.label === 'person' && Math.max(d.box.w * aspect, d.box.h) <= SMALL_SIDE * Math.min(1, aspect);
  const itsOwnWay = (m: MoverTrack, d: Detection) => covered(m.box, about(d.box)) >= BODY_ABOUT && (rainy || area(m.box) >= BODY_PATH * area(d.box));
  const wentOnThere = (d: Detection, t: number) => (rainy || followable(d)) && onCourse(d.box, t, followed().filter((m) => itsOwnWay(m, d)));
  let intrusion = 0;
  let stillPerson = false;
  for (const frame of frames) {
    for (const label of judge.intruders) {
      const score = frame.scores[label] ?? 0;
      if (!found(label, score)) continue;
      const seen = frame.detections.filter((d) => d.label === label && found(label, d.score));
      // Outside every zone of the camera (tested at the box's bottom-centre) it is neither an intrusion nor a still person.
      const boxes = seen.filter((d) => inZone(d.box, rules));
      if (seen.length && !boxes.length) continue;
      // a finding without a box is where its frame moved; with zones and no motion it is nowhere
      if (!seen.length && rules?.zones.length && !(frame.sample.region && inZone(frame.sample.region, rules))) continue;
      // A finding without a box (a whole-frame classification) counts when its frame moved, but
      // not in rain, where every frame does.
      const moving = boxes.length
        ? boxes.filter((d) => onPath(d, frame.sample) || (!stayedPut(d, frame) && boxMoves(d, frame)) || wentOnThere(d, frame.t))
        : !rainy && frame.sample.region !== undefined && inZone(frame.sample.region, rules) ? [{ score }] : [];
      for (const d of moving) intrusion = Math.max(intrusion, d.score);
      if (label === 'person' && moving.length === 0) stillPerson = true;
    }
  }
  // a person in view who does not move through it (seated, standing): a human should look
  return { risk: intrusion > 0 ? 'intrusion' : stillPerson ? 'danger' : 'safe', intrusion };
}

/** Step 6, the keyframes: each frame with the reported findings it holds, and where creatures went. */
function keyframesOf(frames: FrameFindings[], reported: Set<ServiceLabel>, found: (label: ServiceLabel, score: number) => boolean, judge: Judge, creatures: Detection[], movers?: () => SmallMovers): KeyFrame[] {
  const keyframes: KeyFrame[] = frames.map((f) => {
    const detections = f.detections.filter((d) => reported.has(d.label) && (found(d.label, d.score) || d.score >= judge.threshold(d.label) * 0.5));
    const score = Math.max(0, ...[...reported].map((l) => f.scores[l] ?? 0), f.sample.energy);
    return { t: f.t, score: round(score), detections: detections.map((d) => ({ ...d, score: round(d.score) })) };
  });
  if (reported.has('animal') && movers) keyframes.push(...creatureKeyframes([...movers().creatures, ...movers().travellers], creatures, keyframes));
  return keyframes.sort((a, b) => a.t - b.t);
}

/**
 * The decision, in the order of the README's rules ("Labels and risk"). rules: the camera's
 * masks, zones and label filters; movers: the small movers of the motion pass, followed only
 * when asked for.
 */
export function decide(found: FrameFindings[], pattern: MotionPattern, manifest: Manifest, rules?: CameraRules, movers?: () => SmallMovers): Decision {
  const judge = judgeOf(manifest, rules);
  const frames = secondOpinions(found, pattern, judge);
  const scores: Scores = {};
  for (const frame of frames) for (const [label, score] of Object.entries(frame.scores)) raise(scores, label as ServiceLabel, score);
  const { flagPlace } = weather(scores, frames, pattern, judge);
  const isFound = foundRule(frames, judge, pattern.aspect);
  const creatures = creaturesWhereNoOne(scores, frames, isFound, judge, stillBackground(pattern) ? movers : undefined, flagPlace, pattern.blips);
  const labels = (Object.keys(scores) as ServiceLabel[]).filter((l) => isFound(l, scores[l]!));
  const rainy = labels.includes('rain');
  const followed = movers ? () => movers().moved ?? [] : [];
  const { risk, intrusion } = riskOf(frames, isFound, rainy, judge, pattern.aspect, followed);
  if (intrusion > 0) {
    raise(scores, 'intrusion', intrusion);
    labels.push('intrusion');
  }
  // what changed only in blips (a burned-in clock's digits) moved no thing: nothing happened
  if (labels.length === 0 && pattern.blips) return { risk: 'safe', labels: ['NOTHING'], scores: { NOTHING: 1 }, keyframes: keyframesOf(frames, new Set(), isFound, judge, [], movers) };
  if (labels.length === 0) {
    labels.push('other'); // something moved, and nothing the pack knows explains it
    scores.other = round(Math.max(0.01, 1 - Math.max(0, ...Object.values(scores))));
  }
  return { risk, labels: labels.sort(), scores, keyframes: keyframesOf(frames, new Set(labels), isFound, judge, creatures, movers) };
}
