// The cheap pass over the whole clip: small gray frames at a fixed sampling
// rate, differenced against the previous one. It says when things move (the
// energy of each sample), where (the moving cells of a coarse grid) and how,
// for the weather rules (the precipitation runs, the per-cell sway).
// Each sample is also compared with the clip's background (the median of its
// frames): a slow walker at night changes little from one sample to the next
// but stands out from the background the whole time.
import type { Box, ClipInfo, FrameCopy, Polygon } from '../core/analysis.js';
import { rasteriseMasks } from './camera-rules.js';
import { cellGroups, smallGroups } from './cell-groups.js';
import { dropWindow, medianFrame, pixelsRanging, withoutDrops, type DropLight } from './pixel-median.js';
import { CopyNotWritten, DECODE_THREADS, readFrameSets, readSparseGrays, scaledSize } from './frames.js';
import { findSmallMovers, type FineFrame, type SmallMovers } from './small-movers.js';
import { backToBack, dropLight, dropsSeen, PRECIPITATION_WIDTH, PrecipitationTracker, precipitationSchedule, precipitationScore, scheduleSelect, snowSeen, type PrecipitationEvidence } from './precipitation.js';
import { cellTexture, describeSway, localMotion, SWAY_SECONDS, type LocalMotion, type SwayPattern } from './foliage.js';
import { inView, viewPath, type ViewOffset } from './camera-path.js';
import { inFrame } from './boxes.js';
import { litDelta, relit } from './light.js';
import { bytesOf } from '../core/bytes.js';
import { BufferPool } from '../core/buffer-pool.js';
import { ABS_GAUSSIAN_QUARTILE, histogramLevel } from '../core/median.js';

/** samples per second of clip time, in the motion pass and for frame choice */
export const SAMPLE_FPS = 10;
const WIDTH = 96;
const GRID_X = 12;
const GRID_Y = 9;
/** a pixel moved when its gray level changed by more than this, in a view exposed as by day (movedDelta) */
const PIXEL_DELTA = 24;
/**
 * In an underexposed view PIXEL_DELTA shrinks with the light (light.ts, litDelta: the real
 * classroom in a third of the light, its median 42, moved no cell at 24, and its seated people
 * move by the median's share of it, about 12), but never below this many times the noise of
 * the two samples' difference: the gamma curve lifts a dark view's grain with its levels, and a
 * grainy night stream's is not all averaged away at 96 px. About 1 pixel in 1000 of Gaussian
 * noise passes (precipitation.ts's NOISE_FACTOR).
 */
const DELTA_NOISE = 3;
/** a cell moves when this fraction of its pixels moved */
const CELL_ACTIVE = 0.06;
/** a speck: a connected group of changed pixels at most this big (a raindrop or snowflake at 96 px wide) */
const SPECK_PIXELS = 4;
/** a pixel is foreground when its gray level differs from the background's by more than this */
const BACKGROUND_DELTA = 12;
/** frames (evenly spaced) whose per-pixel median is the background */
const BACKGROUND_FRAMES = 48;
/** frames kept for the background comparison: a longer clip is compared at a stride */
const KEEP_FRAMES = 1200;
/** foreground over this share of the grid is a change of light (clouds, infrared switching on), not an object */
const LIGHT_CHANGE = 0.6;
/**
 * Small movers are followed at this width: a spider or an insect a hundredth of the view wide
 * is a pixel or two here, and nothing at WIDTH.
 */
const FINE_WIDTH = 192;
/**
 * Small movers are followed at this many frames a second (a dash of a few body lengths between
 * two frames is still linked, small-movers.ts), and over at most FINE_FRAMES frames: a longer
 * clip is followed at a stride.
 */
const FINE_FPS = 5;
const FINE_FRAMES = 150;
/**
 * The finer samples' buffers (the precipitation runs', the small movers'), reused from clip to
 * clip (core/buffer-pool.ts): a short clip's come to a megabyte and a half, and allocated for
 * each clip they made V8 collect its whole heap every few clips. Room for a long clip's small
 * movers' frames.
 */
const finerFrames = new BufferPool(4 * 1024 * 1024);
/**
 * Motion needs no exact picture: skipping the deblocking filter decodes faster (one decoding
 * thread too: DECODE_THREADS). A reference decoded unfiltered differs from the encoder's, and
 * the frames predicted from it drift until the next keyframe: the real empty room filmed in
 * infrared, 12 s in one group of pictures, stood out of its background by up to 7 levels at
 * 96 px (`other`). Filtering the references only (`noref`) took the drift away, and moved
 * marginal outcomes in rain both ways (the bench README, "The real views at night"): not kept.
 */
const ROUGH_DECODE = ['-skip_loop_filter', 'all', '-flags2', '+fast'];

