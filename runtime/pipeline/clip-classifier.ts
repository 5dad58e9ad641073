// One clip through the pipeline: the motion pass, the choice of frames, the
// networks on those frames (and on crops around small moving regions), then
// the decision. A clip without motion never reaches the networks.
import { setMaxListeners } from 'node:events';
import sharp from 'sharp';
import type { Analysis, Box, CameraRules, ClipInfo, Classifier, Detection, FrameCopy } from '../core/analysis.js';
import { CancelledError, ErrorCode, PipelineError } from '../core/errors.js';
import type { Manifest } from '../core/model-manifest.js';
import type { InterpreterPool } from '../inference/pool.js';
import { clipBudget, decodeCost, FrameBudget, framesAffordable } from './budget.js';
import { agreedLooks, closerLooksAgreeOn, closerLooksShort, closerLooksSplit, moversToCheck, decide, doubts, framingDoubts, judgeOf, movingShare, rainScore, seenMoving, snowing, someoneFound, someoneUnsure, streakDoubts, sureIntruders, type Doubt, type FrameFindings, type Judge } from './decide.js';
import { falseColour, toBrightness } from './false-colour.js';
import { dropsFlattened, dropWindow, lumaOf, streaksOpened, withoutDrops, type DropLight } from './pixel-median.js';
import { laidOnto, steadyPan } from './camera-path.js';
import type { MoverTrack } from './small-movers.js';
import { anotherMoment, chooseFrames, closerView, CLOSER_SIDE, naiveFrames, widerView, type ChosenFrame } from './frame-choice.js';
import { readSamples, scaledSize } from './frames.js';
import { analyseMotion, SAMPLE_FPS, type MotionAnalysis } from './motion.js';
import { covered, squareRegion, suppress } from './boxes.js';
import { DECODERS, type Scores, type Sighting } from './decoders.js';
import { asCameraShows } from './dim-view.js';
import { underexposed } from './light.js';
import type { LoadedModel } from './loaded-model.js';

export interface ClipClassifierOptions {
  manifest: Manifest;
  models: LoadedModel[];
  pool: InterpreterPool;
  backend: string;
  /** frames sent to the networks per clip, at most */
  maxFrames: number;
}

// Every frame is resized once and never again: libvips' operation cache would only hold memory.
sharp.cache(false);

/** A sure finding covering this share of the moving area explains the motion. */
const EXPLAINED = 0.5;

/**
 * A clip whose every sample at the networks' sizes takes at most this much memory has them kept
 * by the motion pass, so its chosen frames need no second decode: for a short, small clip that
 * ffmpeg (opening the file, decoding up to the last chosen frame: about 25 ms of CPU for a 1.2 s
 * 320x240 one) cost about what a classifier inference does.
 */
const KEEP_SAMPLES_BYTES = 16 * 1024 * 1024;

/**
 * The moments the first look decoded are kept for the looks after it (a margin's closer look is
 * at the same moment), while their frames take at most this much memory: two 1080p ones.
 */
const KEEP_DECODED_BYTES = 16 * 1024 * 1024;

/** Doubts looked at again per clip, at most (one per intruder label of the default pack). */
const MAX_LOOKS = 2;
/**
 * Rounds of whole-frame looks at what filled its crop, at most: one place, then another where
 * the label is still found only by such boxes (crops framed on a small thing as it runs about
 * frame the same texture from several sides).
 */
const WIDER_ROUNDS = 2;
/** Where a look again at a large thing goes, in samples from the doubt's frame: a few tenths of a second. */
const LOOK_OFFSETS = [3, -3, 2, -2, 4, -4, 1, -1];
/** Small movers looked at closer, at most: the longest followed (a far walker is followed the whole way). */
const MOVERS_LOOKED_AT = 2;
/** A closer look's region is at most this share of the side of the view that saw the doubt: else it is no closer. */
const CLOSER = 0.8;

/** Drops are thinner than this many px either side in a model's input: flattened before the view's shift is matched. */
const DROP_REACH_PX = 2;

/**
 * A far or middle drop's streak is 1 to 3 px wide across a frame 640 px wide, and as much wider
 * as the frame is: streaks are opened out within this many px either side per 640 px (at least one).
 */
const STREAK_REACH_PER_640_PX = 1;

/** Frames are decoded at this width at most: enough detail for crops. */
const DETAIL_WIDTH = 1280;

/** The size the clip's frames come out of the decoder at, before any scaling: its size shown, unless its pixels are not square. */
const decodedSize = (clip: ClipInfo) => clip.decoded ?? { width: clip.width, height: clip.height };
/**
 * The frame crops are cut from, in its pixels: regions are sized in them (a region is never
 * smaller than a network's input, or half of it for a closer look, so it is never enlarged more
 * than that), whatever the camera's resolution. Sized in the camera's pixels, a 1080p or 4K
 * camera's regions came out tighter around the same scene than a 720p one's.
 */
const detailOf = (clip: ClipInfo) => scaledSize(clip.width, clip.height, DETAIL_WIDTH);

/** The side in pixels of a view the networks ran on: a square region, or the whole frame (its longer side). */
const viewSide = (clip: ClipInfo, view: Box | undefined): number => (view ? view.w * clip.width : Math.max(clip.width, clip.height));

/** A model's input size as a key ("WxH"): models of one size share a decoded frame. */
const inputKey = (model: LoadedModel): string => `${model.input.shape[2]}x${model.input.shape[1]}`;

/** What a run of these models costs: their input pixels (what a CPU inference's time follows). */
const costOf = (models: LoadedModel[]): number => models.reduce((sum, m) => sum + m.input.shape[1]! * m.input.shape[2]!, 0);

