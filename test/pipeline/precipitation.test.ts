// The precipitation analysis on frames drawn here pixel by pixel: the camera's shift, the
// transient map against both neighbours, streaks and flakes, recurrence, and the score.
import { expect } from 'chai';
import {
  PRECIPITATION_SPREAD, PrecipitationTracker, cellSpread, fallingTexture, fellFrom, globalShift, isFlakeCandidate, isStreak, particles,
  backToBack, changeSpread, mapEvidence, precipitationSchedule, precipitationScore, recurrence, scheduleSelect, shrink, transientMap, transientSpread, type GrayFrame,
} from '../../runtime/pipeline/precipitation.js';
import { seeded as random } from '../support/random.js';

const W = 320;
const H = 180;

/** A textured scene (smooth blobs of light and shade), larger than the frame so it can be panned. */
function scene(seed: number, contrast = 1): (x: number, y: number) => number {
  const rnd = random(seed);
  const waves = Array.from({ length: 12 }, () => ({ fx: rnd() * 0.2, fy: rnd() * 0.2, phase: rnd() * 6, amp: contrast * (8 + rnd() * 12) }));
  return (x, y) => Math.max(0, Math.min(255, Math.round(100 + waves.reduce((sum, w) => sum + w.amp * Math.sin(w.fx * x + w.fy * y + w.phase), 0))));
}

/** The scene seen with the camera moved by (dx, dy). */
function frame(view: (x: number, y: number) => number, dx = 0, dy = 0): GrayFrame {
  const data = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) data[y * W + x] = view(x + dx, y + dy);
  return { data, width: W, height: H };
}

function draw(f: GrayFrame, x0: number, y0: number, w: number, h: number, level: number): GrayFrame {
  for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) f.data[y * W + x] = level;
  return f;
}

const still = { dx: 0, dy: 0 };

/**
 * Rain at night over a dark, plain view, the drops lit by the camera's infrared: every sample its
 * own `drops` bright streaks, 1 to 2 px wide and 6 to 20 px long, falling a little aslant (900
 * cover a quarter of the view, 3000 three fifths).
 */
function nightRain(seed: number, drops: number): GrayFrame {
  const rnd = random(seed);
  const f = frame(scene(3, 0.1), 0, 0);
  for (let k = 0; k < drops; k++) {
    const x0 = Math.floor(rnd() * W), y0 = Math.floor(rnd() * H), length = 6 + Math.floor(rnd() * 14), wide = 1 + Math.floor(rnd() * 2);
    // a drop nearer the illuminator is brighter; the blur of its fall makes it even along its length
    const level = 120 + Math.floor(rnd() * 120);
    for (let t = 0; t < length; t++) {
      const y = y0 + t, x = x0 + Math.round(t * 0.2);
      for (let w = 0; w < wide; w++) if (y < H && x + w < W) f.data[y * W + x + w] = Math.max(f.data[y * W + x + w]!, level);
    }
  }
  return f;
}