export interface MotionSample {
  /** seconds from the start */
  t: number;
  /** fraction of pixels that changed since the previous sample */
  energy: number;
  /** the moving cells (row-major GRID_X x GRID_Y) */
  cells: Uint8Array;
  /** the box around the largest group of moving cells, when any */
  region: Box | undefined;
  /** the moving cells counting only changes larger than specks: objects, not raindrops */
  solidCells: Uint8Array;
  /** cells that differ from the clip's background in this sample and the samples either side */
  foreground: Uint8Array;
  /**
   * how each cell moved since the previous sample, and the camera (foliage.ts): from the second
   * sample to SWAY_SECONDS, where the camera moved (followTheView reads it, sample by sample);
   * the sway is read from calmMotion's
   */
  local?: LocalMotion;
  /** a closer look at a small mover (small-movers.ts): the box around its path, which it went its own length or more along */
  path?: Box;
  /**
   * On a camera that moved (panned, tilted, swung), where the view's content has moved since the
   * clip's start (camera-path.ts); absent on a still camera, whose view stays where it is.
   */
  view?: ViewOffset;
  /**
   * On a camera that moved, the cells that changed since the previous sample against the view:
   * that sample laid onto this one by the view's shift, so that what moved in the scene shows,
   * not the whole view sliding by (a pan changes every cell).
   */
  sceneCells?: Uint8Array;
}

export interface MotionPattern {
  /** some sample moved */
  moving: boolean;
  /**
   * The camera's own motion: the median global shift between consecutive samples of the
   * precipitation analysis's runs (a source's repeated frames left out), in px per sample at
   * 320 px wide (precipitation.ts); 0 where no run was analysed (none could show drops). A
   * still camera is under 1 px, a slow pan a few; when the only textured thing in view moves (a
   * conveyor under a plain wall) its motion is taken for the camera's.
   */
  pan: number;
  /**
   * Of the pixels that differ from both neighbouring samples, the share that do so again at the
   * same place two samples later: near 0 for rain and snow (drops land elsewhere each time),
   * 0.5 and more for a flicker at fixed places (leaves, compression blocks).
   */
  repeat: number;
  /** share of the view where thin short-lived streaks are seen (raindrops), or their merged texture (a downpour), in the typical sample */
  streaks: number;
  /** share of the view where small bright blobs are seen falling (snowflakes), in the typical sample */
  flakes: number;
  /** how each cell moved over the clip, for foliage and flags (foliage.ts); not for a clip too short to tell */
  sway?: SwayPattern;
  /** the frame's width over its height: boxes are in shares of each side, distances in pixels need it (1 when not known) */
  aspect?: number;
  /**
   * Where every change the motion pass saw was a blip (blipsOnly), the cells that changed or
   * stood out: a burned-in clock's digits turning. No thing moved there.
   */
  blips?: Uint8Array;
}

export interface MotionAnalysis {
  samples: MotionSample[];
  pattern: MotionPattern;
  /**
   * Small things that move through the view as creatures do (small-movers.ts): followed when
   * first asked for, as the decision needs them only where the networks found no one.
   */
  smallMovers: () => SmallMovers;
  /** per sample, its frame at each of MotionOptions.keep's sizes, when asked for */
  frames?: Buffer[][];
  /**
   * Gives the small movers' frames back for the next clip's pass, once the caller is done with
   * the analysis: smallMovers() is not called after (it throws). Not calling it only costs memory
   * that the garbage collector takes back.
   */
  release: () => void;
}

export const MOTION_GRID = { x: GRID_X, y: GRID_Y };

function groupBox(group: number[]): Box {
  const xs = group.map((c) => c % GRID_X);
  const ys = group.map((c) => Math.floor(c / GRID_X));
  const x0 = Math.min(...xs);
  const y0 = Math.min(...ys);
  return { x: x0 / GRID_X, y: y0 / GRID_Y, w: (Math.max(...xs) - x0 + 1) / GRID_X, h: (Math.max(...ys) - y0 + 1) / GRID_Y };
}

/** Marks the specks: 8-connected groups of changed pixels of at most SPECK_PIXELS. */
function findSpecks(changedMask: Uint8Array, width: number, height: number): Uint8Array {
  return smallGroups(changedMask, width, height, SPECK_PIXELS);
}

/** The grid cell of every pixel, and the pixels in each cell: the same for every sample of a clip. */
interface PixelGrid {
  width: number;
  height: number;
  cellOf: Uint16Array;
  size: Uint32Array;
}

function pixelGrid(width: number, height: number): PixelGrid {
  const cellOf = new Uint16Array(width * height);
  const size = new Uint32Array(GRID_X * GRID_Y);
  for (let y = 0; y < height; y++) {
    const row = Math.min(GRID_Y - 1, Math.floor((y * GRID_Y) / height)) * GRID_X;
    for (let x = 0; x < width; x++) {
      const cell = row + Math.min(GRID_X - 1, Math.floor((x * GRID_X) / width));
      cellOf[y * width + x] = cell;
      size[cell]++;
    }
  }
  return { width, height, cellOf, size };
}

