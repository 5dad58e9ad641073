// Rain and snow seen in the pixels that show them. At the motion pass's 96 px a raindrop is
// below a pixel; here a few runs of consecutive samples are looked at 320 px wide, where drops
// are streaks a pixel or two wide and flakes are small blobs. The physics followed:
// - a raindrop crosses the view within one exposure: it is a thin streak along its fall, brighter
//   (or, against a bright sky, darker) than both the sample before and the sample after, and the
//   next drops land elsewhere, so a streak does not come back in the same place;
// - a snowflake falls slowly: a small bright blob that was a little higher in the sample before;
// - both are spread over the whole view, unlike a walker, a car or a branch;
// - in a downpour (and at night, where the illuminator lights every drop near the lens) the
//   streaks are so many that they merge and each pixel sees drops often: no streak stands apart,
//   but what changed is still a texture of parallel streaks, its gradients across the fall far
//   stronger than along it, all over the view (rain puts an image's energy along one orientation:
//   Barnum, Narasimhan and Kanade, "Analysis of rain and snow in frequency space", 2010). Snow,
//   leaves, noise and walkers change the view in every direction, or only in places.
// The camera's own movement is taken out first (a global shift: the median of matched blocks),
// and every gray-level threshold rests on the clip's own noise.
import type { DropLight } from './pixel-median.js';
import { ABS_GAUSSIAN_QUARTILE, histogramLevel, median, sortedMedian } from '../core/median.js';

/** width the samples are analysed at: drops are a pixel or two wide here (at 96 px they vanish) */
export const PRECIPITATION_WIDTH = 320;
/** the grid over which spread is counted (the motion pass's) */
const GRID_X = 12;
const GRID_Y = 9;
/**
 * Runs of samples analysed per clip, evenly spaced: each run is five consecutive distinct samples
 * giving two transient maps two samples apart. Weather is everywhere all the time, so a few runs
 * give the median its footing, and the cost stays bounded on long clips.
 */
const RUNS = 4;
const RUN = 5;
/**
 * ...but once this many maps show nothing near rain or snow (no spread of streaks or flakes up to
 * half of PRECIPITATION_SPREAD), the view is dry: the later runs are not analysed. Weather is
 * everywhere all the time; a clip it leaves dry in its first runs does not turn wet later.
 */
const DRY_MAPS = 4;
/**
 * Precipitation is seen over at least a sixth of the part of the view where it can show (the
 * share of the 12x9 grid's cells holding a streak or a falling flake, over the share where such
 * drops stand out: canShow). Rain falls everywhere but shows only where the background is darker
 * (or brighter) than the drops: against a pale wall or a white sky it vanishes, and drizzle over
 * a dark belt before a white wall marks a sixth of the view's cells at most. The thin edges of
 * one walker, car or branch hold a few cells (under 5 % of the grid).
 */
export const PRECIPITATION_SPREAD = 1 / 6;
/**
 * ...where the part that can show counts as at least this share of the view: a sixth of it is
 * then 5 % of the grid, more than the thin edges of one walker, car or branch hold.
 */
const FEWEST_SHOWING = 0.05 / PRECIPITATION_SPREAD;
/** when most transients come back in the same place two samples later, they are a flicker at fixed places, not drops */
const FLICKER = 0.5;
/** a sample whose mean difference from the last one is under this many gray levels repeats it (a low-rate camera, a re-encode) */
const DUPLICATE = 0.05;
/**
 * The smallest change kept, in gray levels: an encoder at the quality cameras record quantises
 * away changes of a few levels, so below about 2.5 % of the range a change is as likely to be the
 * compression's as the scene's. Above it, the clip's own noise sets the threshold.
 */
const FLOOR = 6;
/** a transient stands this many times the noise of a temporal difference above it (about 1 in 1000 for Gaussian noise) */
const NOISE_FACTOR = 3;
/**
 * Streak shape at 320 px. A drop (at most 6 mm) is a pixel wide on any view wider than 2 m; the
 * optics and the scaling blur it by a pixel each side: at most 3 px wide.
 */
const STREAK_WIDTH = 3;
/** ...it falls several pixels during the exposure: at least 3 px long, twice as long as it is wide... */
const STREAK_LENGTH = 3;
const STREAK_ELONGATION = 2;
/**
 * ...and at most a seventh of the width: a drop falls at most 9 m/s, some 30 cm in a 1/30 s
 * exposure, and the nearest drops in focus are where the view is at least 2 m wide. Longer thin
 * things are edges of objects.
 */
const STREAK_MAX_LENGTH = 1 / 7;
/** wind slants rain, but it still falls: within 45 degrees of the vertical */
const STREAK_MAX_TILT = Math.PI / 4;
/**
 * A flake: a bright blob at most 8 px across at 320 px (flakes are 1 to 6 px on a camera's view,
 * more when they pass close to the lens), found in the sample before...
 */
const FLAKE_AREA = 64;
/** ...and of two pixels or more: a lone pixel is as likely the sensor's or the encoder's noise */
const FLAKE_MIN_AREA = 2;
/** ...at most an eighth of the frame height away (as the camera's shift: a tenth of a second moves nothing further)... */
const FLAKE_REACH = 1 / 8;
/** ...and at least 2 px lower (beyond the pixel of misalignment every comparison allows): it fell. */
const FLAKE_FALL = 2;
/** flake candidates matched per map, at most (the matching is the costly part) */
const FLAKES_MATCHED = 24;
/**
 * A cell's change is a texture of streaks when its gradients across the fall carry at least twice
 * the energy of those along it, as the edges of a streak twice as long as it is wide do
 * (STREAK_ELONGATION): a coherence (l1 - l2) / (l1 + l2) of the change's structure tensor of at
 * least (2 - 1) / (2 + 1). Noise, flakes and leaves change a cell in every direction (near 0).
 */
const TEXTURE_COHERENCE = (STREAK_ELONGATION - 1) / (STREAK_ELONGATION + 1);
/** ...where the change is seen: changes of at least FLOOR, on average at least half of it per pixel */
const TEXTURE_CHANGE = FLOOR / 2;
/** ...and it falls as the rest of the view's rain does: within this of their median direction (rain falls parallel; gusts and perspective bend it a little) */
const TEXTURE_AGREEMENT = Math.PI / 12;
/**
 * Rain falls parallel: a sample's streaks count when two thirds or more of them lean within
 * TEXTURE_AGREEMENT of their median direction. Thin transients that lean every way, as the
 * edges of twigs jittering in wind do, put a third there (30 of the 90 degrees a streak may
 * lean): two thirds is halfway from that to rain's all.
 */
const STREAKS_PARALLEL = 2 / 3;
/**
 * What is behind a drop stays: where the samples either side of a map agree with each other
 * (within its threshold) over at least this share of a streak's pixels, it can be a drop. A
 * body seen a third of a second apart moved far: its thin parts (hair, a strap, a sleeve's
 * edge) stand out of both neighbours as drops do, but the neighbours differ there, one showing
 * the body where it was, the other where it went.
 */
