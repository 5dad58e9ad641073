// The small-mover rule on frames drawn here: a creature is a small thing that goes somewhere by
// itself, changing its course or its pace; noise, flicker in place, a change of light and things
// carried along together are not.
import { expect } from 'chai';
import type { Box, CameraRules } from '../../runtime/core/analysis.js';
import { decide, type FrameFindings } from '../../runtime/pipeline/decide.js';
import { MOTION_GRID, type MotionPattern } from '../../runtime/pipeline/motion.js';
import { findSmallMovers, type FineFrame, type SmallMovers } from '../../runtime/pipeline/small-movers.js';
import { gaussian, seeded } from '../support/random.js';
import { rulesManifest } from '../support/rules-manifest.js';

const W = 192;
const H = 108;
const FPS = 5;

interface Drawn {
  /** position of the thing at time t (px), or undefined when it is not in view */
  at: (t: number) => { x: number; y: number } | undefined;
  /** half its side, px */
  half: number;
  /** gray level added where it is (negative: darker) */
  shade: number;
}

/** A textured still scene with sensor noise, the things drawn on it, and per-frame exposure. */
function frames(things: Drawn[], options: { seconds?: number; noise?: number; exposure?: (t: number) => number; flicker?: { x: number; y: number; half: number }; drops?: number; furniture?: boolean; pan?: (t: number) => number; tilt?: (t: number) => number } = {}): FineFrame[] {
  const random = seeded(5);
  // the scene is drawn wider and taller than the view, so that a camera panning (`pan`: px the
  // view has moved right by t) or tilting (`tilt`: px down) has it in view
  const SW = options.pan ? W + 100 : W;
  const SH = options.tilt ? H + 100 : H;
  const scene = new Float32Array(SW * SH);
  for (let y = 0; y < SH; y++) for (let x = 0; x < SW; x++) scene[y * SW + x] = 120 + 40 * Math.sin(x / 17) * Math.cos(y / 11) + 10 * random();
  // `furniture`: dark and pale blocks with sharp edges all over the view, as in a room
  if (options.furniture) {
    for (let i = 0; i * 21 + 8 < SW; i++) {
      const x0 = i * 21 + 8, y0 = i % 2 ? 12 : 58;
      for (let y = y0; y < y0 + 36; y++) for (let x = x0; x < Math.min(SW, x0 + 12); x++) scene[y * SW + x] = i % 2 ? 200 : 50;
      // and, on a taller scene, the same row of blocks again below
      if (SH > H) for (let y = y0 + H; y < Math.min(SH, y0 + H + 36); y++) for (let x = x0; x < Math.min(SW, x0 + 12); x++) scene[y * SW + x] = i % 2 ? 50 : 200;
    }
  }
  const gauss = gaussian(random);
  const out: FineFrame[] = [];
  const n = Math.round((options.seconds ?? 10) * FPS);
  for (let i = 0; i < n; i++) {
    const t = i / FPS;
    const gain = options.exposure?.(t) ?? 1;
    const gray = new Uint8Array(W * H);
    const shift = Math.round(options.pan?.(t) ?? 0);
    const down = Math.round(options.tilt?.(t) ?? 0);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) gray[y * W + x] = Math.max(0, Math.min(255, Math.round(scene[(y + down) * SW + x + shift]! * gain + (options.noise ?? 2) * gauss())));
    }
    for (const thing of things) {
      const c = thing.at(t);
      if (!c) continue;
      for (let y = Math.round(c.y - thing.half); y <= Math.round(c.y + thing.half); y++) {
        for (let x = Math.round(c.x - thing.half); x <= Math.round(c.x + thing.half); x++) {
          if (x >= 0 && y >= 0 && x < W && y < H) gray[y * W + x] = Math.max(0, Math.min(255, gray[y * W + x]! + thing.shade));
        }
      }
    }
    for (let d = 0; d < (options.drops ?? 0); d++) {
      // rain: a bright streak a pixel wide and 2 to 5 long, each in this frame only
      const x = Math.floor(random() * W), y0 = Math.floor(random() * (H - 5)), length = 2 + Math.floor(random() * 4);
      for (let y = y0; y < y0 + length; y++) gray[y * W + x] = Math.min(255, gray[y * W + x]! + 70);
    }
    if (options.flicker && i % 2 === 0) {
      const f = options.flicker; // a patch that blinks in place every other frame (a leaf catching the light)
      for (let y = f.y - f.half; y <= f.y + f.half; y++) for (let x = f.x - f.half; x <= f.x + f.half; x++) gray[y * W + x] = 255;
    }
    out.push({ t, gray });
  }
  return out;
}