/** Scratch for movedDelta's histograms (it runs on every sample, to its end, one call at a time). */
const histogram = new Uint32Array(256);

/**
 * How much a pixel must change from `prev` to `cur` to have moved: PIXEL_DELTA where `prev` is
 * exposed as by day, less in an underexposed view (changeDelta).
 */
export function movedDelta(prev: Uint8Array, cur: Uint8Array): number {
  return changeDelta(PIXEL_DELTA, prev, cur);
}

/**
 * How much a pixel must change from `prev` to `cur` to count: `full` where `prev` is exposed as
 * by day; in an underexposed view less, with the light (litDelta; masked pixels, held at 0,
 * count as dark), down to DELTA_NOISE times the difference's noise
 * (sigma from its lower quartile, over that of a Gaussian: it holds while most of the view
 * changes, as precipitation.ts's transientMap reads it; without `cur`, the light's share
 * alone). The noise is read off every other pixel: a view's grain is the same all over it.
 */
function changeDelta(full: number, prev: Uint8Array, cur?: Uint8Array): number {
  const lit = litDelta(full, prev);
  if (!cur || lit === full) return lit;
  histogram.fill(0);
  let counted = 0;
  for (let i = 0; i < prev.length; i += 2, counted++) histogram[Math.abs(cur[i]! - prev[i]!)]++;
  const noise = histogramLevel(histogram, counted, 0.25) / ABS_GAUSSIAN_QUARTILE;
  return Math.min(full, Math.max(lit, DELTA_NOISE * noise));
}

function compare(prev: Uint8Array, cur: Uint8Array, grid: PixelGrid): Omit<MotionSample, 't'> {
  const { width, height, cellOf, size } = grid;
  const changedMask = new Uint8Array(width * height);
  // a change of light (lightning, a light switched on, the camera's gain) moves no thing
  const before = relit(prev, cur);
  const delta = movedDelta(before, cur);
  let changed = 0;
  for (let i = 0; i < changedMask.length; i++) {
    if (Math.abs(cur[i]! - before[i]!) > delta) {
      changed++;
      changedMask[i] = 1;
    }
  }
  const specks = findSpecks(changedMask, width, height);
  const moved = new Uint32Array(GRID_X * GRID_Y);
  const movedSolid = new Uint32Array(GRID_X * GRID_Y);
  for (let i = 0; i < changedMask.length; i++) {
    if (!changedMask[i]) continue;
    moved[cellOf[i]!]++;
    if (!specks[i]) movedSolid[cellOf[i]!]++;
  }
  const cells = cellsOver(moved, size);
  const groups = cellGroups(cells, MOTION_GRID);
  const largest = groups.sort((a, b) => b.length - a.length)[0];
  return {
    energy: changed / (width * height),
    cells,
    solidCells: cellsOver(movedSolid, size),
    region: largest ? groupBox(largest) : undefined,
    foreground: new Uint8Array(GRID_X * GRID_Y),
  };
}

/** Cells where the pixels counted are a share of at least CELL_ACTIVE of the cell's `size`. */
function cellsOver(counts: Uint32Array, size: Uint32Array): Uint8Array {
  const cells = new Uint8Array(GRID_X * GRID_Y);
  for (let c = 0; c < cells.length; c++) cells[c] = size[c] && counts[c]! / size[c]! >= CELL_ACTIVE ? 1 : 0;
  return cells;
}

/** Cells where a share of pixels of at least CELL_ACTIVE is set in the mask. */
function activeCells(mask: Uint8Array, grid: PixelGrid): Uint8Array {
  const counts = new Uint32Array(GRID_X * GRID_Y);
  for (let i = 0; i < mask.length; i++) if (mask[i]) counts[grid.cellOf[i]!]++;
  return cellsOver(counts, grid.size);
}

/**
 * The cells where `frame` stands out of the background by solid (not speck) differences; none
 * where that is over LIGHT_CHANGE of the grid (a change of light). `mask` is scratch.
 */
function backgroundCells(frame: Uint8Array, background: Uint8Array, mask: Uint8Array, grid: PixelGrid): Uint8Array {
  // a dim view shows what stands out as it shows what moves: at its light (changeDelta)
  const delta = changeDelta(BACKGROUND_DELTA, background, frame);
  for (let i = 0; i < mask.length; i++) mask[i] = Math.abs(frame[i]! - background[i]!) > delta ? 1 : 0;
  const specks = findSpecks(mask, grid.width, grid.height);
  for (let i = 0; i < mask.length; i++) if (specks[i]) mask[i] = 0;
  const cells = activeCells(mask, grid);
  let set = 0;
  for (let c = 0; c < cells.length; c++) set += cells[c]!;
  return set > LIGHT_CHANGE * cells.length ? new Uint8Array(cells.length) : cells;
}