const SETTLED = 1 / 2;
/** pixels at the border left out: the shift leaves them without a neighbour, and logos sit there */
const BORDER = 6;

export interface GrayFrame {
  data: Uint8Array;
  width: number;
  height: number;
  /** filled on first use: the frame shrunk for the shift's coarse search */
  coarse?: GrayFrame;
}

export interface Shift {
  dx: number;
  dy: number;
}

/** What the samples show of rain and snow, and of the camera's own motion. */
export interface PrecipitationEvidence {
  /** transient maps analysed (0: the clip was too short or never changed) */
  maps: number;
  /**
   * The camera's own motion: the median global shift between consecutive distinct samples of
   * the runs analysed, in px per sample at PRECIPITATION_WIDTH (a still camera is under 1; a slow
   * pan a few px); 0 when none was (no run showed a transient over enough of the view).
   */
  pan: number;
  /**
   * Of the pixels transient in a sample (differing from both neighbours), the share transient
   * again at the same place two samples later (median over the runs). Raindrops and flakes land
   * elsewhere each time (near 0); leaves and compression blocks flicker in place (0.5 and more).
   */
  repeat: number;
  /** median share of the grid's cells holding at least one streak (a thin short-lived streak along a fall), or a texture of streaks merged (a downpour) */
  streakSpread: number;
  /** median share of the frame's area in streaks */
  streakArea: number;
  /** median share of the grid's cells holding a falling flake (cells with a flake candidate x the share of those matched found falling) */
  flakeSpread: number;
  /** the noise of a temporal difference, in gray levels (median of the maps' robust estimates of its sigma) */
  noise: number;
  /**
   * Of the streaks' and flake candidates' area, the share brighter than the samples either side
   * (median over the maps that hold any; 0.5 when none does). A drop scatters light from all
   * around into the camera, so it is brighter than what it crosses, lit by the day or by an
   * infrared illuminator at night; only against a bright sky is it darker.
   */
  bright: number;
}

/** A frame shrunk by `factor` in each direction (the mean of each factor x factor block). */
export function shrink(frame: GrayFrame, factor: number): GrayFrame {
  const { data: pixels, width: from } = frame;
  const width = Math.floor(from / factor);
  const height = Math.floor(frame.height / factor);
  const data = new Uint8Array(width * height);
  const sums = new Uint32Array(width);
  const block = factor * factor;
  for (let y = 0; y < height; y++) {
    sums.fill(0);
    for (let ky = 0; ky < factor; ky++) {
      // each block's row of pixels summed in a register, walking the row once (a third of the time
      // of indexing each pixel from the block's corner)
      for (let x = 0, i = (y * factor + ky) * from; x < width; x++) {
        let sum = 0;
        for (let end = i + factor; i < end; i++) sum += pixels[i]!;
        sums[x] += sum;
      }
    }
    for (let x = 0, row = y * width; x < width; x++) data[row + x] = Math.round(sums[x]! / block);
  }
  return { data, width, height };
}

/** Mean absolute difference of a block of `a` at (x, y) and `b` at (x + dx, y + dy), every `step`th pixel. */
function blockDifference(a: GrayFrame, b: GrayFrame, x: number, y: number, size: number, dx: number, dy: number, step: number): number {
  let sum = 0;
  let count = 0;
  for (let ky = 0; ky < size; ky += step) {
    const ra = (y + ky) * a.width + x;
    const rb = (y + ky + dy) * b.width + x + dx;
    for (let kx = 0; kx < size; kx += step) {
      sum += Math.abs(a.data[ra + kx]! - b.data[rb + kx]!);
      count++;
    }
  }
  return sum / count;
}

/**
 * The offset of a block of `a` in `b` with the least difference, within `reach` of (cx, cy) and
 * inside `b`, and the costs of its four neighbours (for a fraction of a pixel).
 */
function bestOffset(a: GrayFrame, b: GrayFrame, x: number, y: number, size: number, cx: number, cy: number, reach: number, step: number) {
  const span = 2 * reach + 1;
  const costs = new Float64Array(span * span).fill(Infinity);
  let best = Infinity;
  let bx = cx;
  let by = cy;
  for (let dy = Math.max(cy - reach, -y); dy <= Math.min(cy + reach, b.height - size - y); dy++) {
    for (let dx = Math.max(cx - reach, -x); dx <= Math.min(cx + reach, b.width - size - x); dx++) {
      const cost = blockDifference(a, b, x, y, size, dx, dy, step);
      costs[(dy - cy + reach) * span + dx - cx + reach] = cost;
      if (cost < best || (cost === best && Math.abs(dx) + Math.abs(dy) < Math.abs(bx) + Math.abs(by))) {
        best = cost;
        bx = dx;
        by = dy;
      }
    }
  }
  const at = (dx: number, dy: number) => costAt(costs, span, dx - cx + reach, dy - cy + reach);
  const around = { left: at(bx - 1, by), right: at(bx + 1, by), up: at(bx, by - 1), down: at(bx, by + 1) };
  return { dx: bx, dy: by, centre: best, typical: finiteMedian(costs), ...around }; // the median last: it sorts the costs
}

/** The median of the costs tried (those not Infinity): sorted in place by the typed array's own numeric sort, no comparator called per pair. */
function finiteMedian(costs: Float64Array): number {
  costs.sort(); // Infinity last
  let n = costs.length;
  while (n > 0 && costs[n - 1] === Infinity) n--;
  return sortedMedian(costs, n);
}

/** The cost at column i, row j of a search's span x span costs; undefined outside it or where not tried. */
function costAt(costs: Float64Array, span: number, i: number, j: number): number | undefined {
  return i < 0 || j < 0 || i >= span || j >= span || costs[j * span + i] === Infinity ? undefined : costs[j * span + i]!;
}

/** The vertex of the parabola through three costs around the middle one (a fraction of a pixel), 0 when flat. */
function subPixel(left: number | undefined, centre: number, right: number | undefined): number {
  if (left === undefined || right === undefined) return 0;
  const curvature = left - 2 * centre + right;
  return curvature > 0 ? Math.max(-0.5, Math.min(0.5, (left - right) / (2 * curvature))) : 0;
}

/** the coarse search for the camera's shift runs on frames shrunk by this factor */
const SHIFT_COARSE = 4;
/** blocks matched for the camera's shift: a 3x2 grid (a walker or a conveyor moves one or two of them), each a sixth of the frame's height */
const SHIFT_BLOCKS_X = 3;
const SHIFT_BLOCKS_Y = 2;
/** the fine match reads every 4th pixel of every 4th row of its block: some fifty pixels of texture decide it */
const SHIFT_FINE_STEP = 4;
/** a coarse offset counts when it costs at most this share of the typical offset searched (explained) */
const SHIFT_MATCH = 0.5;
/** a block flatter than this (mean absolute gradient, gray levels) has nothing to match (a plain wall, the sky) */
const SHIFT_TEXTURE = 2;

