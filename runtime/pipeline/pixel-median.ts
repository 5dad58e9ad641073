// A clip's background: what stays in place outvotes what passes. Both the motion pass
// (96 px) and the small movers (192 px) take theirs this way. Over a few frames in a row,
// the drops of rain or snow are taken out the same way (withoutDrops). How far each pixel
// ranges over a few frames says whether anything changed at all (pixelsRanging).

/**
 * The per-pixel median of up to `count` evenly spaced frames. Each pixel's median is selected
 * in place (Wirth's selection: about three comparisons per value, against a sort's dozens for a
 * few dozen values).
 */
export function medianFrame(frames: Uint8Array[], count: number): Uint8Array {
  const step = Math.max(1, frames.length / count);
  const picked: Uint8Array[] = [];
  for (let i = 0; i < frames.length; i += step) picked.push(frames[Math.floor(i)]!);
  const pixels = picked[0]!.length;
  const n = picked.length;
  const middle = n >> 1;
  const median = new Uint8Array(pixels);
  const values = new Uint8Array(n);
  for (let p = 0; p < pixels; p++) {
    for (let k = 0; k < n; k++) values[k] = picked[k]![p]!;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const pivot = values[middle]!;
      let i = low;
      let j = high;
      do {
        while (values[i]! < pivot) i++;
        while (pivot < values[j]!) j--;
        if (i <= j) {
          const v = values[i]!;
          values[i++] = values[j]!;
          values[j--] = v;
        }
      } while (i <= j);
      if (j < middle) low = i;
      if (middle < i) high = j;
    }
    median[p] = values[middle]!;
  }
  return median;
}

/** The per-pixel median of three frames of the same size (gray or RGB alike). */
export function medianOfThree(a: Uint8Array, b: Uint8Array, c: Uint8Array): Uint8Array {
  const out = new Uint8Array(b.length);
  for (let p = 0; p < b.length; p++) {
    const x = a[p]!, y = b[p]!, z = c[p]!;
    out[p] = x > y ? (y > z ? y : x > z ? z : x) : x > z ? x : y > z ? z : y;
  }
  return out;
}

/**
 * What drops do to the pixels they cross. A drop scatters light from all around into the
 * camera, so it brightens what it crosses (by day, or lit by an infrared illuminator at night);
 * only against a bright sky does it darken it. `either`: the clip's drops showed no one way.
 */
export type DropLight = 'brighter' | 'darker' | 'either';

/**
 * A drop is taken out by the frames within this many seconds either side: a drop crosses the
 * view within one of them, while a walker at night moves less than his width.
 */
const DROP_REACH_S = 0.2;

/** How many frames withoutDrops takes for each frame, at `fps`: three in a row for the median, else those within DROP_REACH_S. */
export function dropWindow(light: DropLight, fps: number): number {
  return light === 'either' ? 3 : 2 * Math.max(1, Math.round(DROP_REACH_S * fps)) + 1;
}

/**
 * A frame with the drops taken out, from the frames around it (dropWindow of them, in time
 * order, gray or RGB alike): each pixel's darkest value where drops brighten, its brightest
 * where they darken, else the median of three (what is in one of them only). A pixel stays lit
 * only where drops crossed it in every frame: where heavy rain at night covers 40 % of the view
 * a frame, 1 % of it over five frames, 6 % over three, against 34 % for the median of three.
 */
export function withoutDrops(frames: Uint8Array[], light: DropLight): Uint8Array {
  if (light === 'either') return medianOfThree(frames[0]!, frames[1]!, frames[2]!);
  const out = frames[0]!.slice();
  for (const frame of frames.slice(1)) {
    if (light === 'brighter') for (let p = 0; p < out.length; p++) out[p] = Math.min(out[p]!, frame[p]!);
    else for (let p = 0; p < out.length; p++) out[p] = Math.max(out[p]!, frame[p]!);
  }
  return out;
}

/** An RGB frame's luma (Rec. 601): the gray frame the analyses read. */
export function lumaOf(rgb: Uint8Array): Uint8Array {
  const gray = new Uint8Array(rgb.length / 3);
  for (let p = 0, q = 0; p < gray.length; p++, q += 3) gray[p] = (77 * rgb[q]! + 150 * rgb[q + 1]! + 29 * rgb[q + 2]!) >> 8;
  return gray;
}

/**
 * A gray frame with the thin lines of drops of `light` flattened: each pixel at its darkest
 * within `reach` px along its row and then its column where drops brighten (its brightest where
 * they darken; where they showed no one way, the frame as it is). A streak or a flake narrower
 * than 2 reach + 1 px is gone, larger shapes keep their place: what a match of the view's shift
 * reads in rain.
 */
