// Foliage in wind and flags, from what they do: on a still camera, motion that persists in
// place and goes back and forth (branches and leaves sway, a flag flutters), where a walker or
// a car makes a cell move only while it passes and a conveyor or a zoom moves it one way.
// Measured cell by cell on the motion pass's grid, from each pair of samples (localMotion),
// summed up over the clip (describeSway), and turned into evidence for plant, wind and flag
// (swayFindings, flagFinding).
import type { Box } from '../core/analysis.js';
import { inside } from './boxes.js';
import { cellGroups } from './cell-groups.js';
import { relit } from './light.js';

/** The grid the motion pass counts on (motion.ts's MOTION_GRID). */
export interface Grid {
  x: number;
  y: number;
}

/** How one pair of samples moved, cell by cell. */
export interface LocalMotion {
  /** per cell, the mean gray difference between the samples (0..255) */
  change: Float32Array;
  /** per cell, the mean signed difference (what brightened less what darkened, 0..255 either way) */
  net: Float32Array;
  /** per cell, the structure tensor's smaller eigenvalue over its larger (1: texture in every direction; near 0: one straight edge) */
  isotropy: Float32Array;
  /** per cell, its displacement (x, y interleaved) in px of the motion pass's frame, by Lucas-Kanade over the cell */
  flow: Float32Array;
  /** per cell, the mean gradient (gray levels per px): its texture */
  texture: Float32Array;
  /** the pixels summed in a cell */
  pixels: number;
  /** the camera's own motion: the largest displacement at the frame's corners (px), from cameraMotion */
  camera: number;
}

/** What the pixels of each cell are: the motion pass's PixelGrid. */
export interface CellMap {
  width: number;
  height: number;
  cellOf: Uint16Array;
}

/**
 * Below this gradient (gray levels per px) a cell's flow is not trusted: a flat wall or sky
 * says nothing of where it moved, and its codec noise would be read as motion (regularises
 * the Lucas-Kanade solve).
 */
const FLAT = 1;

/**
 * A cell moved between two samples when its flow is at least this (px at the motion pass's
 * width, 96 px: a third of a pixel at 640 px), and at least SIGNIFICANT times its error
 * (flowError): the same threshold says when the camera moved.
 */
export const MOVED = 0.05;
const SIGNIFICANT = 3;
/**
 * ...and its gray levels changed visibly: by one level at least (8-bit rounding), and by half
 * again the clip's noise (the mean change of its stillest cells). Over a cell's 24 pixels the
 * mean of independent noise spreads by about 0.75 / √24 = 15 % of itself: 1.5 times is three
 * of those. Codec noise, correlated in blocks, spreads more, and is held back by the flow's
 * significance (three times flowError) in most samples. Under a level, a move is faint (faintMove).
 */
const CHANGED = 1;
const NOISY_CHANGE = 1.5;
/**
 * Faint moves. A weak illuminator shows a scene at a third of the day's contrast, and the same
 * sway changes a crown's cells by a third as much: under a level in most samples (a crown cell's
 * mean change 1.0 made dim against 2.8 by day, its flow the same, 0.15 px), where 8-bit rounding,
 * the grain, a codec's shimmer along an edge or a light that changes make as much. A move under
 * a level counts where only a displacement of the cell's texture makes it:
 * - it stands above rounding: two samples of a texture displaced a fraction of a pixel are
 *   rounded independently, each pixel's difference carrying |U1 - U2| of two uniform errors of
 *   half a level (mean 1/3, spread 0.24), and three of its spreads over the cell's pixels above
 *   that mean is a change rounding does not make (about half a level over 24 pixels);
 * - the cell's texture runs in two directions (ISOTROPIC): along one straight edge only the move
 *   across it can be read (the aperture problem), and a codec's shimmer along the edge reads as
 *   one (the dark board of `hand_ball.mp4` against its wall);
 * - it stands NOISY_CHANGE times above the cell's rest (restingChange), as a move stands above
 *   the clip's noise: a sway stops at its turns, grain changes a cell alike in every sample;
 * and, over the clip, the cell's faint moves brightened about as many of its pixels as they
 * darkened (MIXED).
 */
const ROUNDING_CHANGE = 1 / 3;
const ROUNDING_SPREAD = Math.sqrt(1 / 6 - 1 / 9);
/**
 * A structure tensor's smaller eigenvalue at least a tenth of its larger: the ratio beyond which
 * Lowe's SIFT takes a feature for an edge (principal curvatures 10 to 1). The crowns and flowers
 * made dim: 0.27 to 0.39 in the median faint move; the board's edges and a hunting gain's
 * residue over the classroom: 0.06 to 0.1.
 */