/**
 * A block's coarse offset counts when it stands out of the search: a moved view matches in one
 * place, leaving only noise there, far better than at the offsets around. Rain or snow over a
 * dark, plain view is texture of its own, but its drops are gone by the next sample: they match
 * nowhere, every offset costs about the same, and the least of them is chance (on the frames the
 * tests draw, 0.6 to 0.85 of the typical cost, against 0.1 to 0.25 for a panned view). Taken for
 * the camera's motion, that chance would lay the rain of one sample onto the next's: the block
 * stays put, and the fine search around it takes its fraction of a pixel.
 */
function explained(best: ReturnType<typeof bestOffset>): ReturnType<typeof bestOffset> {
  if (best.centre <= best.typical * SHIFT_MATCH) return best;
  return { ...best, dx: 0, dy: 0 };
}

/**
 * The camera's shift from frame a to frame b (b(x, y) ~ a(x - dx, y - dy)): blocks on a grid are
 * matched (coarse on frames shrunk 4 times, then to the pixel and a fraction), and the median of
 * their shifts is the camera's: a walker, a conveyor or drops move some blocks, the view moves
 * them all. Shifts beyond an eighth of the frame are not looked for (a sample is a tenth of a
 * second), and flat blocks, which match anywhere, do not vote.
 */
export function globalShift(a: GrayFrame, b: GrayFrame): Shift {
  const ca = (a.coarse ??= shrink(a, SHIFT_COARSE));
  const cb = (b.coarse ??= shrink(b, SHIFT_COARSE));
  const size = Math.max(4, Math.floor(ca.height / 6));
  const reach = Math.max(1, Math.ceil(ca.width / 32)); // an eighth of the frame, at a quarter of its size
  const votes: Shift[] = [];
  for (let by = 0; by < SHIFT_BLOCKS_Y; by++) {
    for (let bx = 0; bx < SHIFT_BLOCKS_X; bx++) {
      const x = Math.round(((bx + 0.5) * ca.width) / SHIFT_BLOCKS_X - size / 2);
      const y = Math.round(((by + 0.5) * ca.height) / SHIFT_BLOCKS_Y - size / 2);
      let texture = 0;
      for (let ky = 0; ky < size; ky++) {
        for (let kx = 0; kx < size - 1; kx++) texture += Math.abs(ca.data[(y + ky) * ca.width + x + kx + 1]! - ca.data[(y + ky) * ca.width + x + kx]!);
      }
      if (texture / (size * (size - 1)) < SHIFT_TEXTURE) continue;
      const coarse = explained(bestOffset(ca, cb, x, y, size, 0, 0, reach, 1));
      // to the pixel on the full frames: the block's full-size counterpart, searched a coarse pixel around
      const fx = x * SHIFT_COARSE;
      const fy = y * SHIFT_COARSE;
      const fsize = size * SHIFT_COARSE;
      // a coarse pixel's centre is within half of it of the shift
      const fine = bestOffset(a, b, fx, fy, fsize, coarse.dx * SHIFT_COARSE, coarse.dy * SHIFT_COARSE, SHIFT_COARSE / 2, SHIFT_FINE_STEP);
      votes.push({ dx: fine.dx + subPixel(fine.left, fine.centre, fine.right), dy: fine.dy + subPixel(fine.up, fine.centre, fine.down) });
    }
  }
  if (votes.length === 0) return { dx: 0, dy: 0 }; // nothing to match: a flat view shows no motion of its own either
  return { dx: median(votes.map((v) => v.dx)), dy: median(votes.map((v) => v.dy)) };
}

/** Mean absolute difference of two frames, on every fourth pixel (enough to tell a repeated frame). */
export function meanDifference(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  let count = 0;
  for (let i = 0; i < a.length; i += 4) {
    sum += Math.abs(a[i]! - b[i]!);
    count++;
  }
  return count ? sum / count : 0;
}