export function dropsFlattened(frame: Uint8Array, width: number, height: number, light: DropLight, reach: number): Uint8Array {
  if (light === 'either') return frame;
  const darkest = light === 'brighter';
  return extremeAlong(extremeAlong(frame, 1, width, height, width, reach, darkest), width, height, width, 1, reach, darkest);
}

/**
 * An RGB frame with the thin streaks of falling drops opened out of its rows: where drops
 * brighten what they cross, each channel at its darkest within `reach` px along its row, then at
 * its brightest (an opening: a line narrower than 2 reach + 1 px is gone, a wider shape keeps its
 * size and place); where they darken, the other way round (a closing); where they showed no one
 * way, both. Drops fall across the rows, so a streak is thin along them whatever its length; and
 * one frame alone is read, so a mover is not smeared as over time (withoutDrops).
 */
export function streaksOpened(rgb: Uint8Array, width: number, height: number, light: DropLight, reach: number): Uint8Array {
  const along = (from: Uint8Array, darkest: boolean) => {
    const out = new Uint8Array(from.length);
    for (let channel = 0; channel < 3; channel++) extremeAlong(from, 3, width, height, width * 3, reach, darkest, out, channel);
    return out;
  };
  const opened = (from: Uint8Array) => along(along(from, true), false);
  const closed = (from: Uint8Array) => along(along(from, false), true);
  return light === 'brighter' ? opened(rgb) : light === 'darker' ? closed(rgb) : closed(opened(rgb));
}

/**
 * Each pixel at its darkest (or brightest) within `reach` px along its line: `lines` lines of
 * `count` pixels, `step` apart within a line and starting `lineStep` apart (rows or columns),
 * the first at `offset` (a channel of interleaved pixels).
 */
function extremeAlong(from: Uint8Array, step: number, count: number, lines: number, lineStep: number, reach: number, darkest: boolean, out = new Uint8Array(from.length), offset = 0): Uint8Array {
  for (let line = 0; line < lines; line++) {
    const start = offset + line * lineStep;
    for (let i = 0; i < count; i++) {
      let v = from[start + i * step]!;
      const last = Math.min(count - 1, i + reach);
      for (let j = Math.max(0, i - reach); j <= last; j++) {
        const u = from[start + j * step]!;
        if (darkest ? u < v : u > v) v = u;
      }
      out[start + i * step] = v;
    }
  }
  return out;
}

/**
 * How many of the frames' first `pixels` pixels range over more than `delta` gray levels across
 * them (a masked pixel never counts). Four pixels at a time, the bytes of a 32-bit word: half
 * the time of one at a time.
 */
export function pixelsRanging(frames: Uint8Array[], pixels: number, delta: number, masked?: Uint8Array): number {
  const words = pixels >> 2;
  const low = wordsOf(frames[0]!, words).slice(); // copies: the frame is not written
  const high = low.slice();
  for (let f = 1; f < frames.length; f++) {
    const gray = wordsOf(frames[f]!, words);
    for (let i = 0; i < words; i++) {
      const v = gray[i]!;
      const l = low[i]!;
      const h = high[i]!;
      const aboveLow = atLeast(v, l);
      low[i] = (l & aboveLow) | (v & ~aboveLow);
      const belowHigh = atLeast(h, v);
      high[i] = (h & belowHigh) | (v & ~belowHigh);
    }
  }
  const lows = new Uint8Array(low.buffer);
  const highs = new Uint8Array(high.buffer);
  let ranging = 0;
  for (let p = 0; p < words * 4; p++) if (highs[p]! - lows[p]! > delta && !masked?.[p]) ranging++;
  for (let p = words * 4; p < pixels; p++) { // the last of a count not a multiple of four
    let lowest = 255;
    let highest = 0;
    for (const frame of frames) {
      lowest = Math.min(lowest, frame[p]!);
      highest = Math.max(highest, frame[p]!);
    }
    if (highest - lowest > delta && !masked?.[p]) ranging++;
  }
  return ranging;
}

/** The first `words` 32-bit words of a frame's bytes: over its memory where it is aligned to them, else a copy. */
function wordsOf(frame: Uint8Array, words: number): Uint32Array {
  return frame.byteOffset % 4 === 0 ? new Uint32Array(frame.buffer, frame.byteOffset, words) : new Uint32Array(frame.slice(0, words * 4).buffer);
}

const HIGH_BITS = 0x80808080;

/**
 * 0xff in each byte of word `a` that is at least the same byte of `b` (unsigned), else 0. A
 * byte's top bit says so: a's set and b's not, or both alike and a's low seven bits at least
 * b's, which (a | 0x80) - (b & 0x7f) tells in its top bit without borrowing from the next byte.
 */
function atLeast(a: number, b: number): number {
  const lowBits = (a | HIGH_BITS) - (b & ~HIGH_BITS);
  return ((((a & ~b) | (~(a ^ b) & lowBits)) & HIGH_BITS) >>> 7) * 0xff;
}