const ISOTROPIC = 0.1;
/**
 * A displacement of a texture brightens about as many of a cell's pixels as it darkens; a light
 * that changes (a gain hunting, a lamp flickering, what the relighting of light.ts leaves)
 * brightens or darkens them together, and over a sloped gradient reads as a displacement. Over
 * a cell's faint moves, what brightened less what darkened comes to at most half of what
 * changed (three pixels one way for each the other way): the crowns and flowers made dim, 0.33
 * to 0.37 in the median move; a hunting gain over the seated classroom 0.67, the lot's asphalt
 * at night 0.87.
 */
const MIXED = 0.5;

/**
 * A light swelling and fading over a place (a lamp flickering, a screen's glow) moves nothing,
 * but over a sloped gradient its change reads as a flow, as a displacement's does. It brightens
 * or darkens a cell's pixels together (what brightened less what darkened over MIXED of what
 * changed), and the cells it lights follow its swell in step: each went the way of the sum over
 * the cells that moved in that sample, or each the other way (where the relighting of the whole
 * view, light.ts, took part of the lamp's light for the camera's gain), in TOGETHER of its
 * moves. A lamp pulsing by 15 % at 1.5 Hz over the real empty room: 1 and 1 in the median cell,
 * `plant` and `wind` before. Crowns and flowers in wind: 0.24 to 0.29, and 0.5 to 0.55 (a
 * displacement mixes its signs); flags: one way in their cells (0.4 to 0.86, a bright cloth's
 * edge over the sky), but not in step (0.53 to 0.55: where one edge of the cloth covers the sky,
 * the other bares it).
 */
const TOGETHER = 0.75;

/** A cell whose moves (held over the clip, with how often it went the way of all that moved) were a light's. */
function litCell(held: { count: Float32Array; net: Float32Array; change: Float32Array; along: Float32Array }, c: number): boolean {
  const count = held.count[c]!;
  const inStep = Math.max(held.along[c]!, count - held.along[c]!);
  return count > 0 && held.net[c]! > MIXED * held.change[c]! && inStep >= TOGETHER * count;
}

/** A move under a level (faint) that only a displacement of the cell's texture makes: see "Faint moves". */
function faintMove(l: LocalMotion, c: number, rest: number, noise: number): boolean {
  const change = l.change[c]!;
  const aboveRounding = change >= ROUNDING_CHANGE + (SIGNIFICANT * ROUNDING_SPREAD) / Math.sqrt(l.pixels);
  return aboveRounding && l.isotropy[c]! >= ISOTROPIC && change >= NOISY_CHANGE * Math.max(rest, noise);
}
/** The noise of a picture without any: 8-bit rounding, a uniform error of one level (1/√12). */
const QUANTIZATION = 1 / Math.sqrt(12);
/** Textured enough to say where it moved (gray levels per px at the motion pass's width): twice FLAT. */
const TEXTURED = 2 * FLAT;

/**
 * The error of a cell's flow: the difference of two samples carries √2 times the picture's
 * noise (gray levels), which a texture of `texture` gray levels per px turns into px, and the
 * cell's `pixels` average down by their square root. On a cell of 24 pixels with a texture of
 * 10 and one gray level of noise: 0.03 px; on a flat, noisy sky it exceeds MOVED.
 */
export function flowError(noise: number, texture: number, pixels: number): number {
  return (Math.SQRT2 * Math.max(noise, QUANTIZATION)) / (Math.max(texture, FLAT) * Math.sqrt(pixels));
}

/** The median of the first n values (reordered in place), by selection: no sort, no allocation, every sample. */
export function medianOf(values: Float64Array, n: number): number {
  if (n === 0) return 0;
  const k = n >> 1;
  let lo = 0, hi = n - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1]!;
    let i = lo, j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i++] = values[j]!;
        values[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return values[k]!;
}

const median = (values: number[]): number => medianOf(Float64Array.from(values), values.length);

/**
 * The view is cut into PARTS x PARTS parts, each of which says once how the camera moved. A
 * camera's motion moves every part of the view; a thing moves its own. Where few cells are
 * textured (a dark view at night, a flat wall, an empty sky), a thing near the lens (a web lit
 * by the illuminator, a branch) can hold most of those there are, all in its corner: counted
 * cell by cell it was the camera. Counted part by part, it is the one or two parts it fills.
 */
const PARTS = 3;

/**
 * How far the camera itself moved between two samples: the displacement at the frame's corners
 * (px) of a translation, zoom and rotation, each the median of what the parts of the view with
 * textured (`trusted`) cells say, a part saying the median of its cells' flows. A shaken,
 * panning or zooming camera moves every part together; foliage, a flag, a walker or a web at
 * the lens move some, each its own way, and the medians stay near zero while they fill less
 * than half of the parts. Swappable for any estimate of the camera's motion in px per sample at
 * the motion pass's width.
 */