export interface TransientMap {
  width: number;
  height: number;
  /** per pixel, how far it stands out from both neighbours in time, in gray levels, where that is above the threshold (else 0) */
  level: Uint8Array;
  /** the pixels above the threshold (indexes, row by row): the few that the later steps look at */
  transients: number[];
  /** 1 where the sample is brighter than both neighbours, 0 where darker */
  bright: Uint8Array;
  /** 1 where the neighbours agree with each other (within the threshold): what is behind a drop stayed */
  settled: Uint8Array;
  /** the noise of a temporal difference here (sigma, from the lower quartile of the absolute differences from the previous sample) */
  noise: number;
  /** levels above this are transient: the noise's NOISE_FACTOR times, at least FLOOR */
  threshold: number;
  /** the valid area: x0 <= x < x1, y0 <= y < y1 */
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/**
 * The neighbours of `cur` in time laid onto it by the camera's shift, to the pixel: prev(x - dx)
 * lands on cur(x), cur(x) on next(x + dx); and the area where both have a pixel, BORDER inside.
 */
function aligned(cur: GrayFrame, fromPrev: Shift, toNext: Shift) {
  const { width, height } = cur;
  const pdx = -Math.round(fromPrev.dx);
  const pdy = -Math.round(fromPrev.dy);
  const ndx = Math.round(toNext.dx);
  const ndy = Math.round(toNext.dy);
  const x0 = Math.max(0, BORDER + Math.max(0, -pdx, -ndx));
  const x1 = Math.max(x0, width - BORDER - Math.max(0, pdx, ndx));
  const y0 = Math.max(0, BORDER + Math.max(0, -pdy, -ndy));
  const y1 = Math.max(y0, height - BORDER - Math.max(0, pdy, ndy));
  return { pdx, pdy, ndx, ndy, x0, x1, y0, y1 };
}

/**
 * How far each pixel of `cur` stands out from both its neighbours in time, each laid onto it by
 * the camera's shift and allowed a pixel of misalignment (its 3x3 extremes): brighter than the
 * brightest of both, or darker than the darkest. The edges of a pan or of a moving object are
 * where one neighbour already was, so they mostly cancel; a drop is in neither.
 */
export function transientMap(prev: GrayFrame, cur: GrayFrame, next: GrayFrame, fromPrev: Shift, toNext: Shift): TransientMap {
  const { width, height, data } = cur;
  const pd = prev.data;
  const nd = next.data;
  const { pdx, pdy, ndx, ndy, x0, x1, y0, y1 } = aligned(cur, fromPrev, toNext);
  // The noise: the lower quartile of the absolute differences from the aligned previous sample
  // (every other pixel of every other row), over that of a Gaussian's (ABS_GAUSSIAN_QUARTILE). It holds
  // while drops change up to three quarters of the view, where a median would take a downpour
  // for the camera's noise.
  const histogram = new Uint32Array(256);
  let counted = 0;
  for (let y = y0; y < y1; y += 2) {
    const row = y * width;
    const prow = (y + pdy) * width + pdx;
    for (let x = x0; x < x1; x += 2) {
      histogram[Math.abs(data[row + x]! - pd[prow + x]!)]++;
      counted++;
    }
  }
  const noise = histogramLevel(histogram, counted, 0.25) / ABS_GAUSSIAN_QUARTILE;
  const threshold = Math.max(FLOOR, NOISE_FACTOR * noise);
  const level = new Uint8Array(data.length);
  const bright = new Uint8Array(data.length);
  const settled = new Uint8Array(data.length);
  const transients: number[] = [];
  for (let y = y0; y < y1; y++) {
    const row = y * width;
    const prow = (y + pdy) * width + pdx;
    const nrow = (y + ndy) * width + ndx;
    for (let x = x0; x < x1; x++) {
      const v = data[row + x]!;
      const a = pd[prow + x]!;
      const b = nd[nrow + x]!;
      // The 3x3 extremes include the pixel itself: only a pixel beyond the threshold from both
      // aligned neighbours, on the same side, can stand out from their whole neighbourhoods.
      const up = v - a > threshold && v - b > threshold;
      if (!up && !(a - v > threshold && b - v > threshold)) continue;
      let hi = 0;
      let lo = 255;
      for (let k = -1; k <= 1; k++) {
        const pr = prow + x + k * width;
        const nr = nrow + x + k * width;
        for (let j = -1; j <= 1; j++) {
          const c = pd[pr + j]!;
          const e = nd[nr + j]!;
          if (c > hi) hi = c;
          if (e > hi) hi = e;
          if (c < lo) lo = c;
          if (e < lo) lo = e;
        }
      }
      const stands = up ? v - hi : lo - v;
      if (stands > threshold) {
        level[row + x] = stands;
        bright[row + x] = up ? 1 : 0;
        settled[row + x] = Math.abs(a - b) <= threshold ? 1 : 0;
        transients.push(row + x);
      }
    }
  }
  return { width, height, level, bright, settled, transients, noise, threshold, x0, x1, y0, y1 };
}

export interface Particle {
  /** pixels */
  area: number;
  /** centre */
  x: number;
  y: number;
  /** along its main axis and across it, in px */
  length: number;
  width: number;
  /** angle of the main axis from the vertical, radians (-pi/2 to pi/2; positive: its lower end to the right) */
  lean: number;
  bright: boolean;
  /** the share of its pixels where the samples either side agree: 1 for a drop over what stays */
  settled: number;
  /** the highest level in it */
  peak: number;
}

/** The 8-connected groups of transient pixels, each described by its moments. */
export function particles(map: TransientMap): Particle[] {
  const { width, level, bright, settled, x0, x1, y0, y1 } = map;
  const seen = new Uint8Array(level.length);
  const found: Particle[] = [];
  const stack: number[] = [];
  for (const start of map.transients) {
    if (seen[start]) continue;
    seen[start] = 1;
    stack.push(start);
    let n = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, brights = 0, settles = 0, peak = 0;
    while (stack.length) {
      const i = stack.pop()!;
      const px = i % width;
      const py = (i - px) / width;
      n++;
      sx += px;
      sy += py;
      sxx += px * px;
      syy += py * py;
      sxy += px * py;
      brights += bright[i]!;
      settles += settled[i]!;
      peak = Math.max(peak, level[i]!);
      for (let dy = -1; dy <= 1; dy++) {
        const ny = py + dy;
        if (ny < y0 || ny >= y1) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = px + dx;
          if (nx < x0 || nx >= x1) continue;
          const j = ny * width + nx;
          if (!seen[j] && level[j]! > 0) {
            seen[j] = 1;
            stack.push(j);
          }
        }
      }
    }
    const mx = sx / n;
    const my = sy / n;
    const vxx = sxx / n - mx * mx;
    const vyy = syy / n - my * my;
    const vxy = sxy / n - mx * my;
    const root = Math.sqrt(((vxx - vyy) / 2) ** 2 + vxy * vxy);
    const major = (vxx + vyy) / 2 + root;
    // a run of L pixels has variance (L^2 - 1) / 12 along it
    const length = Math.sqrt(12 * major + 1);
    const lean = 0.5 * Math.atan2(2 * vxy, vyy - vxx); // from the vertical
    found.push({ area: n, x: mx, y: my, length, width: n / length, lean, bright: brights * 2 > n, settled: settles / n, peak });
  }
  return found;
}

/** A raindrop's streak: thin, a few pixels long or more, falling within 45 degrees of the vertical, not an object's edge. */
export function isStreak(p: Particle, frameWidth: number): boolean {
  return p.width <= STREAK_WIDTH && p.length >= STREAK_LENGTH && p.length >= STREAK_ELONGATION * p.width &&
    p.length <= frameWidth * STREAK_MAX_LENGTH && Math.abs(p.lean) <= STREAK_MAX_TILT;
}

/** A flake candidate: a small bright blob, not a streak. */
export function isFlakeCandidate(p: Particle, frameWidth: number): boolean {
  return p.bright && p.area >= FLAKE_MIN_AREA && p.area <= FLAKE_AREA && !isStreak(p, frameWidth);
}

/**
 * The share of the grid's cells where drops like those found could show, at least FEWEST_SHOWING:
 * a drop scatters light from all around into the camera, so it has about one brightness over the
 * whole view (Garg and Nayar, "Vision and rain", 2007), and stands out only where what it crosses
 * is darker than that (or, for drops darker than what they cross, brighter) by more than the
 * map's threshold. A cell counts when a quarter of its pixels in `background` do, the drops'
 * level taken as the median of `drops` in `cur` (bright or dark as most of them are). 1 when there are none.
 */
function canShow(drops: Particle[], background: GrayFrame, cur: GrayFrame, map: Pick<TransientMap, 'threshold' | 'x0' | 'x1' | 'y0' | 'y1'>): number {
  if (drops.length === 0) return 1;
  const { width, height } = cur;
  const levels = drops.map((p) => cur.data[Math.round(p.y) * width + Math.round(p.x)]!).sort((a, b) => a - b);
  const level = levels[levels.length >> 1]!;
  const bright = 2 * drops.filter((p) => p.bright).length >= drops.length;
  const below = bright ? level - map.threshold : -1;
  const above = bright ? 256 : level + map.threshold;
  const showing = new Uint32Array(GRID_X * GRID_Y);
  const pixels = new Uint32Array(GRID_X * GRID_Y);
  const cellOf = columnCells(width);
  for (let y = map.y0; y < map.y1; y++) {
    const row = rowCell(y, height) * GRID_X;
    for (let x = map.x0, i = y * width + map.x0; x < map.x1; x++, i++) {
      const cell = row + cellOf[x]!;
      pixels[cell]++;
      const v = background.data[i]!;
      if (v < below || v > above) showing[cell]++;
    }
  }
  let cells = 0;
  for (let c = 0; c < showing.length; c++) if (pixels[c]! > 0 && 4 * showing[c]! >= pixels[c]!) cells++;
  return Math.max(FEWEST_SHOWING, cells / showing.length);
}