describe('precipitation analysis', () => {
  const view = scene(7);

  it('shrinks a frame to the rounded mean of each block, the columns and rows past the last whole block left out', () => {
    const rnd = random(3);
    const width = 322, height = 183; // neither a multiple of the factor
    const data = Uint8Array.from({ length: width * height }, () => Math.floor(rnd() * 256));
    for (const factor of [3, 4]) {
      const small = shrink({ data, width, height }, factor);
      expect([small.width, small.height]).to.deep.equal([Math.floor(width / factor), Math.floor(height / factor)]);
      for (const [x, y] of [[0, 0], [small.width - 1, 0], [17, 23], [small.width - 1, small.height - 1]] as const) {
        let sum = 0;
        for (let ky = 0; ky < factor; ky++) for (let kx = 0; kx < factor; kx++) sum += data[(y * factor + ky) * width + x * factor + kx]!;
        expect(small.data[y * small.width + x], `block (${x}, ${y}) at ${factor}`).to.equal(Math.round(sum / (factor * factor)));
      }
    }
  });

  it('finds the camera\'s shift between two samples, whatever moves in front of it', () => {
    const a = frame(view, 10, 10);
    const b = draw(frame(view, 13, 8), 100, 60, 40, 80, 250); // the view moved by (-3, +2), a bright object came in
    const shift = globalShift(a, b);
    expect(shift.dx).to.be.closeTo(-3, 0.5);
    expect(shift.dy).to.be.closeTo(2, 0.5);
    const none = globalShift(a, frame(view, 10, 10));
    expect(Math.hypot(none.dx, none.dy)).to.be.below(0.05);
  });

  it('dense rain over a dark, plain view (a still camera at night, drops lit by its infrared): no shift of the camera beyond the fine search', () => {
    const rainy = (seed: number) => nightRain(seed, 900);
    for (const seed of [1, 2, 3]) {
      const shift = globalShift(rainy(seed), rainy(seed + 10));
      // Taking the drops' chance matches for motion, it was 5 to 10 px. What is left is the fine
      // search's, within half a coarse pixel (2 px) of no motion.
      expect(Math.hypot(shift.dx, shift.dy), `seed ${seed}: ${JSON.stringify(shift)}`).to.be.below(2);
    }
  });

  it('a streak in one sample only is transient; the scene, even panning, is not', () => {
    const prev = frame(view, 0, 0);
    const cur = draw(frame(view, 2, 0), 150, 50, 1, 9, 200);
    const next = frame(view, 4, 0);
    const map = transientMap(prev, cur, next, globalShift(prev, cur), globalShift(cur, next));
    expect(map.level[54 * W + 150]).to.be.above(60);
    const found = particles(map);
    expect(found).to.have.length(1);
    expect(isStreak(found[0]!, W)).to.equal(true);
    expect(found[0]!.bright).to.equal(true);
    // the same pan without the drop: nothing stands out from both neighbours
    const dry = transientMap(prev, frame(view, 2, 0), next, globalShift(prev, cur), globalShift(cur, next));
    expect(particles(dry)).to.have.length(0);
  });

  it('a thing present in the sample before or after is not transient', () => {
    const prev = draw(frame(view), 150, 50, 2, 9, 200);
    const cur = draw(frame(view), 150, 50, 2, 9, 200);
    const map = transientMap(prev, cur, frame(view), still, still);
    expect(particles(map)).to.have.length(0);
  });

  it('tells streaks (thin, falling, short) from blobs and from long edges', () => {
    const shape = (w: number, h: number) => {
      const prev = frame(view);
      const next = frame(view);
      const cur = draw(frame(view), 100, 40, w, h, 230);
      return particles(transientMap(prev, cur, next, still, still))[0]!;
    };
    expect(isStreak(shape(1, 6), W), 'a drop 1 px wide, 6 long').to.equal(true);
    expect(isStreak(shape(2, 20), W), 'a near drop').to.equal(true);
    expect(isStreak(shape(4, 4), W), 'a blob').to.equal(false);
    expect(isFlakeCandidate(shape(4, 4), W), 'a blob is a flake candidate').to.equal(true);
    expect(isStreak(shape(1, 120), W), 'a long thin edge').to.equal(false);
    expect(isStreak(shape(12, 2), W), 'lying flat').to.equal(false);
  });

  it('a walker seen a few times a second: his thin limbs stand out of both neighbours as drops do, but the neighbours differ there (he moved through), so they are no rain', () => {
    // a dark torso 40 px wide, and beside it light sleeves 2 px wide, 12 long, a gap apart: a third of a
    // second later he is 20 px on (a walker near the camera at 3 frames a second), his body
    // where an arm of the sample between was
    const arms = (x: number) => [x - 5, x - 9, x + 43, x + 47];
    const walker = (f: GrayFrame, x: number) => {
      draw(f, x, 40, 40, 90, 40);
      for (const arm of arms(x)) for (const y of [60, 90]) draw(f, arm, y, 2, 12, 210);
      return f;
    };
    const prev = walker(frame(view), 80);
    const cur = walker(frame(view), 100);
    const next = walker(frame(view), 120);
    const map = transientMap(prev, cur, next, still, still);
    const limbs = particles(map).filter((p) => isStreak(p, W));
    expect(limbs.length, 'limbs as thin and short-lived as drops').to.be.at.least(3);
    for (const limb of limbs) expect(limb.settled, `the limb at ${Math.round(limb.x)},${Math.round(limb.y)}: what is behind it did not stay`).to.be.below(0.5);
    expect(mapEvidence(map, prev, cur, still).streakArea).to.equal(0);
    // the same thin lines in one sample only, over what stays: drops, and they count
    const lines = frame(view);
    for (const x of arms(100)) for (const y of [60, 90]) draw(lines, x, y, 2, 12, 210);
    const rain = transientMap(frame(view), lines, frame(view), still, still);
    const drops = particles(rain).filter((p) => isStreak(p, W));
    expect(drops).to.have.length(8);
    for (const drop of drops) expect(drop.settled).to.equal(1);
    expect(mapEvidence(rain, frame(view), lines, still).streakArea).to.be.above(0);
  });

  it('a flake is found falling when it was a little higher in the sample before', () => {
    const ground = scene(5, 0.2); // a road or a lawn: some texture, little contrast
    const prev = draw(frame(ground), 100, 40, 3, 3, 240);
    const fell = draw(frame(ground), 102, 48, 3, 3, 240);
    expect(fellFrom(prev, fell, still, { x: 103, y: 49 })).to.equal(true);
    const rose = draw(frame(ground), 100, 32, 3, 3, 240);
    expect(fellFrom(prev, rose, still, { x: 101, y: 33 })).to.equal(false);
    const appeared = draw(frame(ground), 200, 100, 3, 3, 240);
    expect(fellFrom(frame(ground), appeared, still, { x: 201, y: 101 })).to.equal(false);
    // on a plain wall any patch would match as well as the flake's own place: not found
    const plain = (level: number) => ({ data: new Uint8Array(W * H).fill(level), width: W, height: H });
    expect(fellFrom(plain(90), draw(plain(90), 100, 48, 3, 3, 240), still, { x: 101, y: 49 })).to.equal(false);
  });

  it('a flake falling over fine texture (leaves, a lawn), seen through as flakes are: found falling; one that rose or came from nowhere is not', () => {
    const rnd = random(21);
    const leaves = new Uint8Array(W * H).map(() => 60 + Math.floor(rnd() * 90)); // a leaf's worth of light and shade every pixel
    const foliage = (): GrayFrame => ({ data: leaves.slice(), width: W, height: H });
    // a flake 3 px across lets through two fifths of what is behind it
    const flake = (f: GrayFrame, x0: number, y0: number) => {
      for (let y = y0; y < y0 + 3; y++) for (let x = x0; x < x0 + 3; x++) f.data[y * W + x] = Math.round(0.6 * 235 + 0.4 * f.data[y * W + x]!);
      return f;
    };
    const prev = flake(foliage(), 100, 40);
    expect(fellFrom(prev, flake(foliage(), 102, 48), still, { x: 103, y: 49 })).to.equal(true);
    expect(fellFrom(prev, flake(foliage(), 100, 32), still, { x: 101, y: 33 }), 'it rose').to.equal(false);
    expect(fellFrom(foliage(), flake(foliage(), 200, 100), still, { x: 201, y: 101 }), 'it appeared from nowhere').to.equal(false);
  });

  it('a bright speck that moved down with the texture around it (a near leaf\'s parallax under a handheld camera) did not fall', () => {
    const leaves = scene(11); // textured: a plant close to the lens
    const prev = draw(frame(leaves), 100, 40, 3, 3, 240);
    // the camera's one shift is nil (the far wall stayed), but the near leaves and the bright
    // speck on them went 8 px down together
    const cur = frame(leaves);
    for (let y = 20; y < 90; y++) for (let x = 80; x < 130; x++) cur.data[y * W + x] = prev.data[(y - 8) * W + x]!;
    expect(fellFrom(prev, cur, still, { x: 101, y: 49 })).to.equal(false);
    // the same speck falling alone over the same leaves, which stay: it fell
    expect(fellFrom(prev, draw(frame(leaves), 100, 48, 3, 3, 240), still, { x: 101, y: 49 })).to.equal(true);
  });

  it('recurrence: flicker in place comes back, drops do not', () => {
    const base = frame(view);
    const withDrop = (x: number) => transientMap(base, draw(frame(view), x, 60, 1, 8, 220), base, still, still);
    expect(recurrence(withDrop(100), withDrop(100))).to.equal(1);
    expect(recurrence(withDrop(100), withDrop(200))).to.equal(0);
  });

  it('the threshold follows the clip\'s own noise', () => {
    const rnd = random(3);
    const noisy = () => {
      const f = frame(view);
      for (let i = 0; i < f.data.length; i++) f.data[i] = Math.max(0, Math.min(255, f.data[i]! + Math.round((rnd() - 0.5) * 40)));
      return f;
    };
    const clean = transientMap(frame(view), frame(view), frame(view), still, still);
    const grainy = transientMap(noisy(), noisy(), noisy(), still, still);
    expect(clean.threshold).to.equal(6);
    expect(grainy.noise).to.be.above(8);
    expect(grainy.threshold).to.be.above(clean.threshold);
  });

  it('spread counts the cells of a 12x9 grid holding something', () => {
    expect(cellSpread([], W, H)).to.equal(0);
    expect(cellSpread([{ x: 1, y: 1 }, { x: 2, y: 2 }], W, H)).to.equal(1 / 108);
    const everywhere = Array.from({ length: 108 }, (_, c) => ({ x: ((c % 12) + 0.5) * (W / 12), y: (Math.floor(c / 12) + 0.5) * (H / 9) }));
    expect(cellSpread(everywhere, W, H)).to.equal(1);
  });

  it('the score is 0 under a sixth of the view or for flicker in place, 0.5 at a sixth, 1 over the whole view', () => {
    expect(precipitationScore({ streakSpread: 0.15, flakeSpread: 0.1, repeat: 0 })).to.equal(0);
    expect(precipitationScore({ streakSpread: PRECIPITATION_SPREAD, flakeSpread: 0, repeat: 0.1 })).to.equal(0.5);
    expect(precipitationScore({ streakSpread: 0, flakeSpread: 1, repeat: 0.1 })).to.equal(1);
    expect(precipitationScore({ streakSpread: 0.6, flakeSpread: 0, repeat: 0.1 })).to.be.within(0.5, 1);
    expect(precipitationScore({ streakSpread: 0.9, flakeSpread: 0, repeat: 0.7 })).to.equal(0);
  });

  it('schedules a few runs of five samples, longer when the source repeats frames, over at most a third of a short clip', () => {
    expect(precipitationSchedule(300, 10, 25)).to.deep.equal({ every: 75, length: 5, runs: 4 });
    expect(precipitationSchedule(60, 10)).to.deep.equal({ every: 15, length: 5, runs: 4 });
    expect(precipitationSchedule(40, 10)).to.deep.equal({ every: 20, length: 5, runs: 2 });
    expect(precipitationSchedule(36, 10)).to.deep.equal({ every: 18, length: 5, runs: 2 }); // four runs would be 20 of its 36 samples
    expect(precipitationSchedule(30, 10, 15)).to.deep.equal({ every: 15, length: 5, runs: 2 });
    expect(precipitationSchedule(30, 10, 4)).to.deep.equal({ every: 30, length: 15, runs: 1 });
    expect(precipitationSchedule(6, 10)).to.deep.equal({ every: 10, length: 5, runs: 1 });
    expect(backToBack(10)).to.deep.equal({ every: 10, length: 10, runs: 4 });
    // the runs and nothing after the last (a long clip's few samples past it would make no run)
    expect(scheduleSelect({ every: 60, length: 5, runs: 4 })).to.equal('lt(mod(n\\,60)\\,5)*lt(n\\,240)');
  });

  it('over a run of samples: streaks in new places every sample are rain, a still scene is nothing', () => {
    const schedule = { every: 5, length: 5, runs: 4 };
    const rainy = new PrecipitationTracker(schedule);
    const dry = new PrecipitationTracker(schedule);
    const rnd = random(11);
    for (let k = 0; k < 10; k++) {
      const f = frame(view, k, 0); // a slow pan
      dry.push(frame(view, k, 0));
      for (let d = 0; d < 150; d++) draw(f, 10 + Math.floor(rnd() * (W - 20)), 10 + Math.floor(rnd() * (H - 30)), 1, 5 + Math.floor(rnd() * 8), 210);
      rainy.push(f);
    }
    const wet = rainy.evidence();
    expect(wet.maps).to.equal(4);
    expect(wet.pan).to.be.closeTo(1, 0.3);
    expect(wet.streakSpread).to.be.above(0.6);
    expect(wet.repeat).to.be.below(0.5);
    expect(precipitationScore(wet)).to.be.above(0.5);
    const still = dry.evidence();
    expect(still.streakSpread).to.equal(0);
    expect(precipitationScore(still)).to.equal(0);
  });

  it('streaks count over the part of the view where drops can show: drizzle over a dark belt below a white wall is rain; a few streaks over a small dark patch are not', () => {
    const schedule = { every: 5, length: 5, runs: 4 };
    const belt = scene(23);
    const wall = 229;
    // a drop lets through half of what it crosses and adds its own scattered light: over the white
    // wall it changes the pixel by less than the smallest change kept, over the belt by some 60 levels
    const drop = (f: GrayFrame, x: number, y0: number, length: number) => {
      for (let y = y0; y < y0 + length; y++) f.data[y * W + x] = Math.round(f.data[y * W + x]! + 0.5 * (225 - f.data[y * W + x]!));
    };
    const evidence = (dark: (x: number, y: number) => boolean, drops: number) => {
      const tracker = new PrecipitationTracker(schedule);
      const rnd = random(29);
      for (let k = 0; k < 10; k++) {
        const f = frame((x, y) => (dark(x, y) ? belt(x, y) : wall));
        for (let d = 0; d < drops; d++) drop(f, 8 + Math.floor(rnd() * (W - 16)), 8 + Math.floor(rnd() * (H - 24)), 6 + Math.floor(rnd() * 7));
        tracker.push(f);
      }
      return tracker.evidence();
    };
    const wholeView = (e: { streakSpread: number }, shown: number) => e.streakSpread * shown; // the share of all the grid's cells
    // the belt: the lower third of the view; the drizzle's streaks over it mark under a sixth of the whole grid
    const drizzle = evidence((_, y) => y >= (2 * H) / 3, 30);
    expect(drizzle.maps).to.equal(4);
    expect(wholeView(drizzle, 1 / 3)).to.be.below(PRECIPITATION_SPREAD);
    expect(drizzle.streakSpread).to.be.at.least(PRECIPITATION_SPREAD);
    expect(precipitationScore(drizzle)).to.be.at.least(0.5);
    // a dark patch of four of the grid's cells in a white view: whatever thin things change there, no rain
    const patch = evidence((x, y) => x >= 108 && x < 159 && y >= 61 && y < 99, 200);
    expect(precipitationScore(patch)).to.equal(0);
  });

  it('streaks count where they fall parallel (rain, slanted by wind); thin transients leaning every way (the edges of twigs jittering in wind) are no rain', () => {
    const schedule = { every: 5, length: 5, runs: 4 };
    const evidence = (lean: (rnd: () => number) => number) => {
      const tracker = new PrecipitationTracker(schedule);
      const rnd = random(17);
      for (let k = 0; k < 10; k++) {
        const f = frame(view);
        for (let d = 0; d < 150; d++) {
          const x0 = 30 + Math.floor(rnd() * (W - 60)), y0 = 10 + Math.floor(rnd() * (H - 30)), length = 5 + Math.floor(rnd() * 8);
          const slope = Math.tan(lean(rnd));
          for (let t = 0; t < length; t++) f.data[(y0 + t) * W + x0 + Math.round(t * slope)] = 210;
        }
        tracker.push(f);
      }
      return tracker.evidence();
    };
    const rain = evidence((rnd) => 0.2 + (rnd() - 0.5) * 0.15);
    expect(rain.streakSpread).to.be.above(0.5);
    expect(precipitationScore(rain)).to.be.above(0.5);
    // evenly over the 40 degrees either side of the vertical: each as thin and short-lived as a drop
    const edges = evidence((rnd) => (rnd() - 0.5) * 1.4);
    expect(edges.streakSpread).to.be.below(PRECIPITATION_SPREAD);
    expect(precipitationScore(edges)).to.equal(0);
  });

  it('flakes are told against a place that stays: snow over a lawn is snow; bright specks of sky between twigs jittering in wind, each hopping with the twigs around it, are no snow', () => {
    const schedule = { every: 5, length: 5, runs: 4 };
    const rnd = random(23);
    const lawn = scene(5, 0.2);
    const leaves = scene(13); // boughs and twigs
    /** a tree's crown over the left 60 % of the view, each 16 px block of it jittered by up to 3 px its own way, before a still, pale sky */
    const crown = (): GrayFrame => {
      const f: GrayFrame = { data: new Uint8Array(W * H).fill(190), width: W, height: H };
      for (let by = 0; by < H; by += 16) {
        for (let bx = 0; bx < 0.6 * W; bx += 16) {
          const ox = 4 + Math.round((rnd() - 0.5) * 6), oy = 4 + Math.round((rnd() - 0.5) * 6);
          for (let y = by; y < Math.min(H, by + 16); y++) for (let x = bx; x < Math.min(W, bx + 16); x++) f.data[y * W + x] = leaves(x + ox, y + oy);
        }
      }
      return f;
    };
    const evidence = (view: () => GrayFrame, across: number, step: (speed: number) => { dx: number; dy: number }) => {
      const tracker = new PrecipitationTracker(schedule);
      const specks = Array.from({ length: 120 }, () => ({ x: 20 + rnd() * (across - 40), y: 10 + rnd() * (H - 60), speed: 4 + rnd() * 4 }));
      for (let k = 0; k < 10; k++) {
        const f = view();
        for (const speck of specks) {
          draw(f, Math.round(speck.x), Math.round(speck.y), 3, 3, 235);
          const { dx, dy } = step(speck.speed);
          speck.x = Math.min(across - 10, Math.max(10, speck.x + dx));
          speck.y = speck.y + dy > H - 10 ? 10 + rnd() * 20 : Math.max(10, speck.y + dy); // a flake out at the bottom, a new one at the top
        }
        tracker.push(f);
      }
      return tracker.evidence();
    };
    // the wind drifts each flake 0.15 rad from the vertical, give or take 0.1; nearer ones fall faster
    const snow = evidence(() => frame(lawn), W, (speed) => {
      const angle = 0.15 + (rnd() - 0.5) * 0.2;
      return { dx: speed * Math.sin(angle), dy: speed * Math.cos(angle) };
    });
    expect(snow.flakeSpread).to.be.above(PRECIPITATION_SPREAD);
    expect(precipitationScore(snow)).to.be.above(0.5);
    // each speck anywhere within 8 px of where it was, the twigs about it jittering too
    const specks = evidence(crown, 0.6 * W, () => ({ dx: (rnd() - 0.5) * 16, dy: (rnd() - 0.5) * 16 }));
    expect(specks.flakeSpread).to.be.below(PRECIPITATION_SPREAD);
    expect(precipitationScore(specks)).to.equal(0);
  });

  it('a view dry over its first two runs is dry: the later runs are not analysed; a wet one is analysed throughout', () => {
    const schedule = { every: 5, length: 5, runs: 4 };
    const dryFirst = new PrecipitationTracker(schedule);
    const wet = new PrecipitationTracker(schedule);
    const rnd = random(13);
    const rain = (f: GrayFrame) => {
      for (let d = 0; d < 150; d++) draw(f, 10 + Math.floor(rnd() * (W - 20)), 10 + Math.floor(rnd() * (H - 30)), 1, 5 + Math.floor(rnd() * 8), 210);
      return f;
    };
    for (let k = 0; k < 20; k++) {
      // a slow pan: every sample differs from the last (a repeated one is left out of a run)
      dryFirst.push(k < 10 ? frame(view, k, 0) : rain(frame(view, k, 0)));
      wet.push(rain(frame(view, k, 0)));
    }
    // the dry runs show no transient anywhere (transientSpread), so they count as dry without a map
    expect(dryFirst.evidence().maps).to.equal(0);
    expect(precipitationScore(dryFirst.evidence())).to.equal(0);
    expect(wet.evidence().maps).to.equal(8);
    expect(precipitationScore(wet.evidence())).to.be.above(0.5);
  });

  it('gives each sample\'s pixels back once, when its run is done with them or it is left out', () => {
    const given: Array<{ pixels: Uint8Array; pushed: number }> = [];
    let pushed = 0;
    const tracker = new PrecipitationTracker({ every: 5, length: 5, runs: 4 }, (pixels) => given.push({ pixels, pushed }));
    const rnd = random(17);
    const frames: GrayFrame[] = [];
    for (let k = 0; k < 30; k++) {
      // a repeated sample (left out of its run at once), then runs of rain (analysed) and dry ones (until the view is dry)
      const f = k === 3 ? { ...frames[2]!, data: frames[2]!.data.slice() } : frame(view, k, 0);
      if (k < 10 && k !== 3) for (let d = 0; d < 150; d++) draw(f, 10 + Math.floor(rnd() * (W - 20)), 10 + Math.floor(rnd() * (H - 30)), 1, 5 + Math.floor(rnd() * 8), 210);
      frames.push(f);
      pushed++;
      tracker.push(f);
    }
    expect(given).to.have.length(frames.length);
    expect(new Set(given.map((g) => g.pixels)).size).to.equal(frames.length);
    for (const [k, f] of frames.entries()) {
      const back = given.find((g) => g.pixels === f.data)!;
      // the repeat at once; a run's samples once the run is complete (a run of five pushes), never before they were pushed
      expect(back.pushed).to.equal(k === 3 ? 4 : Math.ceil((k + 1) / 5) * 5);
    }
    // a view dry over its first two runs: the samples after are given back as they come
    const dry: number[] = [];
    const dryTracker = new PrecipitationTracker({ every: 5, length: 5, runs: 4 }, (pixels) => dry.push(pixels[0]!));
    for (let k = 0; k < 20; k++) {
      const f = frame(view, k, 0);
      f.data[0] = k; // which sample it was
      dryTracker.push(f);
      expect(dry).to.have.length(k < 10 ? Math.floor((k + 1) / 5) * 5 : k + 1);
    }
    expect(dry).to.deep.equal(Array.from({ length: 20 }, (_, k) => k));
  });

  it('a source that repeats its frames leaves its runs short of distinct samples: its rate is told, and runs scheduled for it see the rain', () => {
    // a recorder's file sending each of the camera's frames twice over the samples: rain in every new frame
    const rnd = random(19);
    const rainyFrames = Array.from({ length: 20 }, (_, k) => {
      const f = frame(view, k, 0);
      for (let d = 0; d < 150; d++) draw(f, 10 + Math.floor(rnd() * (W - 20)), 10 + Math.floor(rnd() * (H - 30)), 1, 5 + Math.floor(rnd() * 8), 210);
      return f;
    });
    const repeated = (k: number) => ({ ...rainyFrames[k >> 1]!, data: rainyFrames[k >> 1]!.data.slice() });
    const first = new PrecipitationTracker({ every: 10, length: 5, runs: 4 });
    for (let k = 0; k < 20; k++) first.push(repeated(k));
    expect(first.evidence().maps).to.equal(0); // runs of two or three distinct samples
    const rate = first.repeatingRate(10)!;
    expect(rate).to.equal(5); // each frame twice: half of the samples compared with the one before repeated it (a run's first is compared with none)
    const { length } = precipitationSchedule(40, 10, rate);
    expect(length).to.equal(10);
    const again = new PrecipitationTracker(backToBack(length)); // as motion.ts looks again, on a decode of its own
    for (let k = 0; k < 40; k++) {
      expect(again.seenEnough()).to.equal(false); // wet: until its four runs are taken
      again.push(repeated(k));
    }
    expect(again.seenEnough()).to.equal(true);
    expect(again.evidence().maps).to.equal(8); // four runs of five distinct samples
    expect(precipitationScore(again.evidence())).to.be.above(0.5);
    expect(again.repeatingRate(10)).to.equal(undefined);
    // a source of its own rate, or one that never changes (no run short by repeats: one sample)
    const own = new PrecipitationTracker({ every: 10, length: 5, runs: 4 });
    for (let k = 0; k < 20; k++) own.push(rainyFrames[k]!);
    expect(own.repeatingRate(10)).to.equal(undefined);
    const frozen = new PrecipitationTracker({ every: 10, length: 5, runs: 4 });
    for (let k = 0; k < 20; k++) frozen.push(frame(view, 0, 0));
    expect(frozen.repeatingRate(10)).to.equal(undefined);
    // a dry view has been seen enough after its first two runs
    const dry = new PrecipitationTracker({ every: 5, length: 5, runs: 4 });
    for (let k = 0; k < 10; k++) {
      expect(dry.seenEnough()).to.equal(false);
      dry.push(frame(view, k, 0));
    }
    expect(dry.seenEnough()).to.equal(true);
  });

  it('a still view whose frames come within a repeat of each other, a thing moving in one place: its short runs are still, it is dry and no rate is told', () => {
    // each frame twice, as a clean still view's are within DUPLICATE; a new one only where a thing moved (a spider on a wall)
    const moving = Array.from({ length: 10 }, (_, k) => draw(frame(view, 0, 0), 20 + 3 * k, 20, 12, 12, 250));
    const tracker = new PrecipitationTracker({ every: 10, length: 5, runs: 4 });
    for (let k = 0; k < 10; k++) {
      expect(tracker.seenEnough()).to.equal(false);
      tracker.push({ ...moving[k >> 1]!, data: moving[k >> 1]!.data.slice() });
    }
    expect(tracker.seenEnough()).to.equal(true); // dry after two still runs: no second decode
    expect(tracker.repeatingRate(10)).to.equal(undefined);
    expect(tracker.evidence().maps).to.equal(0);
    expect(precipitationScore(tracker.evidence())).to.equal(0);
    expect(changeSpread(moving.slice(0, 3))).to.be.below(PRECIPITATION_SPREAD / 2);
  });

  it('a run is analysed only where a sixth of the view could show drops: a change that stays is no transient, nor are a few specks', () => {
    const rnd = random(5);
    const run = (change: (f: GrayFrame, k: number) => GrayFrame) => Array.from({ length: 5 }, (_, k) => change(frame(view, 0, 0), k));
    const still = run((f) => f);
    // a keyframe's new quantisation, or a light switched on: every pixel 8 levels up from the third sample on, and it stays
    const stepped = run((f, k) => {
      if (k >= 2) for (let i = 0; i < f.data.length; i++) f.data[i] = Math.min(255, f.data[i]! + 8);
      return f;
    });
    // a moth's few specks: one corner of the view, a new place each sample
    const specks = run((f) => draw(f, 20 + Math.floor(rnd() * 40), 20 + Math.floor(rnd() * 20), 2, 2, 250));
    // drizzle: 150 thin streaks all over the view, new ones each sample
    const drizzle = run((f) => {
      for (let d = 0; d < 150; d++) draw(f, 10 + Math.floor(rnd() * (W - 20)), 10 + Math.floor(rnd() * (H - 30)), 1, 5 + Math.floor(rnd() * 8), 210);
      return f;
    });
    expect(transientSpread(still)).to.equal(0);
    expect(transientSpread(stepped)).to.equal(0);
    expect(transientSpread(specks)).to.be.above(0).and.below(PRECIPITATION_SPREAD / 2);
    expect(transientSpread(drizzle)).to.be.above(0.9);
    // counted only until the dry mark is passed: the run is analysed either way
    const early = transientSpread(drizzle, PRECIPITATION_SPREAD / 2);
    expect(early).to.be.at.least(PRECIPITATION_SPREAD / 2).and.below(transientSpread(drizzle));
    expect(transientSpread(specks, PRECIPITATION_SPREAD / 2)).to.equal(transientSpread(specks));
    const analysed = (frames: GrayFrame[]) => {
      const tracker = new PrecipitationTracker({ every: 5, length: 5, runs: 4 });
      for (const f of frames) tracker.push(f);
      return tracker.evidence().maps;
    };
    expect([still, stepped, specks, drizzle].map(analysed)).to.deep.equal([0, 0, 0, 2]);
    // a still run before the rain weighs in the spreads as the two dry maps it would have given
    const wetThen = new PrecipitationTracker({ every: 5, length: 5, runs: 4 });
    const wetOnly = new PrecipitationTracker({ every: 5, length: 5, runs: 4 });
    for (const f of [...still, ...drizzle, ...drizzle]) wetThen.push(f);
    for (const f of [...drizzle, ...drizzle]) wetOnly.push(f);
    expect(wetThen.evidence().maps).to.equal(4);
    expect(wetThen.evidence().streakSpread).to.be.above(0).and.at.most(wetOnly.evidence().streakSpread);
  });

  it('the drops\' light: streaks brighter than what they cross (lit), darker against a bright sky, and 0.5 where nothing falls', () => {
    const schedule = { every: 5, length: 5, runs: 4 };
    const lit = new PrecipitationTracker(schedule);
    const againstSky = new PrecipitationTracker(schedule);
    const dry = new PrecipitationTracker(schedule);
    const rnd = random(12);
    const sky = () => frame(() => 225);
    for (let k = 0; k < 10; k++) {
      const f = frame(view, 0, 0);
      const g = sky();
      for (let d = 0; d < 150; d++) {
        const x = 10 + Math.floor(rnd() * (W - 20)), y = 10 + Math.floor(rnd() * (H - 30)), h = 5 + Math.floor(rnd() * 8);
        draw(f, x, y, 1, h, 210);
        draw(g, x, y, 1, h, 150);
      }
      lit.push(f);
      againstSky.push(g);
      dry.push(frame(view, 0, 0));
    }
    expect(lit.evidence().bright).to.be.above(0.9);
    expect(againstSky.evidence().bright).to.be.below(0.1);
    expect(dry.evidence().bright).to.equal(0.5);
  });

  it('a downpour at night, its streaks merged: none stands apart, but the change is a texture of streaks falling one way over the whole view', () => {
    const samples = [1, 2, 3].map((seed) => nightRain(seed, 3000));
    const map = transientMap(samples[0]!, samples[1]!, samples[2]!, still, still);
    // each pixel sees drops so often that the pixel of slack around it holds one, and the
    // changes are so many that the noise they are measured against is taken for tens of levels
    expect(cellSpread(particles(map).filter((p) => isStreak(p, W)), W, H)).to.be.below(PRECIPITATION_SPREAD);
    expect(fallingTexture(samples[0]!, samples[1]!, samples[2]!, still, still)).to.be.above(2 * PRECIPITATION_SPREAD);
    // as rain, over a run
    const tracker = new PrecipitationTracker({ every: 5, length: 5, runs: 4 });
    for (let k = 0; k < 5; k++) tracker.push(nightRain(20 + k, 3000));
    expect(precipitationScore(tracker.evidence())).to.be.above(0.5);
  });

  it('no texture of falling streaks in heavy snow, a walker, fine vertical texture under a pan, or a still view', () => {
    const texture = (f: (k: number) => GrayFrame, shifts = [still, still]) => fallingTexture(f(0), f(1), f(2), shifts[0]!, shifts[1]!);
    // heavy snow: round flakes 2 to 4 px across, everywhere, in new places every sample
    const snow = (k: number) => {
      const rnd = random(40 + k);
      const f = frame(scene(3, 0.1), 0, 0);
      for (let n = 0; n < 1500; n++) draw(f, Math.floor(rnd() * (W - 4)), Math.floor(rnd() * (H - 4)), 2 + Math.floor(rnd() * 3), 2 + Math.floor(rnd() * 3), 200 + Math.floor(rnd() * 40));
      return f;
    };
    expect(texture(snow)).to.be.below(PRECIPITATION_SPREAD);
    // a walker crossing the view (tall and thin: vertical edges)
    expect(texture((k) => draw(frame(view), 100 + 6 * k, 50, 12, 60, 30))).to.be.below(PRECIPITATION_SPREAD);
    // grass or hair (fine vertical stripes) under a pan of a pixel and a half a sample: the
    // alignment to the pixel leaves half a pixel of each edge
    const stripes = (x: number, y: number) => Math.round(120 + 60 * Math.sin(x * 1.3) + 20 * Math.sin(y * 0.05));
    const panned = (k: number) => frame(stripes, 1.5 * k, 0);
    const shift = { dx: -1.5, dy: 0 };
    expect(texture(panned, [shift, shift])).to.be.below(PRECIPITATION_SPREAD);
    expect(texture(() => frame(view))).to.equal(0);
  });
});