export function cameraMotion(flow: Float32Array, trusted: Uint8Array, map: Pick<CellMap, 'width' | 'height'>, grid: Grid): number {
  const cells = trusted.length;
  const xs = new Float64Array(cells), ys = new Float64Array(cells), zooms = new Float64Array(cells), turns = new Float64Array(cells);
  const part = (c: number) => Math.floor(((Math.floor(c / grid.x) * PARTS) / grid.y)) * PARTS + Math.floor(((c % grid.x) * PARTS) / grid.x);
  const said = Array.from({ length: 4 }, () => new Float64Array(PARTS * PARTS));
  let parts = 0;
  for (let p = 0; p < PARTS * PARTS; p++) {
    let n = 0;
    for (let c = 0; c < cells; c++) {
      if (!trusted[c] || part(c) !== p) continue;
      const u = flow[c * 2]!, v = flow[c * 2 + 1]!;
      const X = cellX(c, map, grid), Y = cellY(c, map, grid);
      const r2 = X * X + Y * Y;
      xs[n] = u;
      ys[n] = v;
      zooms[n] = (u * X + v * Y) / r2;
      turns[n++] = (v * X - u * Y) / r2;
    }
    if (!n) continue;
    [xs, ys, zooms, turns].forEach((values, k) => (said[k]![parts] = medianOf(values, n)));
    parts++;
  }
  if (!parts) return 0;
  const [a, b, zoom, turn] = said.map((values) => medianOf(values, parts)) as [number, number, number, number];
  // A camera moves the view rigidly: the cells follow the fit better than it moves them. Trees
  // filling the view, leaning together in a gust, have a common part too, but each branch
  // strays from it by more: that is the scene moving, not the camera.
  const strays = xs, moves = ys; // reused
  let n = 0;
  for (let c = 0; c < cells; c++) {
    if (!trusted[c]) continue;
    const X = cellX(c, map, grid), Y = cellY(c, map, grid);
    const mu = a + zoom * X - turn * Y, mv = b + zoom * Y + turn * X;
    strays[n] = Math.hypot(flow[c * 2]! - mu, flow[c * 2 + 1]! - mv);
    moves[n++] = Math.hypot(mu, mv);
  }
  if (medianOf(strays, n) >= medianOf(moves, n)) return 0;
  let camera = 0;
  for (const [X, Y] of [[-1, -1], [1, -1], [-1, 1], [1, 1]] as const) {
    const x = (X * map.width) / 2, y = (Y * map.height) / 2;
    camera = Math.max(camera, Math.hypot(a + zoom * x - turn * y, b + zoom * y + turn * x));
  }
  return camera;
}

/** A cell's centre from the map's centre, in px: where its flow is read from. */
const cellX = (c: number, map: Pick<CellMap, 'width'>, grid: Grid) => ((c % grid.x) + 0.5) * (map.width / grid.x) - map.width / 2;
const cellY = (c: number, map: Pick<CellMap, 'height'>, grid: Grid) => (Math.floor(c / grid.x) + 0.5) * (map.height / grid.y) - map.height / 2;

/** The cells are rectangles of the map: their column and row ends, read off it. */
function cellEnds({ width, height, cellOf }: CellMap, grid: Grid): { colEnd: Int32Array; rowEnd: Int32Array } {
  const colEnd = new Int32Array(grid.x + 1), rowEnd = new Int32Array(grid.y + 1);
  for (let x = 0; x < width; x++) colEnd[(cellOf[x]! % grid.x) + 1] = x + 1;
  for (let y = 0; y < height; y++) rowEnd[Math.floor(cellOf[y * width]! / grid.x) + 1] = y + 1;
  return { colEnd, rowEnd };
}

/** Per cell, the mean gradient of one picture (gray levels per px), on the rows localMotion reads: its texture. */
export function cellTexture(frame: Uint8Array, map: CellMap, grid: Grid): Float32Array {
  const { width, height } = map;
  const { colEnd, rowEnd } = cellEnds(map, grid);
  const texture = new Float32Array(grid.x * grid.y);
  for (let gy = 0; gy < grid.y; gy++) {
    const y0 = Math.max(1, rowEnd[gy]!), y1 = Math.min(height - 1, rowEnd[gy + 1]!);
    for (let gx = 0; gx < grid.x; gx++) {
      const x0 = Math.max(1, colEnd[gx]!), x1 = Math.min(width - 1, colEnd[gx + 1]!);
      let grad = 0, n = 0;
      for (let y = y0 + ((y0 + 1) % 2); y < y1; y += 2) {
        for (let i = y * width + x0, end = y * width + x1; i < end; i++) {
          grad += Math.abs(frame[i + 1]! - frame[i - 1]!) * 0.5 + Math.abs(frame[i + width]! - frame[i - width]!) * 0.5;
          n++;
        }
      }
      if (n) texture[gy * grid.x + gx] = grad / n;
    }
  }
  return texture;
}