/** The share of the grid's cells holding one of `drops`, over the share where such drops can show (canShow), at most 1. */
function showingSpread(drops: Particle[], background: GrayFrame, cur: GrayFrame, map: TransientMap): number {
  return Math.min(1, cellSpread(drops, map.width, map.height) / canShow(drops, background, cur, map));
}

/** Share of the grid's cells holding at least one of the points. */
export function cellSpread(points: Array<{ x: number; y: number }>, width: number, height: number): number {
  const cells = new Uint8Array(GRID_X * GRID_Y);
  for (const { x, y } of points) {
    const cx = Math.min(GRID_X - 1, Math.floor((x * GRID_X) / width));
    const cy = Math.min(GRID_Y - 1, Math.floor((y * GRID_Y) / height));
    cells[cy * GRID_X + cx] = 1;
  }
  return cells.reduce((a, b) => a + b, 0) / cells.length;
}

/**
 * Of the pixels transient in `a`, the share transient again (within a pixel) in `b`, a map of two
 * samples later: drops land elsewhere each time, flicker comes back in place.
 */
export function recurrence(a: TransientMap, b: TransientMap): number {
  const { width } = a;
  let transient = 0;
  let again = 0;
  const x0 = Math.max(a.x0, b.x0 + 1);
  const x1 = Math.min(a.x1, b.x1 - 1);
  const y0 = Math.max(a.y0, b.y0 + 1);
  const y1 = Math.min(a.y1, b.y1 - 1);
  for (const i of a.transients) {
    const x = i % width;
    const y = (i - x) / width;
    if (x < x0 || x >= x1 || y < y0 || y >= y1) continue;
    transient++;
    search: for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        if (b.level[i + dy * width + dx]! > 0) {
          again++;
          break search;
        }
      }
    }
  }
  return transient ? again / transient : 0;
}

/**
 * Whether the flake at (x, y) of `cur` fell there since `prev` (laid onto cur by the camera's
 * shift): where it is, `cur` gained on `prev`; where it was, `prev` had what `cur` lost. The
 * best match of its gain (the 5x5 patch of cur - prev, its positive part) among the losses
 * (prev - cur, its positive part) up to FLAKE_REACH of the frame height above it and as far to
 * either side is at least FLAKE_FALL px higher, within 45 degrees of the vertical, and is the
 * flake itself: it differs from the gain by less than half of the gain (nothing lost anywhere,
 * or noise, matches no better than that). A still background, plain or textured (a lawn, a
 * tree line), is in both samples and drops out of the difference; a flake is a few pixels
 * across and semi-transparent, and a patch of its own pixels and the background behind it
 * would match nowhere above over a textured background. `stays`: the mean change a pixel under
 * which a patch around the flake stayed (the transient map's threshold).
 */
export function fellFrom(prev: GrayFrame, cur: GrayFrame, fromPrev: Shift, flake: Pick<Particle, 'x' | 'y'>, stays = FLOOR): boolean {
  const { width, height } = cur;
  const reach = Math.max(FLAKE_FALL, Math.round(height * FLAKE_REACH));
  const cx = Math.round(flake.x);
  const cy = Math.round(flake.y);
  const sx = -Math.round(fromPrev.dx);
  const sy = -Math.round(fromPrev.dy);
  if (cx < 2 || cy < 2 || cx >= width - 2 || cy >= height - 2) return false;
  /** how the 5x5 patch at (x, y) of cur differs from prev, moved by (ox, oy) from where the camera's shift lays it */
  const patchDifference = (x: number, y: number, ox: number, oy: number, bound: number) => {
    const px = x + ox + sx;
    const py = y + oy + sy;
    if (x < 2 || y < 2 || x >= width - 2 || y >= height - 2 || px < 2 || py < 2 || px >= width - 2 || py >= height - 2) return Infinity;
    let sad = 0;
    for (let ky = -2; ky <= 2 && sad < bound; ky++) {
      const crow = (y + ky) * width + x;
      const prow = (py + ky) * width + px;
      for (let kx = -2; kx <= 2; kx++) sad += Math.abs(cur.data[crow + kx]! - prev.data[prow + kx]!);
    }
    return sad;
  };
  // the flake's gain: cur over prev where it is now
  const gain = new Int16Array(25);
  let gained = 0;
  for (let ky = -2; ky <= 2; ky++) {
    for (let kx = -2; kx <= 2; kx++) {
      const px = cx + kx + sx, py = cy + ky + sy;
      const was = px >= 0 && py >= 0 && px < width && py < height ? prev.data[py * width + px]! : cur.data[(cy + ky) * width + cx + kx]!;
      const g = Math.max(0, cur.data[(cy + ky) * width + cx + kx]! - was);
      gain[(ky + 2) * 5 + kx + 2] = g;
      gained += g;
    }
  }
  /** how the loss (prev - cur, positive part) at (x, y) of cur differs from the flake's gain */
  const lossDifference = (x: number, y: number, bound: number) => {
    const px = x + sx, py = y + sy;
    if (x < 2 || y < 2 || x >= width - 2 || y >= height - 2 || px < 2 || py < 2 || px >= width - 2 || py >= height - 2) return Infinity;
    let sad = 0;
    for (let ky = -2; ky <= 2 && sad < bound; ky++) {
      const crow = (y + ky) * width + x;
      const prow = (py + ky) * width + px;
      for (let kx = -2; kx <= 2; kx++) sad += Math.abs(Math.max(0, prev.data[prow + kx]! - cur.data[crow + kx]!) - gain[(ky + 2) * 5 + kx + 2]!);
    }
    return sad;
  };
  let best = gained / 2; // a match must beat half of the gain to count at all
  let bestX = 0;
  let bestY = 0;
  for (let oy = -reach; oy <= -FLAKE_FALL; oy++) {
    for (let ox = -reach; ox <= reach; ox++) {
      const sad = lossDifference(cx + ox, cy + oy, best);
      if (sad < best) {
        best = sad;
        bestX = ox;
        bestY = oy;
      }
    }
  }
  if (-bestY < FLAKE_FALL || Math.abs(bestX) > -bestY) return false;
  // A flake falls against what is behind it, and that stays. Where the patches around it moved
  // the same way (a near leaf or edge under a handheld camera, whose parallax the camera's one
  // shift cannot take out), the whole place moved: nothing fell. Where none of them stayed (each
  // changed by more than `stays` a pixel on average: twigs jittering in wind about a speck of the
  // sky between them), the place changes of itself, and a speck there is its own, not a flake
  // told from it. A plain background matches anywhere and stays; among dense flakes one patch of
  // the four at least is clear of them.
  let around = 0;
  let aroundFallen = 0;
  let looked = 0;
  let stayed = 0;
  for (const [dx, dy] of RING) {
    if (Math.abs(dx - bestX) <= 4 && Math.abs(dy - bestY) <= 4) continue; // where the flake was: not its background
    const still = patchDifference(cx + dx, cy + dy, 0, 0, Infinity);
    const fallen = patchDifference(cx + dx, cy + dy, bestX, bestY, Infinity);
    if (still === Infinity || fallen === Infinity) continue;
    around += still;
    aroundFallen += fallen;
    looked++;
    if (still <= stays * PATCH) stayed++;
  }
  return aroundFallen >= around / 2 && (looked === 0 || stayed > 0);
}

