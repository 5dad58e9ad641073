// The light over a view changes all of it together: a camera's automatic gain, a cloud's
// shadow, lightning, a light switched on, a camera switching to infrared. Each pixel's level
// then moves with the level it had (gray = gain x level + offset), where a thing that moves
// changes only its own place. Both the motion pass and the small movers compare frames in
// one light.

import { histogramLevel } from '../core/median.js';

/**
 * Luma is gamma-encoded (about 2.2), so what a body changes in it scales with the light: a
 * view with half the light (a stop) shows every difference 2^(-1/2.2) as large. A camera
 * exposes a scene by day about mid-gray (18 % grey at 118 of 255); a view whose median lies
 * more than a stop below that is underexposed: a dim room, a weak illuminator at night, a gray
 * make of either.
 */
const EXPOSED = 118 * 2 ** (-1 / 2.2);
/**
 * A change counted in the light is never below this: an encoder quantises away changes of a
 * few levels, so under about 2.5 % of the range a change is as likely to be the compression's
 * as the scene's (precipitation.ts's FLOOR).
 */
const DELTA_FLOOR = 6;

/** Scratch for medianLight's histogram (one call at a time: the runtime is single-threaded). */
const levels = new Uint32Array(256);

/** A gray view's median level, read off every 4th pixel: a view's exposure is the same all over it. */
function medianLight(gray: Uint8Array): number {
  levels.fill(0);
  let counted = 0;
  for (let i = 0; i < gray.length; i += 4, counted++) levels[gray[i]!]++;
  return histogramLevel(levels, counted, 0.5);
}

/** Whether a gray view is underexposed (EXPOSED): a dim room, a weak illuminator at night. */
export function underexposed(gray: Uint8Array): boolean {
  return medianLight(gray) < EXPOSED;
}

/**
 * A threshold of `full` gray levels for a view exposed as by day, in `gray`'s light: in an
 * underexposed view (EXPOSED) in proportion to its median, down to DELTA_FLOOR.
 */
export function litDelta(full: number, gray: Uint8Array): number {
  const median = medianLight(gray);
  if (median >= EXPOSED) return full;
  return Math.min(full, Math.max(DELTA_FLOOR, (full * median) / EXPOSED));
}

/** How a frame's levels follow another's: gray = gain x other + offset. */
export interface Exposure {
  gain: number;
  offset: number;
}

/**
 * A light that moves the typical pixel by less than this many gray levels (half the least
 * change the motion pass counts as moved) moves none past it: the frames are compared as they
 * are.
 */
const LIGHT_HELD = 3;
/** the fit's second pass keeps the pixels within this many levels of the first (what moved is left out) */
const FIT_WITHIN = 20;

/**
 * `gray`'s exposure against `reference`'s: fitted by least squares on a sparse grid, then again
 * without the pixels that missed by far (what moved). `unclipped`: without the pixels black or
 * white in either frame too, which a change of light cannot move (a flash's glare).
 */
export function exposure(gray: Uint8Array, reference: Uint8Array, unclipped = false): Exposure {
  return exposureFit(gray, reference, unclipped, exposureFit(gray, reference, unclipped, undefined));
}

/** The least-squares line on every 5th pixel; with `around`, of the pixels within FIT_WITHIN of it only. */
function exposureFit(gray: Uint8Array, reference: Uint8Array, unclipped: boolean, around: Exposure | undefined): Exposure {
  let n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (let p = 0; p < reference.length; p += 5) {
    const x = reference[p]!, y = gray[p]!;
    if (unclipped && (clipped(x) || clipped(y))) continue;
    if (around && Math.abs(y - (around.gain * x + around.offset)) >= FIT_WITHIN) continue;
    n++; sx += x; sy += y; sxx += x * x; sxy += x * y;
  }
  const varX = n * sxx - sx * sx;
  const gain = n > 1 && varX > 0 ? (n * sxy - sx * sy) / varX : 1;
  return { gain, offset: n ? (sy - gain * sx) / n : 0 };
}

/** within the codec's noise of black or white: a level the sensor or the encoder clipped */
const CLIPPED = 5;
const clipped = (v: number) => v <= CLIPPED || v >= 255 - CLIPPED;

/**
 * `before` as it would look in `after`'s light, where the light changed between them; `before`
 * itself where it held. A pixel clipped in `before` (black or white, within CLIPPED: a flash's
 * glare) says nothing of the scene behind it, and is taken as unchanged.
 */
export function relit(before: Uint8Array, after: Uint8Array): Uint8Array {
  const { gain, offset } = exposure(after, before, true);
  let moved = 0, n = 0;
  for (let p = 0; p < before.length; p += 5, n++) moved += Math.abs((gain - 1) * before[p]! + offset);
  if (moved < LIGHT_HELD * n) return before;
  const level = new Uint8Array(256);
  for (let v = 0; v < 256; v++) level[v] = Math.max(0, Math.min(255, Math.round(gain * v + offset)));
  const lit = new Uint8Array(before.length);
  for (let p = 0; p < before.length; p++) {
    const v = before[p]!;
    lit[p] = clipped(v) ? after[p]! : level[v]!;
  }
  return lit;
}