/**
 * Marks each kept sample's foreground: solid (not speck) differences from the background (the
 * kept samples' per-pixel median; none for fewer than three samples) that
 * persist over the neighbouring kept samples (noise flickers, an object stays), and gives a
 * sample where only the foreground moved a region, so slow movers are found and chosen.
 * `wet` (rain or snow seen): a drop changes the cells it crosses in one sample, somewhere else
 * in the next; a sample's region is then the largest group of its cells that changed in the
 * sample before or after too (a walker, a car: each sample overlaps the last), or stand out of
 * the background. Else the drops' cells made every sample of a rainy clip move, and its
 * regions were wherever the drops were thickest.
 */
function addForeground(kept: Array<{ sample: MotionSample; frame: Uint8Array }>, grid: PixelGrid, wet: boolean, background: Uint8Array | undefined): void {
  if (!background) return;
  const mask = new Uint8Array(background.length);
  const raw: Uint8Array[] = [];
  for (const { frame } of kept) raw.push(backgroundCells(frame, background, mask, grid));
  const none = new Uint8Array(GRID_X * GRID_Y);
  const union = new Uint8Array(GRID_X * GRID_Y);
  for (let k = wet ? 0 : 1; k < kept.length - (wet ? 0 : 1); k++) {
    const sample = kept[k]!.sample;
    const { cells, foreground } = sample;
    if (k > 0 && k < kept.length - 1) for (let c = 0; c < foreground.length; c++) foreground[c] = raw[k - 1]![c]! & raw[k]![c]! & raw[k + 1]![c]!;
    const before = kept[k - 1]?.sample.cells ?? none;
    const after = kept[k + 1]?.sample.cells ?? none;
    for (let c = 0; c < union.length; c++) union[c] = (wet ? cells[c]! & (before[c]! | after[c]!) : cells[c]!) | foreground[c]!;
    const groups = cellGroups(union, MOTION_GRID).sort((a, b) => b.length - a.length);
    // in rain or snow, dense drops keep cells changing sample after sample anywhere: the group
    // where something stands out of the background is the object, larger or not
    const largest = (wet && groups.find((g) => g.some((c) => foreground[c]))) || groups[0];
    if (largest) sample.region = groupBox(largest);
    else if (wet) sample.region = undefined;
  }
}

/** Whether `sample` changed a cell at `cell` or beside it. */
function changedAround(sample: MotionSample | undefined, cell: number): boolean {
  if (!sample) return false;
  const x = cell % GRID_X;
  const y = Math.floor(cell / GRID_X);
  for (let yy = Math.max(0, y - 1); yy <= Math.min(GRID_Y - 1, y + 1); yy++) {
    for (let xx = Math.max(0, x - 1); xx <= Math.min(GRID_X - 1, x + 1); xx++) if (sample.cells[yy * GRID_X + xx]) return true;
  }
  return false;
}

/**
 * Where every change the motion pass saw was a blip, the cells that changed or stood out;
 * undefined where something moved. Whatever moves is seen in consecutive samples: at SAMPLE_FPS
 * a walker, a car, a bird crossing the view spend several in it. A burned-in clock's digits
 * turn in one sample and stand still in the next, as a keyframe's refresh does: a sample's
 * changed cells are a blip where none has a cell on or beside it changed in the sample before
 * or after. A digit's state held for a second stands out of the background; it does so where
 * it stood out before or where a digit turned, while a car creeping in under the change a
 * sample shows stands out anew, cell after cell, where nothing blipped. Said only of a dry clip
 * whose samples are all kept and distinct frames (a drop is in one sample only; a source that
 * repeats its frames stands still between them).
 */
export function blipsOnly(samples: MotionSample[]): Uint8Array | undefined {
  if (!samples.some((s) => s.region)) return undefined;
  const blipped = (k: number, c: number) => changedAround(samples[k], c);
  const where = new Uint8Array(GRID_X * GRID_Y);
  for (let k = 0; k < samples.length; k++) {
    const { cells, foreground } = samples[k]!;
    if (cells.some((changed, c) => changed && (blipped(k - 1, c) || blipped(k + 1, c)))) return undefined;
    // the first samples' foreground stood out from the clip's start (addForeground reads three samples)
    const anew = (c: number) => k > 1 && !where[c] && ![k - 2, k - 1, k, k + 1].some((j) => blipped(j, c));
    if (foreground.some((standing, c) => standing && anew(c))) return undefined;
    for (let c = 0; c < where.length; c++) where[c] ||= cells[c]! | foreground[c]!;
  }
  return where;
}

/** What the motion pattern says of precipitation and the camera's motion, from the precipitation analysis. */
function weatherOf(e: PrecipitationEvidence | undefined): Pick<MotionPattern, 'pan' | 'repeat' | 'streaks' | 'flakes'> {
  return { pan: e?.pan ?? 0, repeat: e?.repeat ?? 0, streaks: e?.streakSpread ?? 0, flakes: e?.flakeSpread ?? 0 };
}