/** Where the patches around a flake lie (5x5 each, clear of a flake up to 8 px across). */
const RING: Array<[number, number]> = [[-7, 0], [7, 0], [0, -7], [0, 7]];
/** the pixels of a patch */
const PATCH = 25;

/** The grid column of each pixel column of a frame `width` wide. */
function columnCells(width: number): Uint8Array {
  const cells = new Uint8Array(width);
  for (let x = 0; x < width; x++) cells[x] = Math.min(GRID_X - 1, Math.floor((x * GRID_X) / width));
  return cells;
}

/** The grid row of pixel row y of a frame `height` high. */
const rowCell = (y: number, height: number): number => Math.min(GRID_Y - 1, Math.floor((y * GRID_Y) / height));

/**
 * Share of the grid's cells where `cur`'s change from both neighbours in time (laid onto it by
 * the camera's shift) is a texture of streaks falling as the rest: seen (TEXTURE_CHANGE),
 * oriented (TEXTURE_COHERENCE), within STREAK_MAX_TILT of the vertical and TEXTURE_AGREEMENT of
 * the other such cells' direction. The change of a pixel is how far it stands out of the range
 * of its two neighbours (0 inside it): edges of a pan or a walker lie between them and cancel,
 * as in transientMap. Its pixel of slack is not the 3x3 extremes, which merged drops would fill,
 * but the neighbours' own gradient at the pixel: a change no larger than a pixel's shift of them
 * would make is misalignment (fine texture under a pan or a zoom), not a drop.
 */
export function fallingTexture(prev: GrayFrame, cur: GrayFrame, next: GrayFrame, fromPrev: Shift, toNext: Shift): number {
  const { width, height, data } = cur;
  const pd = prev.data;
  const nd = next.data;
  const { pdx, pdy, ndx, ndy, x0, x1, y0, y1 } = aligned(cur, fromPrev, toNext);
  if (x1 - x0 < 3 || y1 - y0 < 3) return 0;
  const change = new Int16Array(width * height);
  // rows holding a change: the others' gradients are 0 (most of a dry view)
  const changed = new Uint8Array(height);
  for (let y = y0; y < y1; y++) {
    const row = y * width;
    const prow = (y + pdy) * width + pdx;
    const nrow = (y + ndy) * width + ndx;
    for (let x = x0; x < x1; x++) {
      const v = data[row + x]!;
      const a = pd[prow + x]!;
      const b = nd[nrow + x]!;
      const stands = v > a && v > b ? v - Math.max(a, b) : v < a && v < b ? v - Math.min(a, b) : 0;
      if (stands < FLOOR && stands > -FLOOR) continue; // as likely the encoder's as the scene's
      // what a pixel of misalignment explains is not change: a neighbour's gradient there reaches it
      const p = prow + x;
      const n = nrow + x;
      const reach = Math.max(Math.abs(pd[p + 1]! - pd[p - 1]!), Math.abs(pd[p + width]! - pd[p - width]!),
        Math.abs(nd[n + 1]! - nd[n - 1]!), Math.abs(nd[n + width]! - nd[n - width]!)) / 2;
      if (Math.abs(stands) > reach) {
        change[row + x] = stands;
        changed[y] = 1;
      }
    }
  }
  // per cell: the structure tensor of the change (central differences) and its mean size
  const cells = GRID_X * GRID_Y;
  const jxx = new Float64Array(cells);
  const jyy = new Float64Array(cells);
  const jxy = new Float64Array(cells);
  const size = new Float64Array(cells);
  const columnCell = columnCells(width);
  // the pixels of each cell looked at: its columns times its rows
  const columns = new Uint32Array(GRID_X);
  const rows = new Uint32Array(GRID_Y);
  for (let x = x0 + 1; x < x1 - 1; x++) columns[columnCell[x]!]!++;
  for (let y = y0 + 1; y < y1 - 1; y++) rows[rowCell(y, height)]!++;
  for (let y = y0 + 1; y < y1 - 1; y++) {
    if (!changed[y - 1] && !changed[y] && !changed[y + 1]) continue;
    const cellRow = rowCell(y, height) * GRID_X;
    for (let x = x0 + 1; x < x1 - 1; x++) {
      const i = y * width + x;
      const cell = cellRow + columnCell[x]!;
      const gx = change[i + 1]! - change[i - 1]!;
      const gy = change[i + width]! - change[i - width]!;
      if (gx === 0 && gy === 0 && change[i] === 0) continue;
      jxx[cell] += gx * gx;
      jyy[cell] += gy * gy;
      jxy[cell] += gx * gy;
      size[cell] += Math.abs(change[i]!);
    }
  }
  // the direction of each oriented cell's streaks, from the vertical (signed)
  const falls: number[] = [];
  for (let k = 0; k < cells; k++) {
    const count = columns[k % GRID_X]! * rows[Math.floor(k / GRID_X)]!;
    if (!count || size[k]! / count < TEXTURE_CHANGE) continue;
    const trace = jxx[k]! + jyy[k]!;
    if (Math.hypot(jxx[k]! - jyy[k]!, 2 * jxy[k]!) < TEXTURE_COHERENCE * trace) continue;
    // the strongest gradient's angle from the horizontal is the streaks' from the vertical
    const fall = 0.5 * Math.atan2(2 * jxy[k]!, jxx[k]! - jyy[k]!);
    if (Math.abs(fall) <= STREAK_MAX_TILT) falls.push(fall);
  }
  return agreeing(falls) / cells;
}

/** How many of the directions (radians) lie within TEXTURE_AGREEMENT of their median: the drops that fall as the rest do. */
function agreeing(directions: number[]): number {
  if (directions.length === 0) return 0;
  const direction = median(directions);
  return directions.filter((d) => Math.abs(d - direction) <= TEXTURE_AGREEMENT).length;
}

/** What one transient map shows. */
export interface MapEvidence {
  /** share of the grid's cells holding a streak, or a texture of merged streaks (fallingTexture) */
  streakSpread: number;
  streakArea: number;
  flakeSpread: number;
  noise: number;
  /** of the streaks' and flake candidates' area, the share brighter than both neighbours; undefined when there is none */
  bright?: number;
}