/** One chosen sample: the detail frame (for crops) and the whole frame at each model input size (by inputKey). */
interface DecodedFrame {
  frame: Buffer;
  size: { width: number; height: number };
  choice: ChosenFrame;
  whole: Map<string, Buffer>;
  /** with the drops of rain or snow taken out (derained): true, over a fifth of a second either side; false, over the samples either side only */
  derained?: boolean;
  /** with the thin streaks of rain opened out of it (openedLooks) */
  opened?: boolean;
}

export class ClipClassifier implements Classifier {
  readonly model: string;
  readonly version: string;

  /** Per clip in progress (its motion analysis), the moments its first look decoded, by sample index. */
  private readonly decodedMoments = new WeakMap<MotionAnalysis, Map<number, DecodedFrame>>();

  constructor(private readonly options: ClipClassifierOptions) {
    this.model = options.manifest.name;
    this.version = options.manifest.version;
  }

  /** Regions around motion are at least a detector's input wide (else the smallest input). */
  private regionSide(): number {
    const sides = this.options.models.map((m) => ({ side: Math.min(m.input.shape[1]!, m.input.shape[2]!), detector: m.entry.task === 'detection' }));
    const detectors = sides.filter((s) => s.detector);
    return Math.min(...(detectors.length ? detectors : sides).map((s) => s.side));
  }

  async classify(clip: ClipInfo, signal: AbortSignal, rules?: CameraRules, copy?: FrameCopy): Promise<Analysis> {
    const started = performance.now();
    setMaxListeners(64, signal); // every queued inference of the clip listens for cancellation
    // The motion pass decodes every frame: the copy rides on it, and a small clip's samples are kept for the networks.
    const sizes = this.frameSizes(clip);
    const samplesBytes = (Math.ceil(clip.duration * SAMPLE_FPS) + 1) * sizes.reduce((sum, s) => sum + s.width * s.height * 3, 0);
    const keep = clip.duration > 0 && samplesBytes <= KEEP_SAMPLES_BYTES ? { sizes, source: decodedSize(clip), maxBytes: KEEP_SAMPLES_BYTES } : undefined;
    const motion = await analyseMotion(clip, signal, { masks: rules?.masks, copy, keep }).catch((err: unknown) => {
      if (err instanceof PipelineError || err instanceof CancelledError) throw err;
      throw new PipelineError(ErrorCode.DECODE_FAILED, `the clip could not be decoded: ${(err as Error).message}`);
    });
    try {
      return await this.lookAndDecide(clip, motion, started, signal, rules);
    } finally {
      motion.release(); // its frames serve the next clip's motion pass
    }
  }