/**
 * The motion between two gray samples, per cell: how much changed, which way it moved (a 2x2
 * Lucas-Kanade solve over the cell), how textured it is, and how much the camera itself moved
 * (cameraMotion). One pass over the pixels with a handful of sums per cell. The flow takes each
 * point to keep its brightness: where the light over the view changed (a camera's gain hunting,
 * lamps flickering), `prev` is first seen in `cur`'s light (light.ts), or every textured cell
 * would sway with the light.
 */
export function localMotion(before: Uint8Array, cur: Uint8Array, map: CellMap, grid: Grid): LocalMotion {
  const prev = relit(before, cur);
  const { width, height } = map;
  const cells = grid.x * grid.y;
  const { colEnd, rowEnd } = cellEnds(map, grid);
  const change = new Float32Array(cells);
  const net = new Float32Array(cells);
  const isotropy = new Float32Array(cells);
  const flow = new Float32Array(cells * 2);
  const texture = new Float32Array(cells);
  let pixels = 0;
  // Per cell, sums of Ix², IxIy, Iy², IxIt, IyIt, |It|, It, |∇I| in locals (a cell at a time).
  // Every other row: a cell of 8x6 px keeps 24 of its pixels, and the flow's error grows by √2
  // (flowError), for half the cost.
  for (let gy = 0; gy < grid.y; gy++) {
    const y0 = Math.max(1, rowEnd[gy]!), y1 = Math.min(height - 1, rowEnd[gy + 1]!);
    for (let gx = 0; gx < grid.x; gx++) {
      const x0 = Math.max(1, colEnd[gx]!), x1 = Math.min(width - 1, colEnd[gx + 1]!);
      let xx = 0, xy = 0, yy = 0, xt = 0, yt = 0, at = 0, st = 0, grad = 0, n = 0;
      for (let y = y0 + ((y0 + 1) % 2); y < y1; y += 2) {
        for (let i = y * width + x0, end = y * width + x1; i < end; i++) {
          // gradients of the mean of both samples: symmetric in time, so a sway's two halves weigh the same
          const ix = (prev[i + 1]! + cur[i + 1]! - prev[i - 1]! - cur[i - 1]!) * 0.25;
          const iy = (prev[i + width]! + cur[i + width]! - prev[i - width]! - cur[i - width]!) * 0.25;
          const it = cur[i]! - prev[i]!;
          xx += ix * ix;
          xy += ix * iy;
          yy += iy * iy;
          xt += ix * it;
          yt += iy * it;
          at += it < 0 ? -it : it;
          st += it;
          grad += (ix < 0 ? -ix : ix) + (iy < 0 ? -iy : iy);
          n++;
        }
      }
      if (!n) continue;
      const c = gy * grid.x + gx;
      pixels = Math.max(pixels, n);
      change[c] = at / n;
      net[c] = st / n;
      // the structure tensor's eigenvalues are (trace ± spread) / 2
      const trace = xx + yy, spread = Math.sqrt((xx - yy) ** 2 + 4 * xy * xy);
      isotropy[c] = trace > 0 ? (trace - spread) / (trace + spread) : 0;
      texture[c] = grad / n;
      const reg = n * FLAT * FLAT;
      const gxx = xx + reg, gyy = yy + reg;
      const det = gxx * gyy - xy * xy;
      flow[c * 2] = -(gyy * xt - xy * yt) / det;
      flow[c * 2 + 1] = -(gxx * yt - xy * xt) / det;
    }
  }
  // The camera is read from the textured cells. The noise is not known here (a shaken camera
  // changes every cell), and needs not be: noise scatters a cell's flow both ways, which moves
  // a median little.
  const trusted = new Uint8Array(cells);
  for (let c = 0; c < cells; c++) trusted[c] = texture[c]! >= TEXTURED ? 1 : 0;
  return { change, net, isotropy, flow, texture, pixels, camera: cameraMotion(flow, trusted, map, grid) };
}

/**
 * Persistent: moving in at least half of the samples. A sway is seen moving except near its
 * turns, where it stops; a walker or a car moves a cell only while it passes, (cell + body) /
 * speed, under a second out of a clip of several.
 */
const PERSISTENT = 0.5;
/**
 * Back and forth: the cell's flows, added up over the clip, come to less than half of their
 * lengths added up (a sway returns where it came from; a walker, a conveyor, a zoom go one
 * way: near 1).
 */
const RETURNS = 0.5;
/**
 * Lucas-Kanade reads a displacement from the first-order change of the picture: it shrinks
 * beyond a pixel or so and the direction of a fine texture aliases, and "back and forth" cannot
 * be read from it. A cell moving faster on average is not read as a sway: a flag's cloth
 * flapping by 2 px at 96 px wide at 3 Hz or more (2.4 px a sample and more), a mouse running
 * laps at a fifth of the view a second (2 px a sample). A tree's swing and vibration stay under
 * it: a real conifer in wind, filmed at 4 frames a second, moved its cells by 0.3 to 1.3 px
 * from one frame to the next (median 0.7); swinging by 1.5 px at 1 Hz is 0.6 px a sample.
 */