/** Streaks and falling flakes in one transient map (`prev` is the sample before, for the flakes; `texture` the cells of merged streaks). */
export function mapEvidence(map: TransientMap, prev: GrayFrame, cur: GrayFrame, fromPrev: Shift, texture = 0): MapEvidence {
  const found = particles(map);
  // thin parts of a body that moved far between the samples either side are no drops (SETTLED)
  const thin = found.filter((p) => isStreak(p, map.width) && p.settled >= SETTLED);
  const streaks = agreeing(thin.map((p) => p.lean)) >= STREAKS_PARALLEL * thin.length ? thin : [];
  const candidates = found.filter((p) => isFlakeCandidate(p, map.width));
  // Candidates in fewer cells than the spread that counts of the least part of the view that
  // can show cannot reach it: canShow's pass over the pixels is skipped (most dry maps).
  const candidateSpread = cellSpread(candidates, map.width, map.height) >= PRECIPITATION_SPREAD * FEWEST_SHOWING ? showingSpread(candidates, prev, cur, map) : 0;
  // The flake share can only lower the candidates' spread: below the spread that counts, the
  // matching (the costly part) is skipped; above it, an even choice of candidates is matched.
  let flakeSpread = 0;
  if (candidateSpread >= PRECIPITATION_SPREAD) {
    const step = Math.max(1, candidates.length / FLAKES_MATCHED);
    let matched = 0;
    let fell = 0;
    // a patch around a flake stayed where it changed by less than makes a pixel transient
    for (let k = 0; k < candidates.length; k += step, matched++) if (fellFrom(prev, cur, fromPrev, candidates[Math.floor(k)]!, map.threshold)) fell++;
    flakeSpread = candidateSpread * (fell / matched);
  }
  const validArea = Math.max(1, (map.x1 - map.x0) * (map.y1 - map.y0));
  const drops = [...streaks, ...candidates];
  const dropArea = drops.reduce((a, p) => a + p.area, 0);
  return {
    ...(dropArea > 0 ? { bright: drops.reduce((a, p) => a + (p.bright ? p.area : 0), 0) / dropArea } : {}),
    streakSpread: Math.max(showingSpread(streaks, prev, cur, map), texture),
    streakArea: streaks.reduce((a, p) => a + p.area, 0) / validArea,
    flakeSpread,
    noise: map.noise,
  };
}

/**
 * The share of the grid's cells where some pixel of a sample stands out by FLOOR or more from
 * both samples either side, on the same side: where a still camera could show a streak, a
 * flake or a texture of merged drops (transientMap and fallingTexture look no further). A run
 * where fewer cells hold one than the dry mark (half of PRECIPITATION_SPREAD) holds no
 * precipitation to be seen, and costs one pass over its pixels instead of the analysis. A
 * change that stays (a keyframe's new quantisation, a light switched on) is no transient; a
 * camera that moved changes every textured cell, and the run is analysed. The count stops at
 * `enough` of the cells (the share it returns then): the run is analysed either way.
 */
export function transientSpread(run: GrayFrame[], enough = 1): number {
  return cellsStandingOut(run, enough, true);
}

/**
 * The share of the grid's cells where some pixel changes by FLOOR or more from one sample to the
 * next: for a run left short of distinct samples, which has no sample with one either side to
 * stand out from. Drops and flakes change every sample where they show, so a run whose samples
 * change over fewer cells than the dry mark holds none to be seen. The count stops at `enough`.
 */
export function changeSpread(run: GrayFrame[], enough = 1): number {
  return cellsStandingOut(run, enough, false);
}

/**
 * The share of the grid's cells where a pixel of a sample differs by FLOOR or more, on the same
 * side, from the sample before and (`bothSides`) the one after; stops at `enough` of them.
 */
function cellsStandingOut(run: GrayFrame[], enough: number, bothSides: boolean): number {
  const { width, height } = run[0]!;
  const cellOf = columnCells(width);
  const seen = new Uint8Array(GRID_X * GRID_Y);
  const stop = enough * seen.length;
  let count = 0;
  for (let k = 1; k < run.length - (bothSides ? 1 : 0); k++) {
    const a = run[k - 1]!.data;
    const v = run[k]!.data;
    const b = bothSides ? run[k + 1]!.data : a; // one side only: the same difference twice
    for (let y = 0; y < height; y++) {
      const row = y * width;
      const cellRow = rowCell(y, height) * GRID_X;
      for (let i = row, end = row + width; i < end; i++) {
        const up = v[i]! - a[i]!;
        const down = v[i]! - b[i]!;
        if ((up >= FLOOR && down >= FLOOR) || (up <= -FLOOR && down <= -FLOOR)) {
          const cell = cellRow + cellOf[i - row]!;
          if (!seen[cell]) {
            seen[cell] = 1;
            count++;
          }
        }
      }
      if (count >= stop) return count / seen.length;
    }
  }
  return count / seen.length;
}

/** Which samples the analysis needs: `runs` runs of `length` consecutive samples, one every `every`. */
export interface PrecipitationSchedule {
  every: number;
  length: number;
  runs: number;
}

/**
 * Up to RUNS runs evenly spaced over the clip's `expected` samples. A run is five samples, more
 * when the source has fewer frames than samples (its repeated frames are dropped, five distinct
 * ones are wanted).
 */
export function precipitationSchedule(expected: number, samplesPerSecond: number, sourceFps?: number): PrecipitationSchedule {
  const length = RUN * Math.max(1, Math.ceil(samplesPerSecond / (sourceFps || samplesPerSecond)));
  // Runs take at most a third of a clip's samples (one at least): a sample at 320 px costs ffmpeg
  // about 70 % of its decode (2.8 against 3.9 million instructions from 768x432), so the runs add
  // at most a quarter to the motion pass's; a 3.6 s clip has two, as many as a still view needs
  // to be found dry (DRY_MAPS).
  const runs = Math.max(1, Math.min(RUNS, Math.floor(expected / (3 * length))));
  return { every: Math.max(2 * length, Math.floor(expected / runs)), length, runs };
}

/** RUNS runs of `length` back to back from the start: a decode of their own, stopped once they are taken. */
export function backToBack(length: number): PrecipitationSchedule {
  return { every: length, length, runs: RUNS };
}

/** The schedule as an ffmpeg select expression on the sample number n (commas escaped for a filter graph). */
export function scheduleSelect(schedule: PrecipitationSchedule): string {
  return `lt(mod(n\\,${schedule.every})\\,${schedule.length})*lt(n\\,${schedule.runs * schedule.every})`;
}

/**
 * Takes the scheduled samples at PRECIPITATION_WIDTH in order (each its own buffer) and
 * analyses each run once it is complete: its first five distinct samples give two transient maps
 * two samples apart (at the second and the fourth) and their recurrence, and the texture of
 * merged streaks at the third. Each sample's pixels are handed to `done` once they are no longer
 * needed (a run analysed, a sample left out), and never read again.
 */
export class PrecipitationTracker {
  private run: GrayFrame[] = [];
  private taken = 0;
  private readonly shifts: number[] = [];
  private readonly maps: MapEvidence[] = [];
  private readonly repeats: number[] = [];
  /** runs where too little of the view could hold drops (transientSpread, or changeSpread for a run short by repeats): not analysed */
  private stillRuns = 0;
  /** samples compared with the one before (not a run's first), those that repeated it, and runs left short of RUN distinct samples by them */
  private compared = 0;
  private repeated = 0;
  private shortRuns = 0;

  constructor(private readonly schedule: PrecipitationSchedule, private readonly done: (pixels: Uint8Array) => void = () => undefined) {}