  /** The rest of classify once the motion pass is done: the networks' looks and the decision. */
  private async lookAndDecide(clip: ClipInfo, motion: MotionAnalysis, started: number, signal: AbortSignal, rules?: CameraRules): Promise<Analysis> {
    const motionMs = performance.now() - started;
    // Never more than a pipeline that runs every model on one frame a second would spend (budget.ts).
    const { models } = this.options;
    const first = this.firstLookModels();
    const firstLook = costOf(first);
    const budgetAfter = (decode: number) => clipBudget(models.map((m) => costOf([m])), naiveFrames(clip.duration), decode);
    const total = budgetAfter(decodeCost({ ...decodedSize(clip), nframes: clip.nframes }));
    const max = Math.min(this.options.maxFrames, framesAffordable(total, firstLook));
    const chosen = chooseFrames(motion.samples, max, detailOf(clip), this.regionSide());
    // Where decoding the clip a second time is what leaves the other models no room (a large
    // clip: 1080p), they still look once, at the liveliest frame (budget.ts, FrameBudget).
    const othersCost = costOf(models.filter((m) => !first.includes(m)));
    const room = (budget: number) => new FrameBudget(budget, firstLook, chosen.length).take(othersCost);
    const starved = othersCost > 0 && !room(total) && room(budgetAfter(0));
    const assured = starved ? chosen.reduce<ChosenFrame | undefined>((best, c) => (!best || c.sample.energy > best.sample.energy ? c : best), undefined) : undefined;
    const base = { model: this.model, version: this.version, backend: this.options.backend };

    const frames: FrameFindings[] = [];
    const stats = { framesInferred: 0, decodeMs: 0, inferenceMs: 0, inferences: {} as Record<string, number> };
    const count = (r: { inferenceMs: number; inferences: number; byModel: Record<string, number> }) => {
      stats.inferenceMs += r.inferenceMs;
      stats.framesInferred += r.inferences;
      for (const [m, n] of Object.entries(r.byModel)) stats.inferences[m] = (stats.inferences[m] ?? 0) + n;
    };
    // In heavy rain (drops that all brighten, or all darken, what they cross: over a third of
    // the view a frame) and in snow (its flakes, bright blobs, hide patches of what they cross)
    // the first look, as every look after it, is at frames with the drops taken out: heavy rain
    // at night hides a walker from the detector in every frame as it is, and heavy snow a car
    // driving through the overhead lot. Lighter rain the detector sees through, and the median
    // that takes it out blurs the limbs of a walker near the camera.
    const judge = judgeOf(this.options.manifest, rules);
    const rainy = rainScore(motion.pattern) >= judge.threshold('rain');
    const light = rainy ? (snowing(motion.pattern) ? 'brighter' : motion.smallMovers().derainedAs) : undefined;
    const wet = light === 'brighter' || light === 'darker';
    if (motion.pattern.moving && chosen.length > 0) {
      const decodeStarted = performance.now();
      const pending: Array<Promise<void>> = [];
      let failure: unknown;
      const moments = new Map<number, DecodedFrame>();
      this.decodedMoments.set(motion, moments);
      let momentBytes = 0;
      const firstFrames = wet ? this.derained(clip, motion, chosen, signal) : motion.frames ? this.keptFrames(clip, motion.frames, chosen) : this.decodeChosen(clip, chosen, signal);
      for await (const decoded of firstFrames) {
        stats.decodeMs = performance.now() - decodeStarted; // until the last chosen frame arrived
        momentBytes += decoded.frame.length + [...decoded.whole.values()].reduce((sum, v) => sum + v.length, 0);
        // kept as decoded: derained frames are not what a later look takes the drops out of
        if (!wet && !motion.frames && momentBytes <= KEEP_DECODED_BYTES) moments.set(decoded.choice.index, decoded);
        if (failure) break;
        // Networks run while the next frame decodes; the pool queues what it cannot take yet.
        pending.push(this.inferFrame(decoded, new FrameBudget(total, firstLook, chosen.length, decoded.choice === assured), signal).then(
          (r) => {
            frames.push(r.findings);
            count(r);
          },
          (err: unknown) => {
            failure ??= err;
          },
        ));
      }
      await Promise.all(pending);
      if (failure) throw failure;
      if (frames.length === 0) throw new PipelineError(ErrorCode.DECODE_FAILED, 'no frame of the clip could be decoded');
      frames.sort((a, b) => a.t - b.t);
      // Margins: a person or vehicle seen once, within a step of its threshold (in rain or snow,
      // anywhere from confirm_score up to it, or an animal boxed upright), is looked at again.
      for (const look of await this.lookAgain(doubts(frames, motion.pattern, judge, wet), clip, motion, chosen, signal, wet, rainy)) {
        frames.push(look.findings);
        count(look);
      }
      // A person or vehicle boxed over half of a crop, and found only so: the same moment as a
      // whole frame, where a texture's pattern at the crop's scale is no longer a body (decide.ts,
      // dropWhatFillsItsFraming); then, where what is left is found only so too, another place.
      for (const look of await this.framedWhole(frames, judge, clip, motion, signal, wet)) {
        frames.push(look.findings);
        count(look);
      }
      // A lone frame is framed closer (frame-choice.ts). Where the detector saw a person or
      // vehicle there, unsure, and none was found, what the closer framing cut off, or enlarged
      // with it (the drops of a drizzle), may be what it lacked: the same moment, framed wider.
      const wider = chosen.length === 1 && someoneUnsure(frames, motion.pattern, this.options.manifest, rules)
        ? widerView(chosen[0]!, detailOf(clip), this.regionSide()) : undefined;
      for (const look of wider ? await this.inferLooks([wider], clip, motion, signal, wet) : []) {
        frames.push(look.findings);
        count(look);
      }
      // In lighter rain the first look saw the frames as they are; where it found no one, and
      // the small movers followed something going its way under the drops, it looks at the same
      // moments with the drops taken out (a far walker in a drizzle, too dim for the detector
      // under the drops). Rain over an empty scene is not looked at twice.
      const goingSomewhere = () => {
        const { creatures, travellers, faint } = motion.smallMovers();
        return creatures.length + travellers.length + faint.length > 0;
      };
      const dryAgain = rainy && !wet && !someoneFound(frames, motion.pattern, this.options.manifest, rules) && goingSomewhere();
      const dried: FrameFindings[] = [];
      for (const look of dryAgain ? await this.inferLooks(chosen, clip, motion, signal, true) : []) {
        frames.push(look.findings);
        dried.push(look.findings);
        count(look);
      }
      // What those looks saw unsure has its margins looked at again, as the first look's had.
      for (const look of dried.length ? await this.lookAgain(doubts(dried, motion.pattern, judge, true), clip, motion, chosen, signal, true, true) : []) {
        frames.push(look.findings);
        count(look);
      }
      // In heavy rain the first look saw the frames with the drops taken out over a fifth of a
      // second either side. A walker near the camera crosses his own width in that time, and his
      // darkest over it is a ghost (the detector called one a potted plant), while the drops,
      // thin against him, hide little of him. Where it found no one, it looks at the same moments
      // as they are, for a person or vehicle it is sure of (sureIntruders).
      const asTheyAre = wet && !someoneFound(frames, motion.pattern, this.options.manifest, rules);
      const asTheyWere: FrameFindings[] = [];
      for (const look of asTheyAre ? await this.inferLooks(chosen, clip, motion, signal, false) : []) {
        frames.push(sureIntruders(look.findings, judge));
        asTheyWere.push(look.findings);
        count(look);
      }
      // Where they found no one sure either, what they saw unsure has its margins looked at
      // again as they are, as the first look's had, and counts as they do: sure, or not at all.
      const unsureAsTheyWere = asTheyWere.length > 0 && !someoneFound(frames, motion.pattern, this.options.manifest, rules);
      for (const look of unsureAsTheyWere ? await this.lookAgain(doubts(asTheyWere, motion.pattern, judge), clip, motion, chosen, signal, false, true) : []) {
        frames.push(sureIntruders(look.findings, judge));
        count(look);
      }
      // In rain, the drops' streaks over a texture make shapes: each label that would raise a
      // risk or name a creature, seen in frames as they are, has its surest sighting looked at
      // again, the same moment and framing with the thin streaks opened out (decide.ts,
      // dropWhatStreaksMade). Over the produce on a belt in a downpour, a bird 0.66, 0.21 so.
      for (const look of rainy ? await this.openedLooks(frames, judge, clip, motion, signal) : []) {
        frames.push(look.findings);
        count(look);
      }
      // A lone look (a short clip affords one) that found nothing the pack knows: that one
      // frame's moment and noise decided the clip. The first-look models look at another moment,
      // framed as a longer clip's frames are (what the lone look's closer framing cut off in
      // view); where they still find nothing, at the lone look's closer scale too (a body small
      // in the view, too small for the detector at the wider one).
      const foundNothing = () => decide(frames, motion.pattern, this.options.manifest, rules).labels.some((l) => l === 'other' || l === 'NOTHING');
      const other = chosen.length === 1 && foundNothing() ? anotherMoment(motion.samples, [chosen[0]!.index], detailOf(clip), this.regionSide()) : undefined;
      for (const look of other ? await this.inferLooks([other], clip, motion, signal, wet) : []) {
        frames.push(look.findings);
        count(look);
      }
      const otherCloser = other && foundNothing() ? closerView(other, detailOf(clip), this.regionSide()) : undefined;
      const closerSaw: FrameFindings[] = [];
      for (const look of otherCloser ? await this.inferLooks([otherCloser], clip, motion, signal, wet) : []) {
        frames.push(look.findings);
        closerSaw.push(look.findings);
        count(look);
      }
      // What it saw unsure has its margins looked at again, as the first look's had.
      for (const look of closerSaw.length ? await this.lookAgain(doubts(closerSaw, motion.pattern, judge, wet), clip, motion, [otherCloser!], signal, wet, true) : []) {
        frames.push(look.findings);
        count(look);
      }
    }
    // Small movers, where no one was found: a closer look first, as a far walker at night is one too.
    const movers = moversToCheck(frames, motion.pattern, this.options.manifest, rules, motion.smallMovers);
    for (const looks of this.lookAtMovers(movers, clip, motion, chosen, rules, signal)) {
      const seen = await looks;
      seen.forEach(count);
      // each mover by its own looks: a moth beside a far walker does not outvote it; once one
      // shows a person or vehicle, the others (fainter, or followed for less long) are not looked at
      const agreed = closerLooksAgreeOn(seen.map((l) => l.findings), this.options.manifest, rules);
      if (agreed.length) {
        frames.push(...agreedLooks(seen.map((l) => l.findings), agreed));
        // framed on a small thing, a crop can be all one pattern, as the first looks' can
        for (const look of await this.framedWhole(frames, judge, clip, motion, signal, wet)) {
          frames.push(look.findings);
          count(look);
        }
        break;
      }
    }
    frames.sort((a, b) => a.t - b.t);
    const done = { motionMs, totalMs: performance.now() - started };

    if (frames.length === 0) {
      // Nothing moved on the motion pass's coarse grid, and no network saw anything. What is too
      // small for it may still be there, each seen at its own analysis's size: drops and flakes
      // (rain), a thing crawling (a spider on a wall).
      const still = decide([], motion.pattern, this.options.manifest, rules, motion.smallMovers);
      const t = Math.round((clip.duration / 2) * 1000) / 1000;
      const seen = !still.labels.includes('other');
      return {
        ...base,
        ...(seen ? still : { risk: 'safe', labels: ['NOTHING'], scores: { NOTHING: 1 } }),
        keyframes: seen && still.keyframes.length ? still.keyframes : [{ t, score: 0, detections: [] }],
        stats: { ...stats, ...done, ...(stats.framesInferred ? {} : { inferences: undefined }) },
      };
    }

    const decision = decide(frames, motion.pattern, this.options.manifest, rules, motion.smallMovers);
    return { ...base, ...decision, stats: { ...stats, ...done } };
  }