/**
 * The motion pattern. `calm`: how each cell moved with what is in one sample only taken out
 * (calmMotion); the sway is read from it where it can be had. `background`: the texture of the
 * clip's background per cell (what foliage keeps, describeSway).
 */
export function describePattern(
  samples: MotionSample[], precipitation?: PrecipitationEvidence, aspect?: number, calm?: () => LocalMotion[] | undefined, background?: () => Float32Array | undefined,
): MotionPattern {
  const weather = { ...weatherOf(precipitation), ...(aspect ? { aspect } : {}) };
  const movingSamples = samples.filter((s) => s.region);
  if (movingSamples.length === 0) return { moving: false, ...weather };
  const drops = precipitation !== undefined && dropsSeen(precipitation);
  const sway = describeSway(calm?.() ?? samples.flatMap((s) => (s.local ? [s.local] : [])), SAMPLE_FPS, background?.(), drops);
  return { moving: true, ...weather, ...(sway ? { sway: drops ? { ...sway, inRain: true } : sway } : {}) };
}

/**
 * How each cell moved over the first SWAY_SECONDS with what is in one sample only taken out:
 * each sample the median of it and the samples either side. A raindrop or a flake is at a place
 * in one of them, and adds its own fall to every cell's flow (in snow a swaying tree's cells no
 * longer went back and forth); so is a sparkle of the sensor or the encoder. A branch swaying at
 * 2 Hz or less moves a pixel or so at this size in a tenth of a second: the median of three is
 * the middle one (withoutDrops, for drops that showed no one way). In rain or snow whose drops
 * all brighten (or all darken) what they cross (`light`), each sample is instead its darkest
 * (brightest) over a fifth of a second either side, as the looks take the drops out: the
 * median of three leaves a downpour's drops in every cell, where this leaves a few. So too where
 * drops are seen only near a lamp (dropsSeen): their cone of streaks flickers as a sway would. Undefined
 * where the kept samples are strided (a clip of minutes): their flows would not be a tenth of
 * a second apart.
 */
function calmMotion(kept: Array<{ sample: MotionSample; frame: Uint8Array }>, grid: PixelGrid, light: DropLight = 'either'): LocalMotion[] | undefined {
  if (kept.length > 1 && Math.round((kept[1]!.sample.t - kept[0]!.sample.t) * SAMPLE_FPS) !== 1) return undefined;
  const reach = dropWindow(light, SAMPLE_FPS) >> 1;
  const frames = kept.slice(0, SWAY_SECONDS * SAMPLE_FPS + 2 * reach).map((k) => k.frame);
  const calm: Uint8Array[] = [];
  for (let k = 0; k + 2 * reach < frames.length; k++) calm.push(withoutDrops(frames.slice(k, k + 2 * reach + 1), light));
  const motion: LocalMotion[] = [];
  for (let k = 1; k < calm.length; k++) motion.push(localMotion(calm[k - 1]!, calm[k]!, grid, MOTION_GRID));
  return motion;
}

export interface MotionOptions {
  /** the camera's masks: masked pixels never count */
  masks?: Polygon[];
  /** a copy of the frames to write from the same decode (the highlight's) */
  copy?: FrameCopy;
  /**
   * Every sample also at these RGB sizes, kept in `MotionAnalysis.frames` (a small clip's chosen
   * frames: no second decode), unless they come to more than maxBytes (a clip longer than it said).
   */
  keep?: { sizes: Array<{ width: number; height: number }>; source: { width: number; height: number }; maxBytes: number };
}

/**
 * Runs the motion pass over the whole clip.
 * A copy of the frames, when asked for, comes from the same decode; it carries the skipped
 * deblocking too, which at a highlight's size measured 44 to 53 dB PSNR from a full decode
 * on the real camera clips (well beyond what its own encoding keeps). Samples kept at other
 * sizes are for the networks: that decode is a full one, as the chosen frames' own would be.
 */