/** A spider's way across a wall: still, a dash, a turn, crawling on, still again. */
const crawler = (t: number) => {
  if (t < 3) return { x: 60, y: 70 };
  if (t < 3.4) return { x: 60 - (t - 3) * 20, y: 70 };
  if (t < 8) return { x: 52 + (t - 3.4) * 3, y: 70 - (t - 3.4) * 4 };
  return { x: 52 + 4.6 * 3, y: 70 - 4.6 * 4 };
};

describe('small movers (pure)', () => {
  it('a small dark thing that stops, dashes and turns is a creature, found where it went', () => {
    const found = findSmallMovers(frames([{ at: crawler, half: 1, shade: -60 }]), W, H);
    expect(found.creatures).to.have.length(1);
    expect(found.score).to.be.within(0.6, 0.9);
    const box = found.creatures[0]!.box;
    expect(box.x * W).to.be.within(40, 62);
    expect((box.y + box.h) * H).to.be.within(68, 74);
  });

  it('the same creature in frames as ffmpeg hands them (Buffers), and in a still view with no creature, the frames are left as they were', () => {
    const drawn = frames([{ at: crawler, half: 1, shade: -60 }]);
    const buffers = drawn.map((f) => ({ t: f.t, gray: Buffer.from(f.gray) }));
    const copies = buffers.map((f) => Buffer.from(f.gray));
    expect(findSmallMovers(buffers, W, H).creatures).to.have.length(1);
    expect(buffers.every((f, k) => f.gray.equals(copies[k]!))).to.equal(true);
    const still = frames([], { seconds: 4 }).map((f) => ({ t: f.t, gray: Buffer.from(f.gray) }));
    expect(findSmallMovers(still, W, H).score).to.equal(0);
  });

  it('a spider crawling on a wall at night, dim in the grain (under twice its threshold): a creature where it is seen in every frame, alone on its way; not where the grain hides it one frame in five', () => {
    const grain = { noise: 4 }; // the threshold is then the grain's four standard deviations, about 16 levels
    const dim = findSmallMovers(frames([{ at: crawler, half: 1, shade: -28 }], grain), W, H);
    expect(dim.creatures).to.have.length(1);
    expect(dim.creatures[0]!.contrast, 'under the contrast a creature needs otherwise').to.be.within(1.5, 2);
    expect(dim.creatures[0]!.guessed).to.equal(0);
    // the same spider where the grain hides it one frame in five: flicker links up so too
    const hidden = (t: number) => (Math.round(t * FPS) % 5 === 2 ? undefined : crawler(t));
    const mostly = findSmallMovers(frames([{ at: hidden, half: 1, shade: -28 }], grain), W, H);
    expect(mostly.creatures).to.deep.equal([]);
    expect(mostly.moved, 'followed all the same').to.have.length(1);
  });

  it('a spider crawling on a wall lit by a weak illuminator (a third of the light, so a third of its difference): a creature, where the same few levels in a view lit as by day are nothing', () => {
    const weak = { exposure: () => 0.35, noise: 1 }; // the view's median about 42; the grain averaged away at 192 px
    const dim = findSmallMovers(frames([{ at: crawler, half: 1, shade: -10 }], weak), W, H);
    expect(dim.creatures).to.have.length(1);
    expect(dim.creatures[0]!.box.x * W).to.be.within(40, 62);
    const lit = findSmallMovers(frames([{ at: crawler, half: 1, shade: -10 }], { noise: 1 }), W, H);
    expect(lit.creatures).to.deep.equal([]);
  });

  it('a bright thing wandering in circles (a bird circling against a dark sky) is a creature', () => {
    const circle = (t: number) => ({ x: 100 + 30 * Math.cos(t * 1.2), y: 50 + 15 * Math.sin(t * 1.2) });
    expect(findSmallMovers(frames([{ at: circle, half: 2, shade: 70 }]), W, H).creatures).to.have.length(1);
  });

  it('a bright thing flying loops about a light and back to where it started (a moth at a lamp): it went far meanwhile, a creature', () => {
    // out and back over 6 s: at the start and at the end it is at the light
    const loops = (t: number) => ({ x: 96 + 45 * Math.sin((Math.PI * t) / 6) * Math.cos(2.1 * t), y: 54 + 28 * Math.sin((Math.PI * t) / 6) * Math.sin(1.3 * t) });
    const movers = findSmallMovers(frames([{ at: loops, half: 2, shade: 70 }], { seconds: 6 }), W, H);
    expect(movers.creatures).to.have.length(1);
    const { course } = movers.creatures[0]!;
    const back = Math.hypot((course[course.length - 1]!.x - course[0]!.x) * W, (course[course.length - 1]!.y - course[0]!.y) * H);
    expect(back, 'its last half second near its first (px)').to.be.below(5);
  });

  it('a bright thing darting several of its lengths from frame to frame, seen in every frame (a moth at the lens): a creature', () => {
    const flit = (t: number) => ({ x: 96 + 50 * Math.sin(t * 2.3) + 25 * Math.sin(t * 7.1), y: 54 + 30 * Math.cos(t * 1.7) + 12 * Math.sin(t * 5.3) });
    const movers = findSmallMovers(frames([{ at: flit, half: 2, shade: 90 }], { seconds: 6 }), W, H);
    expect(movers.creatures).to.have.length(1);
    expect(movers.creatures[0]!.hops, 'most of its way in hops').to.be.above(0.75);
    expect(movers.creatures[0]!.guessed, 'alone within its reach').to.equal(0);
  });

  it('light snow too sparse to be seen as snow (twenty flakes falling and drifting at their depth\'s pace): specks of different flakes linked up hop and are seen throughout, as a moth is, but each link was a choice among several: no creature', () => {
    const random = seeded(11);
    const flakes: Drawn[] = Array.from({ length: 20 }, () => {
      // a flake at depth z: nearer is bigger, brighter, faster (a quarter to four fifths of the view's height a second), swaying as it drifts
      const z = random(), x0 = random() * W, y0 = random() * H, phase = random() * 2 * Math.PI, period = 1.5 + 2 * random();
      const fall = (0.25 + 0.55 * z) * H;
      const sway = (0.06 * W * period) / (2 * Math.PI);
      return {
        at: (t: number) => ({ x: (x0 + 0.04 * W * t + sway * Math.sin((2 * Math.PI * t) / period + phase)) % W, y: (y0 + fall * t) % H }),
        half: z > 0.5 ? 1 : 0,
        shade: 50 + 40 * z,
      };
    });
    const snow = findSmallMovers(frames(flakes, { seconds: 6 }), W, H);
    expect(snow.creatures).to.deep.equal([]);
    // what linked up went from flake to flake: in hops all the way, as the moth's way is
    expect(snow.moved!.length, 'chains of flakes').to.be.above(3);
    for (const chain of snow.moved!) expect(chain.hops).to.be.above(0.75);
  });

  it('nothing but sensor noise: no creature', () => {
    expect(findSmallMovers(frames([], { noise: 4 }), W, H).score).to.equal(0);
  });

  it('a camera that starts a tour half way through the clip: the edges of its view sliding by are not followed; a creature in its still view is', () => {
    // held still for 6 s, then 10 px a second for 1.5 s, a stop of 1 s, and on again (a PTZ tour)
    const tour = (t: number) => 10 * (Math.min(Math.max(0, t - 6), 1.5) + Math.max(0, t - 8.5));
    expect(findSmallMovers(frames([], { furniture: true, pan: tour, noise: 5 }), W, H).creatures).to.deep.equal([]);
    // the same tour the other way (the view moving left): the edges it crosses stand out on their other side
    expect(findSmallMovers(frames([], { furniture: true, pan: (t) => 40 - tour(t), noise: 5 }), W, H).creatures, 'leftwards').to.deep.equal([]);
    // and tilting, down and up: the furniture's top and bottom edges are what it crosses
    expect(findSmallMovers(frames([], { furniture: true, tilt: tour, noise: 5 }), W, H).creatures, 'down').to.deep.equal([]);
    expect(findSmallMovers(frames([], { furniture: true, tilt: (t) => 40 - tour(t), noise: 5 }), W, H).creatures, 'up').to.deep.equal([]);
    // the same room held still, a spider crawling in it: a creature
    const spider = findSmallMovers(frames([{ at: crawler, half: 1, shade: -60 }], { furniture: true }), W, H);
    expect(spider.creatures).to.have.length(1);
  });

  it('a patch blinking in place (a leaf in the sun, a lamp): no creature', () => {
    expect(findSmallMovers(frames([], { flicker: { x: 80, y: 40, half: 1 } }), W, H).creatures).to.deep.equal([]);
  });

  it('a speck two pixels across that shifts by its width once, then is gone (a glint on something parked as the light changes): it went nowhere, nothing to follow', () => {
    const glint = (t: number) => (t < 4 ? { x: t < 2 ? 60 : 62, y: 70 } : undefined);
    const movers = findSmallMovers(frames([{ at: glint, half: 0.5, shade: -60 }]), W, H);
    expect(movers.creatures).to.deep.equal([]);
    expect(movers.travellers).to.deep.equal([]);
    expect(movers.faint).to.deep.equal([]);
  });

  it('a speck drifting a pixel every few seconds for half a minute (a shadow as the sun moves, a glint on a parked car): never a creature, though it ends up farther than its own length', () => {
    const drifting = (t: number) => ({ x: 60 + Math.floor(t / 5), y: 70 });
    const movers = findSmallMovers(frames([{ at: drifting, half: 1, shade: -60 }], { seconds: 30 }), W, H);
    expect(movers.creatures).to.deep.equal([]);
    expect(movers.score).to.equal(0);
    // the same speck going those pixels in a second, between two long waits: a creature
    const dashing = (t: number) => ({ x: t < 14 ? 60 : t < 15 ? 60 + 6 * (t - 14) : 66, y: 70 });
    expect(findSmallMovers(frames([{ at: dashing, half: 1, shade: -60 }], { seconds: 30 }), W, H).creatures).to.have.length(1);
  });

  it('the tip of a twig bent by a gust, 4 px out and back along a curve in 2 s: a piece of the background displaced (its pixels are the background\'s beside it), no creature; a beetle going that way, come from elsewhere, is one', () => {
    // at rest the rest of the clip: the background holds it there
    const bent = (t: number) => ({ x: 100 + Math.round(4 * Math.sin((Math.PI * (t - 3)) / 2)), y: 50 + Math.round(1.5 * Math.sin(Math.PI * (t - 3))) });
    const tip = (t: number) => (t < 3 || t >= 5 ? { x: 100, y: 50 } : bent(t));
    const twig = findSmallMovers(frames([{ at: tip, half: 1, shade: -70 }]), W, H);
    expect(twig.creatures).to.deep.equal([]);
    const beetle = (t: number) => (t < 3 ? undefined : t < 5 ? bent(t) : { x: 100 + Math.round(4 * (t - 5)), y: 50 });
    expect(findSmallMovers(frames([{ at: beetle, half: 1, shade: -70 }]), W, H).creatures).to.have.length(1);
  });

  it('a thing cut by the edge of the view, stopping and going along it: not a creature (what shows of it comes and goes), a traveller to look at', () => {
    const along = (x: number) => (t: number) => ({ x, y: crawler(t).y });
    const inView = findSmallMovers(frames([{ at: along(30), half: 1, shade: -60 }]), W, H);
    expect(inView.creatures, 'the same way in full view').to.have.length(1);
    const cut = findSmallMovers(frames([{ at: along(0), half: 1, shade: -60 }]), W, H);
    expect(cut.creatures).to.deep.equal([]);
    expect(cut.travellers).to.have.length(1);
  });

  it('a thing going its steady way up the view as the next comes in at the bottom edge (cars from above, their roofs seen in infrared): no hop from inside the view to the edge, so no course bent into a creature\'s', () => {
    // a pale roof 21 px long drives up, lost from sight near the top (the car turns into the
    // shade); as it goes, the next shows a sliver at the bottom edge, a hop of four of its lengths
    // away, and drives up after it
    const first = (t: number) => (t < 3.6 ? { x: 100, y: 90 - 20 * t } : undefined);
    const next = (t: number) => (t >= 3.6 ? { x: 40, y: H + 8 - 20 * (t - 3.6) } : undefined);
    const movers = findSmallMovers(frames([{ at: first, half: 10, shade: 50 }, { at: next, half: 10, shade: 50 }], { seconds: 8 }), W, H);
    expect(movers.creatures).to.deep.equal([]);
    expect(movers.travellers.length).to.be.at.least(1);
    const alone = findSmallMovers(frames([{ at: first, half: 10, shade: 50 }], { seconds: 8 }), W, H);
    expect(alone.creatures, 'the first alone').to.deep.equal([]);
  });

  it('a thing at one steady pace on a straight line (carried, or a walker far away): no creature, a traveller the detector looks at', () => {
    const carried = (t: number) => ({ x: 20 + t * 15, y: 60 });
    const movers = findSmallMovers(frames([{ at: carried, half: 2, shade: -60 }]), W, H);
    expect(movers.creatures).to.deep.equal([]);
    expect(movers.travellers).to.have.length(1);
    expect(movers.travellers[0]!.box.x * W).to.be.within(15, 30); // where its way began
  });

  it('a dim thing walking its way (a far walker at night, barely over the noise): faint, never a creature or a traveller, and the detector looks at it', () => {
    const walker = (t: number) => ({ x: 40 + t * 4, y: 60 + Math.sin(t * 3) }); // a step at a time, with a blob's jitter
    const movers = findSmallMovers(frames([{ at: walker, half: 2, shade: -17 }], { noise: 1.5 }), W, H);
    expect(movers.creatures).to.deep.equal([]);
    expect(movers.travellers).to.deep.equal([]);
    expect(movers.faint).to.have.length(1);
    expect(movers.faint[0]!.contrast).to.be.below(2);
  });

  it('in rain (drops everywhere, each in one frame only), a walker is followed once the drops are taken out, to be looked at; nothing there is a creature', () => {
    const walker = (t: number) => ({ x: 40 + t * 4, y: 60 }); // under a pixel a frame
    const rainy = frames([{ at: walker, half: 2, shade: 45 }], { drops: 150 });
    const all = (m: SmallMovers) => [...m.creatures, ...m.travellers, ...m.faint];
    // the drops alone, each in one frame only, are never followed, taken out or not
    expect(all(findSmallMovers(frames([], { drops: 150 }), W, H))).to.deep.equal([]);
    // the drops brighten, but are sparse: the median of three takes them out as well as the
    // darkest of the frames around, and takes less of a walker; and when the drops show no one way
    for (const falling of ['either', 'brighter'] as const) {
      const wet = findSmallMovers(rainy, W, H, undefined, { falling });
      expect(wet.derainedAs, falling).to.equal('either');
      expect(wet.creatures, falling).to.deep.equal([]);
      expect(wet.score).to.equal(0);
      // the longest followed is the walker, his whole way
      const { box } = [...wet.travellers].sort((a, b) => b.sightings - a.sightings)[0]!;
      expect(box.x * W, falling).to.be.within(30, 45);
      expect((box.x + box.w) * W, falling).to.be.within(70, 85);
      expect(box.y * H, falling).to.be.within(52, 62);
      expect(findSmallMovers(frames([], { drops: 150 }), W, H, undefined, { falling }).creatures).to.deep.equal([]);
    }
  });

  it('in rain, a small thing that walks a step at a time, stops and turns (a mouse in a drizzle) is a creature; one that darts from spot to spot is only looked at, as drops left over linked up would be', () => {
    // 6 px a second (about a pixel a frame, under its 5 px), along, a pause, then up
    const mouse = (t: number) => (t < 3 ? { x: 40 + 6 * t, y: 60 } : t < 4 ? { x: 58, y: 60 } : { x: 58, y: 60 - 6 * (t - 4) });
    const flit = (t: number) => ({ x: 96 + 50 * Math.sin(t * 2.3) + 25 * Math.sin(t * 7.1), y: 54 + 30 * Math.cos(t * 1.7) + 12 * Math.sin(t * 5.3) });
    for (const falling of ['either', 'brighter'] as const) {
      const walked = findSmallMovers(frames([{ at: mouse, half: 2, shade: -60 }], { drops: 150, seconds: 7 }), W, H, undefined, { falling });
      expect(walked.creatures, falling).to.have.length(1);
      expect(walked.creatures[0]!.hops, falling).to.be.at.most(0.25);
      const darted = findSmallMovers(frames([{ at: flit, half: 2, shade: 90 }], { drops: 150, seconds: 6 }), W, H, undefined, { falling });
      expect(darted.creatures, falling).to.deep.equal([]);
    }
  });

  it('in heavy rain lit by the illuminator (drops over a third of the view a frame, every pixel crossed again and again), a dark walker is followed only once the drops are taken out as what brightens', () => {
    const walker = (t: number) => ({ x: 40 + t * 4, y: 60 }); // under a pixel a frame
    const heavy = frames([{ at: walker, half: 2, shade: -45 }], { drops: 2500 });
    const longest = (m: SmallMovers) => [...m.creatures, ...m.travellers, ...m.faint].sort((a, b) => b.sightings - a.sightings)[0];
    // the median of three leaves a drop wherever two of the three frames had one: a third of the view
    expect(longest(findSmallMovers(heavy, W, H, undefined, { falling: 'either' }))).to.equal(undefined);
    const wet = findSmallMovers(heavy, W, H, undefined, { falling: 'brighter' });
    expect(wet.derainedAs, 'the darkest leaves the quieter background').to.equal('brighter');
    expect(wet.creatures).to.deep.equal([]);
    const { box } = longest(wet)!;
    expect(box.x * W).to.be.within(30, 45);
    expect((box.x + box.w) * W).to.be.within(70, 85);
  });

  it('in snow lit by the illuminator (flakes falling about their own width a frame, so each pixel a flake covers it covers two frames of three), a walker lit by it too is followed once the flakes are taken out as what brightens, whatever the noise', () => {
    const random = seeded(17);
    const flakes: Drawn[] = Array.from({ length: 150 }, () => {
      const x0 = random() * W, y0 = random() * H, fall = 8 + 4 * random(); // 1.6 to 2.4 px a frame
      return { at: (t: number) => ({ x: (x0 + 2 * t) % W, y: (y0 + fall * t) % H }), half: 1, shade: 70 };
    });
    const walker = (t: number) => ({ x: 40 + t * 4, y: 60 }); // under a pixel a frame
    const snowy = frames([...flakes, { at: walker, half: 2, shade: 45 }]);
    const longest = (m: SmallMovers) => [...m.creatures, ...m.travellers, ...m.faint].sort((a, b) => b.sightings - a.sightings)[0];
    const snow = findSmallMovers(snowy, W, H, undefined, { falling: 'brighter', flakes: true });
    expect(snow.creatures).to.deep.equal([]);
    const { box } = longest(snow)!;
    expect(box.x * W).to.be.within(30, 45);
    expect((box.x + box.w) * W).to.be.within(70, 85);
    // the median of three keeps the flakes, yet leaves the quieter background: the looks take the
    // drops out so, and drops taken out so for following (rain's) leave every frame busy with them
    expect(snow.derainedAs).to.equal('either');
    expect(longest(findSmallMovers(snowy, W, H, undefined, { falling: 'brighter' }))).to.equal(undefined);
  });

  it('a creature in frames crowded with specks that last a frame (a low bitrate\'s flicker, a grainy sensor): followed on what stays from frame to frame', () => {
    const busy = frames([{ at: crawler, half: 1, shade: -60 }], { drops: 60 });
    const found = findSmallMovers(busy, W, H);
    expect(found.creatures).to.have.length(1);
    expect(found.creatures[0]!.box.x * W).to.be.within(40, 62);
  });

  it('a dim thing going by in hops longer than itself (produce jolted along a belt, a panning camera\'s leftovers): not even faint', () => {
    // 3 px across, it moves 2 px, then 5, then 2...: most of its way in hops, as no walker or car moves
    const jolted = (t: number) => {
      const i = Math.round(t * FPS);
      return { x: 10 + Math.floor(i / 2) * 7 + (i % 2) * 2, y: 60 };
    };
    const movers = findSmallMovers(frames([{ at: jolted, half: 1, shade: -17 }], { noise: 1.5, seconds: 6 }), W, H);
    expect(movers.faint).to.deep.equal([]);
    expect(movers.creatures).to.deep.equal([]);
  });

  it('three things at one pace one way (a flow: snow in wind, produce on a belt): neither creatures nor travellers', () => {
    const lane = (y: number) => (t: number) => ({ x: 20 + t * 15, y });
    const movers = findSmallMovers(frames([{ at: lane(30), half: 2, shade: -60 }, { at: lane(60), half: 2, shade: -60 }, { at: lane(90), half: 2, shade: -60 }]), W, H);
    expect(movers.creatures).to.deep.equal([]);
    expect(movers.travellers).to.deep.equal([]);
    // each still went its way (in rain, the parts of one walker move alike so): where each was, when
    expect(movers.moved).to.have.length(3);
    for (const [i, y] of [30, 60, 90].entries()) {
      const lane = movers.moved!.find((m) => Math.abs(m.course[0]!.y * H - y) < 2);
      expect(lane, `the lane at ${y}`).to.not.equal(undefined);
      for (const p of lane!.course) expect(p.x * W, `lane ${i} at ${p.t} s`).to.be.within(20 + p.t * 15 - 2, 20 + p.t * 15 + 2);
    }
  });

  it('the camera brightening and dimming (automatic exposure): no creature', () => {
    const exposure = (t: number) => 1 + 0.15 * Math.sin(t * 2);
    expect(findSmallMovers(frames([], { exposure }), W, H).score).to.equal(0);
  });

  it('a creature under the camera changing its exposure is still found', () => {
    const exposure = (t: number) => 1 + 0.1 * Math.sin(t * 2);
    expect(findSmallMovers(frames([{ at: crawler, half: 1, shade: -60 }], { exposure }), W, H).creatures).to.have.length(1);
  });

  it('a masked creature is not found', () => {
    const masked = new Uint8Array(W * H);
    for (let y = 0; y < H; y++) for (let x = 0; x < W / 2; x++) masked[y * W + x] = 1;
    expect(findSmallMovers(frames([{ at: crawler, half: 1, shade: -60 }]), W, H, masked).creatures).to.deep.equal([]);
  });

  it('a black beetle crawling along the edge of a masked black doorway: what is masked is no background it was displaced from, a creature', () => {
    const masked = new Uint8Array(W * H);
    for (let y = 0; y < H; y++) for (let x = 0; x < 51; x++) masked[y * W + x] = 1;
    const alongTheMask = (t: number) => ({ x: 52, y: crawler(t).y + (t < 8 ? 0 : 8 - t) });
    const clip = frames([{ at: alongTheMask, half: 1, shade: -255 }]);
    for (const f of clip) for (let p = 0; p < W * H; p++) if (masked[p]) f.gray[p] = 0; // the doorway, black
    expect(findSmallMovers(clip, W, H, masked).creatures).to.have.length(1);
  });

  it('a clip too short to follow anything: no creature', () => {
    expect(findSmallMovers(frames([{ at: crawler, half: 1, shade: -60 }], { seconds: 0.8 }), W, H).creatures).to.deep.equal([]);
  });
});