  /**
   * The detectors on small movers (moversToCheck), closer: the region around each of the first
   * ones' paths, at a fifth and four fifths of its way, and half way too when those two split
   * (closerLooksSplit) or fall a step short of agreeing (closerLooksShort; then at seven and
   * thirteen twentieths too, while they still fall short); the looks of each mover apart, one
   * mover at a time (the next is looked at only when asked for). A far walker at night is a few
   * pixels tall, as small as a bird: only the detector can tell them apart.
   */
  private *lookAtMovers(movers: MoverTrack[], clip: ClipInfo, motion: MotionAnalysis, chosen: ChosenFrame[], rules: CameraRules | undefined, signal: AbortSignal) {
    const last = motion.samples.length - 1;
    const closer = (track: MoverTrack) => squareRegion(track.box, detailOf(clip), CLOSER_SIDE * this.regionSide());
    // Not where a view the networks already ran held the mover's path, while it moved, at half the closer look's scale or more.
    const unseen = (track: MoverTrack) => !chosen.some((c) => c.sample.t >= track.from && c.sample.t <= track.to &&
      covered(track.box, c.crop ?? { x: 0, y: 0, w: 1, h: 1 }) >= 0.8 && viewSide(clip, c.crop) <= 2 * viewSide(clip, closer(track)));
    const looked = movers.filter(unseen).slice(0, MOVERS_LOOKED_AT); // in moversToCheck's order
    // in rain or snow, the looks are at frames with the drops taken out, as the movers were followed
    const derain = rainScore(motion.pattern) > 0;
    const { manifest } = this.options;
    for (const track of looked) {
      const crop = closer(track);
      const along = (at: number): ChosenFrame => {
        const index = Math.min(last, Math.max(0, Math.round((track.from + at * (track.to - track.from)) * SAMPLE_FPS)));
        // it moved there, seen at the small movers' finer size
        return { index, sample: seenMoving(motion.samples[index]!, track.box), crop, onMover: true };
      };
      const first = [along(0.2), along(0.8)];
      const half = along(0.5);
      // where the looks fall a step short of agreeing (closerLooksShort), the moments between them
      const between = [along(0.35), along(0.65)];
      // Drops that all brighten (or all darken) what they cross are taken out over a fifth of a
      // second either side; a walker near enough to be large in view swings his limbs across his
      // own width in that time, and his darkest over it is a ghost (the detector called one an
      // animal). The same moments with the drops taken out over the samples either side only are
      // looked at when the others still split.
      const light = derain ? motion.smallMovers().derainedAs : undefined;
      const shorter = light === 'brighter' || light === 'darker' ? [...first, half].map((c) => ({ ...c })) : [];
      // the later looks are decoded with the first (the decode passes them anyway), and run only when asked for
      yield this.decodeLooks([...first, half, ...shorter], clip, motion, signal, derain, new Set(shorter)).then(async (decoded) => {
        const at = (choices: ChosenFrame[]) => this.inferDecoded(decoded.filter((d) => choices.includes(d.choice)), signal);
        const split = (looks: Array<{ findings: FrameFindings }>) => closerLooksSplit(looks.map((l) => l.findings), manifest, rules);
        const short = (looks: Array<{ findings: FrameFindings }>) => closerLooksShort(looks.map((l) => l.findings), manifest, rules);
        let looks = await at(first);
        if (split(looks) || short(looks)) looks = [...looks, ...await at([half])];
        // seldom needed: decoded only then
        if (short(looks)) looks = [...looks, ...await this.inferLooks(between, clip, motion, signal, derain)];
        if (shorter.length && split(looks)) looks = [...looks, ...await at(shorter)];
        return looks;
      });
    }
  }