const LINEAR = 1;
/**
 * How far into a clip sways are measured: a sway of 0.3 Hz shows three periods in 10 s, and
 * the first 12 s of a clip tell whether its foliage sways; a longer clip adds cost, not
 * evidence.
 */
export const SWAY_SECONDS = 12;
/** A sway needs this long to be seen going and coming back (a period at about 0.7 Hz); shorter clips say nothing. */
const MIN_SWAY_S = 1.5;
/**
 * A camera sending fewer frames than the samples (2 to 5 a second, sampled at 10) repeats each
 * frame: the view changes in steps, each new frame carrying all the motion since the last, and
 * the samples between them only what the encoder refines (a twentieth to a tenth of it). A step
 * changes the view at least STEP times as much as the samples either side of it, and when at
 * least LOW_RATE of the samples are such steps, the clip is such a source: the sway is read from
 * the steps alone. Counted with the repeats, a crown swaying in every new frame moved in a
 * third of the samples, under PERSISTENT. A clip at its own rate changes smoothly from one
 * sample to the next; an encoder's key frame every second or more is a step too rare to count.
 */
const STEP = 3;
const LOW_RATE = 0.2;

export interface SwayPattern {
  /** the camera held still: the median of cameraMotion over the samples under MOVED */
  cameraStill: boolean;
  /** per cell, the share of samples it moved in */
  duty: Float32Array;
  /** per cell, |sum of its flows| / sum of their lengths, over the samples it moved in (0: back and forth, 1: one way) */
  straightness: Float32Array;
  /** per cell, the mean length of its flows over the samples it moved in (px) */
  speed: Float32Array;
  /** per cell, the correlation of its flow with the previous sample's (1: smooth, -1/2: noise or a vibration of 5 Hz) */
  smoothness: Float32Array;
  /** read where drops fall (rain or snow, or drops lit only near a lamp: precipitation.ts, dropsSeen), from samples with the drops taken out over several in a row (motion.ts, calmMotion): smoothness counts, from SMOOTH_IN_RAIN */
  inRain?: boolean;
  /**
   * per cell, the share of its texture that the clip's background keeps: the background's mean
   * gradient there over the samples' (1: what moves there is there all along; near 0: patterns
   * that come and go on a flat surface); absent when no background was given
   */
  lasting?: Float32Array;
}

/** The samples that carry the source's new frames: all of them, unless it sends fewer frames than the samples (STEP, LOW_RATE). */
function newFrames(samples: LocalMotion[]): LocalMotion[] {
  const change = new Float64Array(samples.length);
  for (let k = 0; k < samples.length; k++) {
    const cells = samples[k]!.change;
    let sum = 0;
    for (let c = 0; c < cells.length; c++) sum += cells[c]!;
    change[k] = sum / cells.length;
  }
  const steps: LocalMotion[] = [];
  for (let k = 0; k < samples.length; k++) if (change[k]! > STEP * Math.max(change[k - 1] ?? 0, change[k + 1] ?? 0)) steps.push(samples[k]!);
  return steps.length >= LOW_RATE * samples.length ? steps : samples;
}

/** The clip's noise: the 20th percentile of the cells' changes (the still part of the scene, its sensor and codec noise: about its σ). */
function noiseOf(local: LocalMotion[]): number {
  const cells = local[0]!.change.length;
  const all = new Float32Array(local.length * cells);
  for (let k = 0; k < local.length; k++) all.set(local[k]!.change, k * cells);
  return all.sort()[Math.floor(all.length * 0.2)] ?? 0;
}

/**
 * A cell at rest: the 20th percentile of its changes over the samples. A sway stops at each turn
 * and passes its middle fastest, so most of its changes stand well above its turns' (crowns and
 * flowers made dim or infrared: 1.5 times their rest in 76 to 96 % of their faint moves); a
 * dark, grainy surface changes about as much in every sample, whatever flow its grain fakes
 * (the board of `hand_ball.mp4`: half of them).
 */
function restingChange(local: LocalMotion[]): Float32Array {
  const cells = local[0]?.change.length ?? 0;
  const rest = new Float32Array(cells);
  const values = new Float32Array(local.length);
  for (let c = 0; c < cells; c++) {
    for (let k = 0; k < local.length; k++) values[k] = local[k]!.change[c]!;
    values.sort();
    rest[c] = values[Math.floor(local.length * 0.2)] ?? 0;
  }
  return rest;
}

/** The camera held still in this sample (it is one). */
const viewStill = (l: LocalMotion | undefined): boolean => l !== undefined && l.camera < MOVED;