export async function analyseMotion(
  clip: Pick<ClipInfo, 'path' | 'width' | 'height' | 'duration' | 'headerDescribed' | 'interlaced'> & { fps?: number }, signal: AbortSignal, options: MotionOptions = {},
): Promise<MotionAnalysis> {
  const { width, height } = scaledSize(clip.width, clip.height, WIDTH);
  const fine = scaledSize(clip.width, clip.height, FINE_WIDTH);
  const grid = pixelGrid(width, height);
  // Rasterised once per clip; a masked pixel is held at 0, so it neither changes nor stands out from the background.
  const masked = rasteriseMasks(options.masks ?? [], width, height);
  const fineMasked = rasteriseMasks(options.masks ?? [], fine.width, fine.height);
  // Rain and snow are looked for at a larger size, on a few runs of samples that ffmpeg picks
  // from the same decode (precipitation.ts).
  const wet = scaledSize(clip.width, clip.height, PRECIPITATION_WIDTH);
  const wetMasked = rasteriseMasks(options.masks ?? [], wet.width, wet.height);
  const schedule = precipitationSchedule(Math.ceil(clip.duration * SAMPLE_FPS), SAMPLE_FPS, clip.fps);
  const stride = Math.max(1, Math.ceil((clip.duration * SAMPLE_FPS) / KEEP_FRAMES));
  const fineStride = Math.max(Math.round(SAMPLE_FPS / FINE_FPS), Math.ceil((clip.duration * SAMPLE_FPS) / FINE_FRAMES));
  const { keep } = options;
  // a run's sample as the precipitation tracker takes it: a plain Uint8Array (core/bytes.ts), masked
  const wetSample = (buffer: Buffer) => {
    const frame = bytesOf(buffer);
    if (wetMasked) for (let i = 0; i < frame.length; i++) if (wetMasked[i]) frame[i] = 0;
    return { data: frame, ...wet };
  };
  const pass = async (copy: FrameCopy | undefined) => {
    const samples: MotionSample[] = [];
    const kept: Array<{ sample: MotionSample; frame: Uint8Array }> = [];
    const fineFrames: FineFrame[] = [];
    let frames: Buffer[][] | undefined = keep && [];
    let keptBytes = 0;
    let prev: Uint8Array | undefined;
    let index = 0;
    const tracker = new PrecipitationTracker(schedule, (pixels) => finerFrames.give(pixels));
    const onFrame = (buffer: Buffer) => tracker.push(wetSample(buffer));
    const onFine = (frame: Buffer) => fineFrames.push({ t: (fineFrames.length * fineStride) / SAMPLE_FPS, gray: bytesOf(frame) });
    for await (const [gray, ...views] of readFrameSets({
      input: clip.path, headerDescribed: clip.headerDescribed, interlaced: clip.interlaced, gray: { width, height }, sizes: keep?.sizes ?? [], source: keep?.source, signal, copy,
      sparseGrays: [
        { ...wet, select: scheduleSelect(schedule), onFrame, pool: finerFrames },
        { ...fine, select: `not(mod(n\\,${fineStride}))`, onFrame: onFine, pool: finerFrames },
      ],
      // not for frames the networks see, kept for a small clip
      inputArgs: [...DECODE_THREADS, ...(keep ? [] : ROUGH_DECODE)],
      filters: `fps=${SAMPLE_FPS}`,
    })) {
      const cur = bytesOf(gray!); // its own buffer (frames.ts): masked pixels are zeroed in place
      if (masked) for (let i = 0; i < cur.length; i++) if (masked[i]) cur[i] = 0;
      if (frames) {
        keptBytes += views.reduce((sum, v) => sum + v.length, 0);
        if (keptBytes <= keep!.maxBytes) frames.push(views);
        else frames = undefined; // the caller decodes its chosen frames itself
      }
      const empty = () => new Uint8Array(GRID_X * GRID_Y);
      const sample: MotionSample = prev
        ? { t: index / SAMPLE_FPS, ...compare(prev, cur, grid) }
        : { t: 0, energy: 0, cells: empty(), solidCells: empty(), region: undefined, foreground: empty() };
      // strided kept frames (a clip of minutes) lack the sample before: its local motion is had now or never
      if (stride > 1 && prev && index <= SWAY_SECONDS * SAMPLE_FPS) sample.local = localMotion(prev, cur, grid, MOTION_GRID);
      samples.push(sample);
      if (index % stride === 0) kept.push({ sample, frame: cur });
      prev = cur;
      index++;
    }
    return { samples, kept, frames, fineFrames, precipitation: tracker.evidence(), repeatingRate: tracker.repeatingRate(SAMPLE_FPS) };
  };
  // Rain and snow looked for again at a source's own rate: runs back to back from the start, the
  // decode stopped once they are taken or the view is found dry (weather is everywhere all the
  // time, and a re-rated file is often a long one).
  const precipitationAt = async (sourceFps: number): Promise<PrecipitationEvidence> => {
    const { length } = precipitationSchedule(Math.ceil(clip.duration * SAMPLE_FPS), SAMPLE_FPS, sourceFps);
    const tracker = new PrecipitationTracker(backToBack(length), (pixels) => finerFrames.give(pixels));
    const onFrame = (buffer: Buffer) => (tracker.seenEnough() ? finerFrames.give(buffer) : tracker.push(wetSample(buffer)));
    await readSparseGrays({
      input: clip.path, headerDescribed: clip.headerDescribed, interlaced: clip.interlaced, signal, filters: `fps=${SAMPLE_FPS}`, inputArgs: [...DECODE_THREADS, ...ROUGH_DECODE],
      sparseGrays: [{ ...wet, select: '1', onFrame, pool: finerFrames }],
    }, () => tracker.seenEnough());
    return tracker.evidence();
  };
  // the copy only saves the highlight a decode: when it cannot be written, the pass goes on without it
  const { samples, kept, frames, fineFrames, repeatingRate, ...first } = await pass(options.copy).catch((err: unknown) => {
    if (err instanceof CopyNotWritten) return pass(undefined);
    throw err;
  });
  if (samples.length === 0) throw new Error('the clip has no frames');
  // A source that repeats its frames left its runs short of distinct samples: rain and snow are
  // looked for again in runs long enough for its rate, on a decode of their own (only such a
  // source pays for it).
  const precipitation = repeatingRate === undefined ? first.precipitation : await precipitationAt(repeatingRate);
  const falling = precipitationScore(precipitation) > 0; // rain or snow
  const drops = dropsSeen(precipitation); // rain or snow, or drops lit only near a lamp
  // the clip's background: what stays in place outvotes what passes (foreground, foliage's texture)
  let background: Uint8Array | undefined;
  const backgroundOf = () => (kept.length >= 3 ? (background ??= medianFrame(kept.map((k) => k.frame), BACKGROUND_FRAMES)) : undefined);
  // A median lies within each pixel's range over the frames: where no pixel ranges over what
  // stands out at the view's light (a still view), nothing stands out of the background, and a
  // dry clip's samples keep their regions as they are (no background is taken for that).
  const ranging = () => pixelsRanging(kept.map((k) => k.frame), width * height, changeDelta(BACKGROUND_DELTA, kept[0]!.frame)) > 0;
  if (falling || (kept.length > 0 && ranging())) addForeground(kept, grid, falling, backgroundOf());
  const pattern = describePattern(
    samples, precipitation, clip.width / clip.height, () => calmMotion(kept, grid, drops ? dropLight(precipitation) : 'either'),
    () => { const bg = backgroundOf(); return bg && cellTexture(bg, grid, MOTION_GRID); },
  );
  const blips = !falling && repeatingRate === undefined && kept.length === samples.length ? blipsOnly(samples) : undefined;
  if (blips) pattern.blips = blips;
  if (pattern.sway && !pattern.sway.cameraStill) {
    if (stride === 1) addLocalMotion(kept, grid); // every sample kept: each one's from them
    followTheView(samples, kept, grid, !falling);
  }
  let movers: SmallMovers | undefined;
  let released = false;
  // where drops are seen (rain or snow, or too few for it), they are taken out before small things are followed
  const smallMovers = () => {
    if (released) throw new Error('the motion analysis was released: its small movers can no longer be followed');
    return (movers ??= findSmallMovers(fineFrames, fine.width, fine.height, fineMasked, {
      falling: drops ? dropLight(precipitation) : undefined, flakes: snowSeen(precipitation),
    }));
  };
  const release = () => {
    if (released) return;
    released = true;
    for (const frame of fineFrames) finerFrames.give(frame.gray);
    fineFrames.length = 0;
  };
  return { samples, pattern, smallMovers, release, ...(frames ? { frames } : {}) };
}