  /**
   * Looks again at each doubt (margins, decide.ts) with the detectors: closer, on the region
   * around it at a larger scale than any view that saw it, in the same frame (what walks out of
   * view is still there); a thing too large for a closer view is looked at in another sample a
   * few tenths of a second away, where its box still moves: another moment's noise and pose.
   * In heavy rain such a large thing is near, and the drops, thin against it, hide little of it,
   * while its darkest (or brightest) over a fifth of a second either side is a ghost of its
   * limbs: it is derained over the samples either side only (a woman walking up to the camera
   * in a made downpour at 1080p, a person 0.58 in the first look, was nothing in the next
   * sample derained as the first look was, and a person 0.84 derained so). `bothSides` (in rain):
   * such a thing is looked at on both sides of its moment, as the drops over it make one frame's
   * score noise (the woman in the made downpour at two thirds of the bench's size: an animal 0.42,
   * nothing 0.4 s later, a person 0.73 0.1 s before). The closer look in the same frame is
   * derained over the samples either side only too: at a larger scale, what moved over a fifth
   * of a second shows its ghost larger still (a mouse running about an arena at night under
   * heavy snow, its darkest over that time a person 0.42 in the whole frame and 0.73 closer;
   * closer over the samples either side, nothing, and the mouse came out an animal again).
   */
  private async lookAgain(doubts: Doubt[], clip: ClipInfo, motion: MotionAnalysis, chosen: ChosenFrame[], signal: AbortSignal, derain: boolean, bothSides = false) {
    const taken = new Set(chosen.map((c) => c.index));
    const shorter = new Set<ChosenFrame>();
    const looks = doubts.slice(0, MAX_LOOKS).flatMap((doubt): ChosenFrame[] => {
      const seenAt = chosen.find((c) => Math.abs(c.sample.t - doubt.t) < 1e-6)!;
      const closer = squareRegion(doubt.box, detailOf(clip), CLOSER_SIDE * this.regionSide());
      if (viewSide(clip, closer) <= CLOSER * viewSide(clip, seenAt.crop)) {
        const look = { index: seenAt.index, sample: seenAt.sample, crop: closer };
        shorter.add(look);
        return [look];
      }
      // of the samples `offsets` away, the one where its box moves most
      const movingMost = (offsets: number[]) => offsets.map((o) => seenAt.index + o).filter((i) => motion.samples[i] && !taken.has(i))
        .reduce<number>((a, i) => (a < 0 || movingShare(doubt.box, motion.samples[i]!) > movingShare(doubt.box, motion.samples[a]!) ? i : a), -1);
      const first = movingMost(LOOK_OFFSETS);
      if (first < 0) return [{ index: seenAt.index, sample: seenAt.sample, crop: closer }];
      const other = bothSides ? movingMost(LOOK_OFFSETS.filter((o) => Math.sign(o) !== Math.sign(first - seenAt.index))) : -1;
      return [first, other].filter((index) => index >= 0).map((index) => {
        const look = { index, sample: motion.samples[index]!, crop: squareRegion(doubt.box, detailOf(clip), this.regionSide()) };
        shorter.add(look);
        return look;
      });
    });
    return this.inferDecoded(await this.decodeLooks(looks, clip, motion, signal, derain, shorter), signal);
  }

  /**
   * Whole-frame looks at what filled its framing (decide.ts, framingDoubts): the surest such
   * sighting's moment as a whole frame, then, where the label is still found only by such
   * sightings, another place (WIDER_ROUNDS at most). The looks' findings, in the order taken.
   */
  private async framedWhole(frames: FrameFindings[], judge: Judge, clip: ClipInfo, motion: MotionAnalysis, signal: AbortSignal, wet: boolean) {
    const taken: Awaited<ReturnType<ClipClassifier['inferLooks']>> = [];
    for (let round = 0; round < WIDER_ROUNDS; round++) {
      const wider = framingDoubts([...frames, ...taken.map((l) => l.findings)], motion.pattern, judge).map((doubt): ChosenFrame => {
        const index = Math.round(doubt.t * SAMPLE_FPS);
        return { index, sample: motion.samples[index]!, crop: undefined };
      });
      if (wider.length === 0) break;
      taken.push(...await this.inferLooks(wider, clip, motion, signal, wet));
    }
    return taken;
  }