  push(frame: GrayFrame): void {
    if (this.dry()) {
      this.done(frame.data);
      return;
    }
    const last = this.run[this.run.length - 1];
    const compared = last !== undefined && this.run.length < RUN;
    const repeat = compared && meanDifference(last.data, frame.data) < DUPLICATE;
    if (compared) this.compared++;
    if (repeat) this.repeated++;
    if (this.run.length < RUN && !repeat) this.run.push(frame);
    else this.done(frame.data);
    if (++this.taken % this.schedule.length !== 0) return;
    if (this.run.length === RUN) {
      if (transientSpread(this.run, PRECIPITATION_SPREAD / 2) >= PRECIPITATION_SPREAD / 2) this.analyse(this.run);
      else this.stillRuns++;
    } else if (this.run.length > 1) {
      // Short by repeats: a source that repeats its frames, or a view so still and clean that its
      // frames come within DUPLICATE of each other. Where its distinct samples change over fewer
      // cells than the dry mark, nothing falls there either way: a still run.
      if (changeSpread(this.run, PRECIPITATION_SPREAD / 2) < PRECIPITATION_SPREAD / 2) this.stillRuns++;
      else this.shortRuns++;
    }
    for (const f of this.run) this.done(f.data);
    this.run = [];
  }

  /** The view found dry, or the scheduled runs taken: what the rest of the clip shows would add nothing. */
  seenEnough(): boolean {
    return this.dry() || this.taken >= this.schedule.runs * this.schedule.length;
  }

  /**
   * DRY_MAPS maps, none near precipitation, a still run counting for its two: the rest of the
   * clip is not looked at.
   */
  private dry(): boolean {
    return this.maps.length + 2 * this.stillRuns >= DRY_MAPS && this.maps.every((m) => Math.max(m.streakSpread, m.flakeSpread) < PRECIPITATION_SPREAD / 2);
  }

  private analyse(w: GrayFrame[]): void {
    const shifts = [{ dx: 0, dy: 0 }];
    for (let k = 1; k < w.length; k++) {
      shifts.push(globalShift(w[k - 1]!, w[k]!));
      this.shifts.push(Math.hypot(shifts[k]!.dx, shifts[k]!.dy));
    }
    const first = transientMap(w[0]!, w[1]!, w[2]!, shifts[1]!, shifts[2]!);
    const second = transientMap(w[2]!, w[3]!, w[4]!, shifts[3]!, shifts[4]!);
    // the texture of merged streaks once a run, at its middle sample: a downpour is everywhere all the time
    const texture = fallingTexture(w[1]!, w[2]!, w[3]!, shifts[2]!, shifts[3]!);
    this.maps.push(mapEvidence(first, w[0]!, w[1]!, shifts[1]!, texture), mapEvidence(second, w[2]!, w[3]!, shifts[3]!, texture));
    this.repeats.push(recurrence(first, second));
  }

  /**
   * The source's own frame rate, in samples' terms, when it repeats its frames and no run could
   * be analysed for it: a camera's 5 frames a second re-rated to 25 by a recorder (each frame
   * in two samples in a row) leaves two or three distinct samples in a run of five. Of the
   * samples compared with the one before (a run's first has none), the share that repeated it
   * says how often a new frame comes: `samplesPerSecond` x (1 - that share). Undefined when runs
   * were analysed (or found still), or none came short by repeats.
   */
  repeatingRate(samplesPerSecond: number): number | undefined {
    if (this.maps.length || this.stillRuns || !this.shortRuns) return undefined;
    return samplesPerSecond * (1 - this.repeated / this.compared);
  }

  /**
   * The medians over the maps analysed. A still run's two maps count as showing no drops in the
   * spreads (they could show less than the dry mark: below the spread rain needs either way), so
   * a clip's still stretches weigh as they would analysed; its shift, noise and recurrence were
   * not measured and do not count.
   */
  evidence(): PrecipitationEvidence {
    const spreads = (of: (m: MapEvidence) => number) => median([...this.maps.map(of), ...new Array<number>(2 * this.stillRuns).fill(0)]);
    return {
      maps: this.maps.length,
      pan: median(this.shifts),
      repeat: median(this.repeats),
      streakSpread: spreads((m) => m.streakSpread),
      streakArea: spreads((m) => m.streakArea),
      flakeSpread: spreads((m) => m.flakeSpread),
      noise: median(this.maps.map((m) => m.noise)),
      bright: this.maps.some((m) => m.bright !== undefined) ? median(this.maps.flatMap((m) => (m.bright === undefined ? [] : [m.bright]))) : 0.5,
    };
  }
}

/**
 * Rain or snow, from the evidence: thin short-lived streaks, or falling flakes, over at least
 * PRECIPITATION_SPREAD of the view in the typical sample, that do not come back in place (most
 * transients recurring is a flicker at fixed places: leaves, compression blocks). The score is
 * 0.5 at that spread and grows with it to 1 over the whole view; 0 when neither is seen.
 */
export function precipitationScore(e: Pick<PrecipitationEvidence, 'streakSpread' | 'flakeSpread' | 'repeat'>): number {
  const spread = Math.max(e.streakSpread, e.flakeSpread);
  if (spread < PRECIPITATION_SPREAD || e.repeat >= FLICKER) return 0;
  return 0.5 + (0.5 * (spread - PRECIPITATION_SPREAD)) / (1 - PRECIPITATION_SPREAD);
}

/**
 * Drops falling where something lights them, too few over the view to call it rain: thin streaks
 * or falling flakes over half the spread rain needs or more, not coming back in place. At night
 * drops show only near a light (a street lamp's cone: a tenth of the view or so), where they
 * change the same cells sample after sample; motion read there is theirs, not a sway, and is
 * read with them taken out (motion.ts). Dry clutter stays under it: a walker's edges 0.03 of
 * the cells, the leaves of a handheld view's parallax 0.074.
 */
export function dropsSeen(e: Pick<PrecipitationEvidence, 'streakSpread' | 'flakeSpread' | 'repeat'>): boolean {
  return precipitationScore(e) > 0 || (Math.max(e.streakSpread, e.flakeSpread) >= PRECIPITATION_SPREAD / 2 && e.repeat < FLICKER);
}

/**
 * Snow: of what fell, flakes were seen over more of the view than streaks (a flake is a blob a
 * few pixels across that falls slowly; a raindrop a thin streak).
 */
export function snowSeen(e: Pick<PrecipitationEvidence, 'streakSpread' | 'flakeSpread'>): boolean {
  return e.flakeSpread > e.streakSpread;
}

/** Drops with at least this share of their area brighter (or darker) than the samples either side brighten (or darken) what they cross. */
const DROPS_ONE_WAY = 0.75;

/** What the drops seen do to what they cross (pixel-median.ts), from the share of their area brighter than the samples either side. */
export function dropLight(e: Pick<PrecipitationEvidence, 'bright'>): DropLight {
  return e.bright >= DROPS_ONE_WAY ? 'brighter' : e.bright <= 1 - DROPS_ONE_WAY ? 'darker' : 'either';
}