/**
 * How each cell moved over the clip, from the samples' LocalMotion; undefined when the clip is
 * too short to tell. The samples in which the camera itself moved are left out: there every
 * textured cell moved with the view, and a camera that moves now and then (nudged by wind on
 * its pole, a source whose frames repeat) still counts as still, its own steps back and forth
 * read as the sway of every textured cell. `background`: the texture of the clip's background
 * per cell (cellTexture of its per-pixel median), for `lasting`. `drops`: rain or snow is seen,
 * whose drops and flakes brighten (or darken) what they cross one way and all at once, where
 * they are left in a sample: no light is read there (litCell).
 */
export function describeSway(samples: LocalMotion[], sampleFps: number, background?: Float32Array, drops = false): SwayPattern | undefined {
  if (samples.length < MIN_SWAY_S * sampleFps) return undefined;
  const local = newFrames(samples);
  if (local.length < 2) return undefined;
  const cells = local[0]!.change.length;
  const noise = noiseOf(local);
  const changed = Math.max(CHANGED, NOISY_CHANGE * noise);
  const duty = new Float32Array(cells);
  const sumX = new Float32Array(cells), sumY = new Float32Array(cells), length = new Float32Array(cells);
  const lagged = new Float32Array(cells), energy = new Float32Array(cells), texture = new Float32Array(cells);
  const stillSamples = local.filter(viewStill);
  const still = stillSamples.length;
  const rest = restingChange(stillSamples);
  // moves are held apart until the clip's end, when their cell's signs are known: faint ones
  // (MIXED), and the others, a light's where the cell brightened and darkened with the rest (litCell)
  const moves = () => ({ count: new Float32Array(cells), x: new Float32Array(cells), y: new Float32Array(cells), length: new Float32Array(cells), net: new Float32Array(cells), change: new Float32Array(cells), along: new Float32Array(cells) });
  const strong = moves();
  const faint = moves();
  const hold = (held: typeof strong, l: LocalMotion, c: number, u: number, v: number) => {
    held.count[c]++;
    held.x[c] += u;
    held.y[c] += v;
    held.length[c] += Math.hypot(u, v);
    held.net[c] += Math.abs(l.net[c]!);
    held.change[c] += l.change[c]!;
  };
  for (let k = 0; k < local.length; k++) {
    const l = local[k]!;
    if (!viewStill(l)) continue;
    const before = viewStill(local[k - 1]) ? local[k - 1] : undefined;
    const moved: number[] = [];
    for (let c = 0; c < cells; c++) {
      texture[c] += l.texture[c]!;
      const u = l.flow[c * 2]!, v = l.flow[c * 2 + 1]!;
      energy[c] += u * u + v * v;
      if (before) lagged[c] += u * before.flow[c * 2]! + v * before.flow[c * 2 + 1]!;
      const d = Math.hypot(u, v);
      if (d < MOVED || d < SIGNIFICANT * flowError(noise, l.texture[c]!, l.pixels)) continue;
      if (l.change[c]! >= changed) {
        hold(strong, l, c, u, v);
        moved.push(c);
      } else if (faintMove(l, c, rest[c]!, noise)) {
        hold(faint, l, c, u, v);
      }
    }
    const together = moved.reduce((sum, c) => sum + l.net[c]!, 0);
    for (const c of moved) if (Math.sign(l.net[c]!) === Math.sign(together)) strong.along[c]++;
  }
  for (let c = 0; c < cells; c++) {
    for (const held of [!drops && litCell(strong, c) ? undefined : strong, faint.net[c]! > MIXED * faint.change[c]! ? undefined : faint]) {
      if (!held) continue;
      duty[c] += held.count[c]!;
      sumX[c] += held.x[c]!;
      sumY[c] += held.y[c]!;
      length[c] += held.length[c]!;
    }
  }
  const straightness = new Float32Array(cells);
  const smoothness = new Float32Array(cells);
  const speed = new Float32Array(cells);
  for (let c = 0; c < cells; c++) {
    speed[c] = duty[c] ? length[c]! / duty[c]! : 0;
    duty[c] /= Math.max(1, still);
    straightness[c] = length[c] ? Math.hypot(sumX[c]!, sumY[c]!) / length[c]! : 0;
    smoothness[c] = energy[c] ? lagged[c]! / energy[c]! : 0;
  }
  let lasting: Float32Array | undefined;
  if (background) {
    lasting = new Float32Array(cells);
    for (let c = 0; c < cells; c++) lasting[c] = texture[c] ? Math.min(1, (background[c]! * still) / texture[c]!) : 1;
  }
  return { cameraStill: median(local.map((l) => l.camera)) < MOVED, duty, straightness, speed, smoothness, ...(lasting ? { lasting } : {}) };
}

/**
 * Evidence from witnesses: each independent one halves the doubt, and EVIDENCE_HALF of them make
 * an even chance. A cell is about 8x6 px at the motion pass's width: three cells swaying on
 * their own are a crown or a bush a quarter of the frame wide, more than a limb or a leaf in
 * front of the lens, and as sure as a label's threshold.
 */