  /**
   * Looks with the streaks opened out (decide.ts, streakDoubts), at most WIDER_ROUNDS rounds: a
   * label whose surest sighting was the streaks' may still be seen in another frame. The looks'
   * findings, in the order taken.
   */
  private async openedLooks(frames: FrameFindings[], judge: Judge, clip: ClipInfo, motion: MotionAnalysis, signal: AbortSignal) {
    const taken: Awaited<ReturnType<ClipClassifier['inferDecoded']>> = [];
    const light = motion.smallMovers().derainedAs ?? 'either';
    const open = (view: Buffer, { width, height }: { width: number; height: number }) =>
      Buffer.from(streaksOpened(view, width, height, light, Math.max(1, Math.round((width / 640) * STREAK_REACH_PER_640_PX))).buffer);
    for (let round = 0; round < WIDER_ROUNDS; round++) {
      const doubts = streakDoubts([...frames, ...taken.map((l) => l.findings)], motion.pattern, judge);
      const looks = doubts.filter((d, i) => doubts.findIndex((o) => o.t === d.t && o.framing === d.framing) === i).map((doubt): ChosenFrame => {
        const index = Math.round(doubt.t * SAMPLE_FPS);
        return { index, sample: motion.samples[index]!, crop: doubt.framing };
      });
      if (looks.length === 0) break;
      const decoded = await this.decodeLooks(looks, clip, motion, signal, false);
      const sizes = this.inputSizes();
      const opened = decoded.map((d): DecodedFrame => ({
        ...d, frame: open(d.frame, d.size), whole: new Map([...d.whole].map(([k, v]) => [k, open(v, sizes.get(k)!)])), opened: true,
      }));
      taken.push(...await this.inferDecoded(opened, signal));
    }
    return taken;
  }

  /** The first-look models on each look's region; its frame from those the motion pass kept, or decoded. */
  private async inferLooks(looks: ChosenFrame[], clip: ClipInfo, motion: MotionAnalysis, signal: AbortSignal, derain = false) {
    return this.inferDecoded(await this.decodeLooks(looks, clip, motion, signal, derain), signal);
  }

  /**
   * The frames of looks, in the order of time, in one decode (those of a look at the same view
   * once); in rain derained, those in `shorter` over the samples either side only.
   */
  private async decodeLooks(looks: ChosenFrame[], clip: ClipInfo, motion: MotionAnalysis, signal: AbortSignal, derain: boolean, shorter = new Set<ChosenFrame>()): Promise<DecodedFrame[]> {
    const same = (a: ChosenFrame, b: ChosenFrame) => a.index === b.index && a.crop === b.crop && shorter.has(a) === shorter.has(b);
    const inOrder = looks.filter((look, i) => looks.findIndex((other) => same(other, look)) === i)
      .sort((a, b) => a.index - b.index); // as ffmpeg gives them
    const decoded: DecodedFrame[] = [];
    if (inOrder.length === 0) return decoded;
    for await (const frame of derain ? this.derained(clip, motion, inOrder, signal, shorter) : this.framesOf(clip, motion, inOrder, signal)) decoded.push(frame);
    return decoded;
  }

  /** The first-look models on each decoded look's region, one look after the other. */
  private async inferDecoded(decoded: DecodedFrame[], signal: AbortSignal) {
    const results = [];
    for (const frame of decoded) results.push(await this.inferFrame(frame, undefined, signal));
    return results;
  }

  /** The chosen samples' frames: out of those the motion pass kept (a small clip), else decoded. */
  private framesOf(clip: ClipInfo, motion: MotionAnalysis, chosen: ChosenFrame[], signal: AbortSignal): AsyncGenerator<DecodedFrame> {
    if (motion.frames) return this.keptFrames(clip, motion.frames, chosen);
    const moments = this.decodedMoments.get(motion);
    return moments && chosen.every((c) => moments.has(c.index)) ? this.decodedAgain(moments, chosen) : this.decodeChosen(clip, chosen, signal);
  }

  /** Looks at moments the first look decoded, out of those it kept (no second decode of the same frame). */
  private async *decodedAgain(moments: Map<number, DecodedFrame>, chosen: ChosenFrame[]): AsyncGenerator<DecodedFrame> {
    for (const choice of chosen) yield { ...moments.get(choice.index)!, choice };
  }

  /**
   * The chosen samples with the rain taken out (in order) as the small movers took it out
   * (pixel-median.ts, withoutDrops), the detail frame and the whole views alike: each the median
   * of it and the samples either side, or, in heavy rain whose drops brighten what they cross, each pixel's darkest over a
   * fifth of a second either side (its brightest where they darken); those in `shorter` over
   * the samples either side only. A drop is in one sample only; a walker a tenth of a second on
   * has moved less than his width. On a panning camera each frame is first laid onto the chosen
   * one's view (viewMoved): the darkest of a panning view over a fifth of a second smears every
   * dark edge the way the view went, into shapes the detector calls animals.
   */
  private async *derained(clip: ClipInfo, motion: MotionAnalysis, chosen: ChosenFrame[], signal: AbortSignal, shorter = new Set<ChosenFrame>()): AsyncGenerator<DecodedFrame> {
    const last = motion.samples.length - 1;
    const light = motion.smallMovers().derainedAs ?? 'either'; // as the movers were followed
    const full = dropWindow(light, SAMPLE_FPS) >> 1;
    const reachOf = (choice: ChosenFrame) => (shorter.has(choice) ? 1 : full);
    const inputSizes = this.inputSizes();
    const window = (index: number, reach: number) => (index >= reach && index + reach <= last ? Array.from({ length: 2 * reach + 1 }, (_, k) => index - reach + k) : [index]);
    const around = (choice: ChosenFrame) => window(choice.index, reachOf(choice));
    const indices = [...new Set(chosen.flatMap(around))].sort((a, b) => a - b);
    const decoded = new Map<number, DecodedFrame>();
    for await (const d of this.framesOf(clip, motion, indices.map((index) => ({ index, sample: motion.samples[index]!, crop: undefined })), signal)) decoded.set(d.choice.index, d);
    for (const choice of chosen) {
      const frames = around(choice).map((i) => decoded.get(i)!);
      const own = decoded.get(choice.index)!;
      if (frames.length === 1) {
        yield { ...own, choice };
        continue;
      }
      // the detail frame (for crops) and the whole views (a first look at the whole frame) alike
      const at = frames.indexOf(own);
      const moved = this.viewMoved(frames, at, light, inputSizes);
      const dry = (views: Buffer[], { width, height }: { width: number; height: number }) => {
        const onto = (v: Buffer, k: number) => laidOnto(v, views[at]!, width, height, moved[k]!.x * width, moved[k]!.y * height);
        return Buffer.from(withoutDrops(views.map(onto), light).buffer);
      };
      const whole = new Map([...own.whole.keys()].map((k) => [k, dry(frames.map((w) => w.whole.get(k)!), inputSizes.get(k)!)]));
      yield { frame: dry(frames.map((w) => w.frame), own.size), size: own.size, choice, whole, derained: reachOf(choice) > 1 };
    }
  }