/** Each sample's local motion (MotionSample.local) to SWAY_SECONDS, from the kept frames: every sample's, in order. */
function addLocalMotion(kept: Array<{ sample: MotionSample; frame: Uint8Array }>, grid: PixelGrid): void {
  for (let k = 1; k < kept.length && k <= SWAY_SECONDS * SAMPLE_FPS; k++) kept[k]!.sample.local = localMotion(kept[k - 1]!.frame, kept[k]!.frame, grid, MOTION_GRID);
}

/**
 * On a camera that moved, where each sample's view lies (MotionSample.view): matched between
 * the kept samples, where the camera moved between them (it moved the view rigidly in one of
 * the samples between, or they lie past the first SWAY_SECONDS, where that is not measured),
 * and in between the kept samples (a long clip's stride) by the nearer one before. With
 * `reframe`, each sample's region is around what moves on in the scene (goingOn): not in rain
 * or snow, whose drops change the scene on and on too (a downpour's overlap from sample to
 * sample at this size), and where the wet rule drew the regions.
 */
function followTheView(samples: MotionSample[], kept: Array<{ sample: MotionSample; frame: Uint8Array }>, grid: PixelGrid, reframe: boolean): void {
  const indexOf = (sample: MotionSample) => Math.round(sample.t * SAMPLE_FPS);
  const moved = (k: number) => {
    const between = samples.slice(indexOf(kept[k - 1]!.sample) + 1, indexOf(kept[k]!.sample) + 1);
    return between.some((s) => !s.local || s.local.camera > 0);
  };
  const path = viewPath(kept.map((k) => k.frame), grid.width, grid.height, moved);
  let last: { box: Box; view: ViewOffset } | undefined; // where something last moved on, and the view then
  for (let k = 1; k < kept.length; k++) {
    const shift = { dx: (path[k]!.x - path[k - 1]!.x) * grid.width, dy: (path[k]!.y - path[k - 1]!.y) * grid.height };
    const sample = kept[k]!.sample;
    const scene = sceneChanges(kept[k - 1]!.frame, kept[k]!.frame, shift, grid);
    sample.sceneCells = scene.cells;
    const going = goingOn(scene, kept[k - 1]!.sample.sceneCells);
    if (going) last = { box: groupBox(going), view: path[k]! };
    // a body that stops moving on is still there, where the scene carried it in the view
    const there = last && inFrame(inView(last.box, last.view, path[k]!));
    if (reframe && there && sample.region) sample.region = there;
  }
  let k = 0;
  for (const sample of samples) {
    while (k + 1 < kept.length && indexOf(kept[k + 1]!.sample) <= indexOf(sample)) k++;
    sample.view = path[k];
  }
}