describe('small creatures in the decision', () => {
  const manifest = rulesManifest({ person: 0.55, vehicule: 0.55, animal: 0.5 });
  const still: MotionPattern = { moving: false, pan: 0, repeat: 0, streaks: 0, flakes: 0 };
  const spider: Box = { x: 0.35, y: 0.42, w: 0.08, h: 0.23 };
  const movers: SmallMovers = {
    score: 0.9,
    travellers: [],
    faint: [],
    creatures: [{ box: spider, from: 0, to: 9.8, seconds: 9.8, sightings: 50, travel: 10, striding: 10, turning: 0.4, pausing: 0.5, hops: 0.2, guessed: 0, contrast: 3, velocity: { x: 0, y: 0 }, course: [] }],
  };
  const grid = () => new Uint8Array(MOTION_GRID.x * MOTION_GRID.y);
  const personFrame = (t: number): FrameFindings => ({
    t, scores: { person: 0.9 }, detections: [{ label: 'person', score: 0.9, box: { x: 0.5, y: 0.2, w: 0.1, h: 0.5 } }],
    sample: { t, energy: 0.05, cells: grid(), solidCells: grid(), region: { x: 0.5, y: 0.2, w: 0.1, h: 0.5 }, foreground: grid() },
  });

  it('no frame for the networks and a creature: animal, safe, a keyframe boxing where it went', () => {
    const d = decide([], still, manifest, undefined, () => movers);
    expect(d.labels).to.deep.equal(['animal']);
    expect(d.scores.animal).to.equal(0.9);
    expect(d.risk).to.equal('safe');
    expect(d.keyframes).to.have.length(1);
    expect(d.keyframes[0]!.t).to.equal(4.9);
    expect(d.keyframes[0]!.detections).to.deep.equal([{ label: 'animal', score: 0.9, box: spider }]);
  });

  it('where the networks found a person, small movers are not asked for and add nothing', () => {
    let asked = false;
    const d = decide([personFrame(1), personFrame(3)], { ...still, moving: true }, manifest, undefined, () => {
      asked = true;
      return movers;
    });
    expect(asked).to.equal(false);
    expect(d.labels).to.not.include('animal');
  });

  it('a creature outside every zone of the camera does not count', () => {
    const rules: CameraRules = { masks: [], zones: [{ name: 'gate', points: [[0.7, 0], [1, 0], [1, 1], [0.7, 1]] }], labels: {} };
    const d = decide([], still, manifest, rules, () => movers);
    expect(d.labels).to.not.include('animal');
  });
});