  /**
   * How far the view's content moved from the chosen frame, `frames[at]`, to each of `frames`
   * (samples in a row), in shares of the frame's width and height (what it shows at x, each shows
   * at x + the share): the camera's steady pan (camera-path.ts), matched on the first whole view
   * with the drops' thin lines flattened; none where the camera holds still.
   */
  private viewMoved(frames: DecodedFrame[], at: number, light: DropLight, inputSizes: Map<string, { width: number; height: number }>): Array<{ x: number; y: number }> {
    const [key] = [...frames[at]!.whole.keys()];
    const { width, height } = inputSizes.get(key!)!;
    const gray = (k: number) => dropsFlattened(lumaOf(frames[k]!.whole.get(key!)!), width, height, light, DROP_REACH_PX);
    // the farthest frames either side: the pan moved the view most in them
    const far = [0, frames.length - 1].filter((k) => k !== at);
    const pan = steadyPan(gray(at), far.map((k) => ({ k: k - at, frame: gray(k) })), width, height);
    return frames.map((_, k) => (pan ? { x: ((k - at) * pan.dx) / width, y: ((k - at) * pan.dy) / height } : { x: 0, y: 0 }));
  }

  /** The sizes a chosen sample is needed at: the detail frame (for crops), then each model input size (by inputKey). */
  private frameSizes(clip: ClipInfo): Array<{ width: number; height: number }> {
    return [detailOf(clip), ...this.inputSizes().values()];
  }

  /** Each model input size, by inputKey. */
  private inputSizes(): Map<string, { width: number; height: number }> {
    return new Map(this.options.models.map((m) => [inputKey(m), { width: m.input.shape[2]!, height: m.input.shape[1]! }]));
  }

  /** The chosen samples out of those the motion pass kept (a small clip), as decodeChosen gives them. */
  private async *keptFrames(clip: ClipInfo, frames: Buffer[][], chosen: ChosenFrame[]): AsyncGenerator<DecodedFrame> {
    const [detail] = this.frameSizes(clip);
    const keys = [...new Set(this.options.models.map(inputKey))];
    for (const choice of chosen) {
      const [frame, ...whole] = frames[choice.index]!;
      yield { frame: frame!, size: detail!, choice, whole: new Map(keys.map((k, j) => [k, whole[j]!])) };
    }
  }

  /**
   * Decodes the chosen samples (same sampling as the motion pass) once, as raw RGB at each
   * model's input size (whole-frame views go straight into the interpreters) and at detail
   * size (for crops): from the keyframe before the first to the last (frames.ts, readSamples).
   */
  private async *decodeChosen(clip: ClipInfo, chosen: ChosenFrame[], signal: AbortSignal): AsyncGenerator<DecodedFrame> {
    const sizes = this.frameSizes(clip);
    const detail = sizes[0]!;
    const keys = [...new Set(this.options.models.map(inputKey))];
    // Each sample once, in order, for every choice of it (two looks may share a moment).
    const indices = [...new Set(chosen.map((c) => c.index))].sort((a, b) => a - b);
    for await (const { index, views: [frame, ...whole] } of readSamples({ input: clip.path, headerDescribed: clip.headerDescribed, interlaced: clip.interlaced, source: decodedSize(clip), sizes, fps: SAMPLE_FPS, indices, signal })) {
      const views = new Map(keys.map((k, j) => [k, whole[j]!]));
      for (const choice of chosen.filter((c) => c.index === index)) yield { frame: frame!, size: detail, choice, whole: views };
    }
  }

  /** The models of a frame's first look: the detectors, or every model when the pack has none. */
  private firstLookModels(): LoadedModel[] {
    const detectors = this.options.models.filter((m) => m.entry.task === 'detection');
    return detectors.length ? detectors : this.options.models;
  }