/**
 * A body moving in the scene covers or uncovers much of a cell it passes: at least this share
 * of some cell's pixels changed. A sub-pixel misalignment of the view leaves a line of a pixel or
 * two along a still edge, under a third of a cell of 8 x 6 px (measured: a quarter at most on
 * the made pans of still pictures and on the empty stretches of indoor_one_by_one shaken; 0.7
 * to 0.98 in most samples of the walkers and shoppers shaken or panned).
 */
const BODY_SHARE = 0.4;

/**
 * On a camera that moved, what moves on in the scene: the largest group of a sample's scene
 * changes, where most of it, two cells at least, changed in the sample before too, and some cell
 * of it changed over BODY_SHARE of its pixels. A body moving through the scene goes less than
 * its own size in a tenth of a second and overlaps where it was; what the view's shift leaves of
 * still edges (a sub-pixel misalignment) is thin. A sample's region is then around that body,
 * not around the whole view sliding by (a shaken camera framed a walker's every look at the
 * middle of the view, and cut him off), and after it stops, where it was; where nothing moved
 * on yet (a pan over seated people), the view stays the region.
 */
function goingOn(scene: { cells: Uint8Array; share: Float32Array }, before: Uint8Array | undefined): number[] | undefined {
  if (!before) return undefined;
  const largest = cellGroups(scene.cells, MOTION_GRID).sort((a, b) => b.length - a.length)[0] ?? [];
  const stayed = largest.filter((c) => before[c]).length;
  const covers = largest.some((c) => scene.share[c]! >= BODY_SHARE);
  return covers && stayed >= 2 && 2 * stayed >= largest.length ? largest : undefined;
}

/**
 * The cells where `cur` changed from `prev` laid onto it by the view's shift (bilinear, a
 * fraction of a pixel), counted as compare() counts changes by day (PIXEL_DELTA, whatever the
 * light: a view laid onto another leaves residuals along the scene's edges as large as their
 * contrast, which a portrait against black keeps bright), specks left out: what moved in the
 * scene while the camera moved; and the share of each cell's pixels that changed. Pixels whose
 * counterpart lies out of `prev`'s view do not count.
 */
function sceneChanges(prev: Uint8Array, cur: Uint8Array, shift: { dx: number; dy: number }, grid: PixelGrid): { cells: Uint8Array; share: Float32Array } {
  const { width, height } = grid;
  const changed = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const sy = y - shift.dy;
    const y0 = Math.floor(sy);
    if (y0 < 0 || y0 + 1 >= height) continue;
    const fy = sy - y0;
    for (let x = 0; x < width; x++) {
      const sx = x - shift.dx;
      const x0 = Math.floor(sx);
      if (x0 < 0 || x0 + 1 >= width) continue;
      const fx = sx - x0;
      const i = y0 * width + x0;
      const was = (prev[i]! * (1 - fx) + prev[i + 1]! * fx) * (1 - fy) + (prev[i + width]! * (1 - fx) + prev[i + width + 1]! * fx) * fy;
      if (Math.abs(cur[y * width + x]! - was) > PIXEL_DELTA) changed[y * width + x] = 1;
    }
  }
  const specks = findSpecks(changed, width, height);
  const counts = new Uint32Array(GRID_X * GRID_Y);
  for (let i = 0; i < changed.length; i++) if (changed[i] && !specks[i]) counts[grid.cellOf[i]!]++;
  return { cells: cellsOver(counts, grid.size), share: Float32Array.from(counts, (n, c) => n / Math.max(1, grid.size[c]!)) };
}

/** The width of the motion pass's gray frames. */
export const MOTION_WIDTH = WIDTH;

/**
 * The motion pass's per-sample comparison for frames that come one by one (a live stream):
 * each call compares a gray frame of width x height with the one before it. Masked pixels
 * (relative polygons, rasterised once) are zeroed in place, so they never count.
 */
export function frameComparer(width: number, height: number, masks: Polygon[] = []): (frame: Uint8Array) => Omit<MotionSample, 't'> | undefined {
  const grid = pixelGrid(width, height);
  const masked = rasteriseMasks(masks, width, height);
  let prev: Uint8Array | undefined;
  return (frame) => {
    const cur = bytesOf(frame); // the same memory: masked pixels are zeroed in the caller's frame
    if (masked) for (let i = 0; i < cur.length; i++) if (masked[i]) cur[i] = 0;
    const sample = prev && compare(prev, cur, grid);
    prev = cur;
    return sample;
  };
}