const EVIDENCE_HALF = 3;
const evidence = (witnesses: number): number => 1 - 2 ** (-witnesses / EVIDENCE_HALF);

/** Two independent pieces of evidence for the same thing. */
export const eitherOf = (a: number, b: number): number => 1 - (1 - a) * (1 - b);

/**
 * A flag is compact: its persistent cells fill at least half of their box (one patch, not
 * scattered leaves), and the box spans at most two thirds of the frame's width and of its
 * height: a flag hangs from a pole and is seen with what is around it, where a tree line, a
 * hedge or foliage filling the view spans it.
 */
const COMPACT_FILL = 0.5;
const COMPACT_SPAN = 2 / 3;

export interface Flutter {
  /** where, in frame coordinates */
  box: Box;
  /** its persistent cells */
  cells: number;
}

export interface SwayFindings {
  /** swaying vegetation, 0..1, from the cells that persist in place and go back and forth */
  foliage: number;
  /** compact places of persistent motion: where a flag may be (never a flag by itself) */
  flutters: Flutter[];
}

/** The centre of a grid cell, in shares of the frame (as boxes are). */
export const cellCentre = (c: number, grid: Grid) => ({ x: ((c % grid.x) + 0.5) / grid.x, y: (Math.floor(c / grid.x) + 0.5) / grid.y });

/**
 * How smooth a sway is, from one sample to the next, is not asked of dry footage: a tree's boughs
 * swing slowly (0.3 to 2 Hz), but its branches and twigs also vibrate at their own frequencies
 * (2 to 6 Hz), excited by the wind's eddies, which at 10 samples a second correlate negatively
 * from one sample to the next (cos(2π f / 10)). A real conifer in wind, filmed at 4 frames a
 * second, had its cells' flows correlate by -0.2 to -0.45 with the frame before, as a made
 * swing correlates by 0.3 to 0.8. A noise does not persist: its flow is not three times its
 * error in half of the samples (describeSway).
 *
 * In rain or snow each sample is taken over several in a row (the drops' window), and what the
 * drops leave of themselves there changes a little with each new sample in the window: smooth
 * for a sample or two, from nothing that moved, and persistent where drops fall all the time.
 * Past that, noise correlates by about 0 (the window's difference of independent values), so
 * there the sway must show what a sway of 2 Hz or less shows (cos(2π 2 / 10)); the window,
 * a fifth of a second either side, averages a branch's vibration away.
 */
const SMOOTH_IN_RAIN = Math.cos((2 * Math.PI * 2) / 10);

/**
 * Foliage is there when it is still: a crown or a bush sways about its place, so the clip's
 * background (each pixel's median) keeps the leaves' and branches' texture; a sway of a pixel
 * at 96 px blurs away only what is finer. Rings that drops spread on a puddle, what drops leave
 * of themselves, light rippling on a flat floor are patterns that come and go where the
 * background is plain: it keeps under half of their texture (made drop rings: 0.1 to 0.5 of
 * it; a downpour's, dense enough to leave their own texture in the median, up to 0.9 in a few
 * cells, and those still pass; made trees and sunflowers swaying, dry, in rain and snow, three
 * times as far, grainy or at 240 px with a low bitrate: 0.55 to 1, most above 0.8).
 */
const LASTING = 0.5;

/** A cell that sways goes back and forth, slowly enough for its direction to be read (in rain or snow, smoothly), and is there when still. */
const swaysBackAndForth = (sway: SwayPattern, c: number) =>
  sway.straightness[c]! < RETURNS && sway.speed[c]! < LINEAR && (!sway.inRain || sway.smoothness[c]! > SMOOTH_IN_RAIN) &&
  (sway.lasting?.[c] ?? 1) >= LASTING;

/** The cells that sway (persistent, back and forth, slow), on a still camera; none otherwise. */
export function swayingCells(sway: SwayPattern | undefined): Uint8Array | undefined {
  if (!sway?.cameraStill) return undefined;
  return Uint8Array.from(sway.duty, (d, c) => (d >= PERSISTENT && swaysBackAndForth(sway, c) ? 1 : 0));
}

/** Share of a box's cells that sway; a box smaller than a cell takes the cell under its centre. */
export function swayingShare(box: Box, swaying: Uint8Array, grid: Grid): number {
  let inBox = 0, swayingInBox = 0;
  for (let c = 0; c < swaying.length; c++) {
    if (!inside(cellCentre(c, grid), box)) continue;
    inBox++;
    swayingInBox += swaying[c]!;
  }
  if (inBox) return swayingInBox / inBox;
  const x = Math.min(grid.x - 1, Math.floor((box.x + box.w / 2) * grid.x));
  const y = Math.min(grid.y - 1, Math.floor((box.y + box.h / 2) * grid.y));
  return swaying[y * grid.x + x]!;
}