  /** The models on the frame, looking closer (the region around its motion, the other tasks) while the motion is unexplained. */
  private async inferFrame({ frame, size, choice, whole, derained, opened }: DecodedFrame, budget: FrameBudget | undefined, signal: AbortSignal) {
    // a thermal camera's colour map: the networks see its heat as brightness (false-colour.ts),
    // told on the frame's smallest view
    const seen = [frame, ...whole.values()];
    const smallest = seen.reduce((a, b) => (b.length < a.length ? b : a));
    if (falseColour(smallest)) for (const view of seen) toBrightness(view);
    // the camera's light is the whole frame's: a crop can be dark for what it holds (a dark flag
    // against a bright sky) where the camera exposed as by day
    let dim: boolean | undefined;
    const frameDim = () => (dim ??= underexposed(lumaOf(smallest)));
    const scores: Scores = {};
    // By view, whole frame first whatever ran first: of two equal findings the merge keeps the earlier.
    const views: { whole: Detection[]; region: Detection[] } = { whole: [], region: [] };
    const flyers: Box[] = [];
    const flags: Sighting[] = [];
    const fromAbove: Sighting[] = [];
    let inferenceMs = 0;
    let inferences = 0;
    const byModel: Record<string, number> = {};
    const look = async (model: LoadedModel, input: Uint8Array, crop: Box | undefined): Promise<Detection[]> => {
      const { outputs, ms } = await this.options.pool.infer(model.entry.id, input, signal);
      inferenceMs += ms;
      inferences++;
      byModel[model.entry.id] = (byModel[model.entry.id] ?? 0) + 1;
      const found = DECODERS[model.entry.task](outputs, model, crop);
      (crop ? views.region : views.whole).push(...found.detections);
      flyers.push(...found.flyers ?? []);
      flags.push(...found.flags ?? []);
      fromAbove.push(...found.fromAbove ?? []);
      for (const [label, score] of Object.entries(found.scores) as Array<[keyof Scores, number]>) {
        if (score > (scores[label] ?? 0)) scores[label] = score;
      }
      return found.detections;
    };
    const run = async (model: LoadedModel, crop: Box | undefined): Promise<Detection[]> => {
      const [, h, w] = model.input.shape;
      // A whole frame is its own buffer (frames.ts): sent to the worker as it is.
      const input = crop ? await this.cropInput(frame, size, crop, w!, h!) : whole.get(inputKey(model))!;
      const found = await look(model, input, crop);
      if (model.entry.task !== 'detection' || found.some((d) => this.sure(d))) return found;
      // Nothing sure in a dim view: the detector looks again as a camera would show it
      // (dim-view.ts), its grain out, and exposed for what it frames where that is one small
      // mover. Part of the same look, not drawn from the frame's share: a night's look costs at
      // most twice a day's, where the share would leave the night blind.
      const shown = frameDim() ? await asCameraShows(input, w!, h!, choice.onMover === true) : undefined;
      return shown ? [...found, ...(await look(model, shown, crop))] : found;
    };
    const findings = () => ({ findings: { t: choice.sample.t, sample: choice.sample, scores, detections: suppress([...views.whole, ...views.region]), flyers, flags, fromAbove, ...(derained !== undefined ? { derained } : {}), ...(opened ? { opened } : {}), ...(choice.crop ? { framing: choice.crop } : {}), ...(frameDim() ? { dim: true } : {}) }, inferenceMs, inferences, byModel });
    const runAll = async (models: LoadedModel[], crop: Box | undefined) => (await Promise.all(models.map((m) => run(m, crop)))).flat();
    // A detector takes the first look: at the region around the motion when there is one (what
    // moved, larger in its input than in the whole frame), else at the whole frame. When what
    // it is sure of holds most of the moving area, the motion is explained and nothing more
    // runs on this frame. Otherwise, while the frame's share of the clip's budget allows and
    // the motion stays unexplained, it looks at the whole frame too, then the other tasks (a
    // classifier for what the detector does not know) look at the region, or the whole frame
    // when there is none (before the whole frame, where the share pays for only one of the two).
    // What several views found is merged.
    const first = this.firstLookModels();
    if (!budget) {
      // a look again: its region only; with the streaks opened out, a second opinion on what
      // every model saw there (the classifier's car as much as the detector's bird)
      await runAll(opened ? this.options.models : first, choice.crop);
      return findings();
    }
    const others = this.options.models.filter((m) => !first.includes(m));
    if (others.length === 0 && first[0]?.entry.task !== 'detection') {
      await runAll(first, choice.crop); // a pack without a detector: its models look where it moves
      return findings();
    }
    const moving = choice.sample.region!;
    if (this.explains(await runAll(first, choice.crop), moving)) return findings();
    // Where the frame's share cannot pay for both, the other models' look at the region comes
    // before the detector's at the whole frame, which is then left out: another model knows what
    // the detector does not (a car from straight above, a flag, a spider), where the whole frame
    // shows the detector the same moment again, smaller.
    const wholeFrameToo = choice.crop !== undefined && (others.length === 0 || budget.affords(costOf(first) + costOf(others)));
    if (wholeFrameToo && budget.take(costOf(first)) && this.explains(await runAll(first, undefined), moving)) return findings();
    if (others.length && (budget.take(costOf(others)) || budget.assured)) await runAll(others, choice.crop);
    return findings();
  }

  /** A finding at or above its label's threshold. */
  private sure(found: Detection): boolean {
    const { thresholds, default_threshold } = this.options.manifest;
    return found.score >= (thresholds[found.label] ?? default_threshold);
  }

  /** A sure finding whose box holds most of the moving area: a closer look would add nothing. */
  private explains(found: Detection[], moving: Box): boolean {
    return found.some((d) => this.sure(d) && covered(moving, d.box) >= EXPLAINED);
  }

  /** A crop of the detail frame, resized in memory to the model's input. */
  private async cropInput(frame: Buffer, size: { width: number; height: number }, crop: Box, w: number, h: number): Promise<Uint8Array> {
    const left = Math.floor(crop.x * size.width);
    const top = Math.floor(crop.y * size.height);
    const out = await sharp(frame, { raw: { width: size.width, height: size.height, channels: 3 } })
      .extract({
        left, top,
        width: Math.max(1, Math.min(size.width - left, Math.round(crop.w * size.width))),
        height: Math.max(1, Math.min(size.height - top, Math.round(crop.h * size.height))),
      })
      .resize(w, h, { fit: 'fill' })
      .raw()
      .toBuffer();
    return new Uint8Array(out); // its own buffer: it is sent to the worker
  }
}