/**
 * Foliage and flutters from how the cells moved. Cells under `explained` boxes (a person,
 * vehicle or animal found there: someone fidgeting in place persists too) do not count. Nothing
 * when the camera moved: a shaken, panning or zooming camera moves every cell.
 */
export function swayFindings(sway: SwayPattern | undefined, grid: Grid, explained: Box[] = []): SwayFindings {
  if (!sway?.cameraStill) return { foliage: 0, flutters: [] };
  const persistent = new Uint8Array(sway.duty.length);
  for (let c = 0; c < persistent.length; c++) {
    const centre = cellCentre(c, grid);
    persistent[c] = sway.duty[c]! >= PERSISTENT && !explained.some((b) => inside(centre, b)) ? 1 : 0;
  }
  const swaying = new Uint8Array(persistent.length);
  const flutters: Flutter[] = [];
  for (const group of cellGroups(persistent, grid)) {
    const backAndForth = group.filter((c) => swaysBackAndForth(sway, c));
    // foliage where most of a group goes back and forth (a walker's cells persist but go one way)
    if (backAndForth.length * 2 >= group.length) for (const c of backAndForth) swaying[c] = 1;
    const xs = group.map((c) => c % grid.x), ys = group.map((c) => Math.floor(c / grid.x));
    const x0 = Math.min(...xs), y0 = Math.min(...ys);
    const w = Math.max(...xs) - x0 + 1, h = Math.max(...ys) - y0 + 1;
    if (group.length >= COMPACT_FILL * w * h && w <= COMPACT_SPAN * grid.x && h <= COMPACT_SPAN * grid.y) {
      flutters.push({ box: { x: x0 / grid.x, y: y0 / grid.y, w: w / grid.x, h: h / grid.y }, cells: group.length });
    }
  }
  return { foliage: evidence(adjoining(swaying, grid)), flutters };
}

/**
 * How many set cells have a set cell beside them. A crown, a bush or a hedge sways as one, over
 * cells that adjoin; a cell swaying alone, with none beside it, is what a flicker of the
 * sensor's or the encoder's noise in one place does too (a dark, grainy view's cells, here and
 * there), and witnesses no plant.
 */
function adjoining(cells: Uint8Array, grid: Grid): number {
  let count = 0;
  for (let c = 0; c < cells.length; c++) {
    if (!cells[c]) continue;
    const x = c % grid.x;
    if ((x > 0 && cells[c - 1]) || (x < grid.x - 1 && cells[c + 1]) || cells[c - grid.x] || cells[c + grid.x]) count++;
  }
  return count;
}

/**
 * A flag: where a compact place flutters, the networks' flag score there (`networksFlag`: the
 * classifier's "flagpole", or what the detector called a flag in that place) is raised by the
 * flutter's evidence, up to double: with a clear flutter it counts from half its threshold. The
 * motion has narrowed what the place can be to a few things (a flag, a conveyor, a screen) and
 * the networks tell them apart; motion alone never makes a flag, and under half its threshold
 * the networks' doubt stands. Of the places the networks back, the largest. Returns the flag's
 * score (0: none) and the place that fluttered.
 */
export function flagFinding(flutters: Flutter[], networksFlag: (place: Box) => number, threshold: number): { score: number; flutter?: Flutter } {
  const backed = flutters.filter((f) => networksFlag(f.box) >= threshold / 2);
  if (!backed.length) return { score: 0 };
  const flutter = backed.reduce((a, b) => (b.cells > a.cells ? b : a));
  return { score: Math.min(1, networksFlag(flutter.box) * (1 + evidence(flutter.cells))), flutter };
}

export interface SwayScores {
  /** vegetation swaying, from motion alone */
  plant: number;
  /** something swaying or fluttering in place */
  wind: number;
  flag: number;
  /** where the flag found flutters */
  flagPlace?: Box;
}

/**
 * plant, wind and flag from what sways in place. `explained`: boxes of the people, vehicles and
 * animals found; `networksFlag`: the networks' best flag score for a place. A flag found is not
 * foliage too: its place is left out of the foliage.
 */
export function swayScores(sway: SwayPattern | undefined, grid: Grid, explained: Box[], networksFlag: (place: Box) => number, flagThreshold: number): SwayScores {
  const first = swayFindings(sway, grid, explained);
  const flag = flagFinding(first.flutters, networksFlag, flagThreshold);
  const foliage = flag.flutter ? swayFindings(sway, grid, [...explained, flag.flutter.box]).foliage : first.foliage;
  return { plant: foliage, wind: Math.max(foliage, flag.flutter ? evidence(flag.flutter.cells) : 0), flag: flag.score, ...(flag.flutter ? { flagPlace: flag.flutter.box } : {}) };
}
