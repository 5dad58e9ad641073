// Small creatures: a spider crawling on a wall, a mouse running along a floor, an
// insect near the lens, birds at a feeder or circling in the sky. At the motion
// pass's 96 px they are a pixel or less, so they are followed on finer gray frames
// against the clip's background. What makes one a creature is how it moves: a
// small thing that travels on its own and changes its course or its pace (it
// stops, turns, runs on). Things carried along (produce on a conveyor, snow in the
// wind) move together on straight lines; foliage, flags and flicker stay in place;
// raindrops never come back. A person or vehicle is what the networks are for:
// a small mover only says `animal` where they found none (decide.ts).
import type { Box } from '../core/analysis.js';
import { ascending } from '../core/median.js';
import { exposure, litDelta, type Exposure } from './light.js';
import { dropWindow, medianFrame, pixelsRanging, withoutDrops, type DropLight } from './pixel-median.js';

/** One gray frame of the clip at the fine size, and its time. */
export interface FineFrame {
  t: number;
  gray: Uint8Array;
}

/** A small thing followed from frame to frame. */
export interface MoverTrack {
  /** the box around its whole path, in 0..1 of the frame */
  box: Box;
  /** its first and last sighting, seconds from the start of the clip */
  from: number;
  to: number;
  /** from its first to its last sighting */
  seconds: number;
  sightings: number;
  /** how far apart the two farthest points of its course are (smoothed over half seconds), over its own size */
  travel: number;
  /**
   * how far it went in the half seconds it moved (not stood still, as `pausing` counts them),
   * over its own size: a drift of a pixel now and then over half a minute (a shadow as the sun
   * moves, a glint on a parked car) goes its own length in none
   */
  striding: number;
  /** how its course bent: 1 - net distance / length of the path smoothed over half seconds */
  turning: number;
  /** the share of its lifetime it stood still (a creature stops and runs on; a carried thing keeps its pace) */
  pausing: number;
  /** the share of its path covered in hops longer than its own length from one frame to the next */
  hops: number;
  /** the share of its links made among two or more things that could each have been its next sighting (blobs farther apart than PIECES_APART) */
  guessed: number;
  /** how far it stands out from the background: its median blob's difference over the noise threshold */
  contrast: number;
  /** its median velocity in px a second (fine frame), to tell a common flow */
  velocity: { x: number; y: number };
  /** where it went: its blob's centre smoothed over half seconds, in 0..1 of the frame, in time order */
  course: Array<{ t: number; x: number; y: number }>;
}

export interface SmallMovers {
  /** the tracks that move as creatures do */
  creatures: MoverTrack[];
  /**
   * the tracks that go somewhere on a steady course, alone (not a flow): a far walker or car, or
   * a thing carried; never an animal, but the detector looks at them closer (clip-classifier)
   */
  travellers: MoverTrack[];
  /**
   * the tracks that go somewhere alone at a walker's or a vehicle's steady pace, but stand out
   * from the background by less than MIN_CONTRAST: too faint to call a creature (the noise of a
   * clip can link up so), worth a closer look (clip-classifier), as a far walker at night in
   * infrared is dim and grainy
   */
  faint: MoverTrack[];
  /**
   * every track that went its own length or more, getting there continuously, whatever it is:
   * in rain the parts of a walker the drops left him (his head, a leg) are followed apart, and
   * move alike as a flow's tracks do, but each went where he went
   */
  moved?: MoverTrack[];
  /** 0..1: how sure the evidence makes a creature, 0 when there is none */
  score: number;
  /**
   * in rain or snow, how closer looks take the drops out (derained): as the small movers were
   * followed, but in snow (followed with its flakes taken out as their light says) as the quieter
   * background says
   */
  derainedAs?: DropLight;
}

/** Frames whose per-pixel median is the background: enough to outvote a mover that stayed a while. */
const BACKGROUND_FRAMES = 25;
/**
 * A gray level difference under this is never foreground, however clean the camera, in a view
 * exposed as by day; in an underexposed one less, with its light (light.ts, litDelta): a spider
 * crawling on a wall lit by a weak illuminator differs from it by a third of what it does by day.
 */
const MIN_DELTA = 12;
/** Foreground is this many times the clip's own noise (its robust standard deviation) above the background. */
const NOISE_FACTOR = 4;
/**
 * A frame with more small blobs than this is a moving camera, noise, a crowd or rain. Of such a
 * frame only the blobs that overlap the foreground of the frames either side are kept (a body
 * walking or crawling overlaps itself from one frame to the next; a drop, a speck of sensor
 * noise or of a low bitrate's flicker is in one frame only); if they are still more, nothing
 * small can be followed there.
 */
const BUSY_FRAME = 40;
/** A gray level step between neighbouring pixels of the background this large is an edge of the view (at 192 px). */
const VIEW_EDGE = 24;
/** The parts of the view whose edges are counted apart: a grid of VIEW_GRID_X x VIEW_GRID_Y cells. */
const VIEW_GRID_X = 6;
const VIEW_GRID_Y = 4;
/**
 * A cell holds edges when it has this many; a view with fewer than MIN_HELD_CELLS such cells (a
 * third of the grid: a plain wall, fog, an overhead lot whose only edges are its cars) says
 * nothing of where it is.
 */
const MIN_CELL_EDGES = 6;
const MIN_HELD_CELLS = 8;
/** A frame is a view that moved where most edges stand out in at least this share of the cells holding edges. */
const VIEW_LEFT = 0.75;
/** Small: the blob's longer side is at most this share of the frame's shorter side (anything larger the networks see well enough). */
export const SMALL_SIDE = 1 / 4;
/**
 * A sighting links to a track whose last one is at most this many of its own lengths away per
 * second: small animals dash at up to about 30 body lengths a second (a mouse about 12, a bird
 * in flight 10 to 20, a spider or a beetle 30 and more), whatever their distance from the
 * camera. The blob is at least BODY_PX long: legs and wings fall under the threshold.
 */
const LENGTHS_PER_S = 30;
const BODY_PX = 2;
/** ...and at most this many seconds ago (a creature hidden a moment, or too faint in a frame). */
const MAX_GAP_S = 0.5;
/** A track is a creature when seen this often over at least this long... */
const MIN_SIGHTINGS = 6;
const MIN_SECONDS = 1;
/** ...in most of the frames of its life: a thing that is there stays seen, flicker comes and goes */
const MIN_PRESENCE = 0.7;
/** ...standing out from the background by twice what its pixels' noise allows (noise barely crosses the threshold, a thing stands clear of it)... */
const MIN_CONTRAST = 2;
/**
 * ...or by half as much again as the threshold, where it was seen throughout its life
 * (SEEN_THROUGHOUT) and alone (at most ALONE_GUESSED of its links a choice among several
 * things within reach): a speck of noise crosses the threshold in one frame, not in nine of ten
 * one step on from where it was. A spider crawling on a wall at night stands out of the
 * infrared grain by 1.8 times its threshold, seen in 49 frames of 50, every link its only one.
 */
const SEEN_CONTRAST = 1.5;
const ALONE_GUESSED = 0.1;
/**
 * ...going somewhere: at some time at least its own length away from where it was at another
 * (flicker, sway and jitter stay in place; a moth looping about a lamp comes back where it
 * started, but went far meanwhile); a creature goes its own length in the half seconds it moves,
 * too (a shadow or a glint drifts a pixel now and then, and is as far after half a minute)...
 */
const MIN_TRAVEL = 1;
/**
 * ...and farther than a blob's centre wanders while it stays: as its edge pixels cross the
 * threshold and back, the centre of a blob a few pixels across shifts by a pixel or so at each
 * end of its path. A part of something large that stays (a parked car's edge, a lamp's glint)
 * is such a blob.
 */
const STAYING_PX = 3;
/**
 * ...and getting there continuously: a body moves a step at a time (it dashes now and then),
 * while specks of noise that a track links together are all hops, from spot to spot. At most
 * this share of its path may be in hops longer than its own length from one frame to the next.
 */
const MAX_HOPS = 0.75;
/**
 * ...unless it is seen in this share of the frames of its life, clear of the noise: a body fast for
 * its size hops too (a moth flitting at the lens, a bird darting, a car far off), and noise or
 * flicker linked up does not stay seen frame after frame.
 */
const SEEN_THROUGHOUT = 0.9;
/**
 * ...and followed by its own sightings: a body darting alone is the only thing within reach of
 * where it was, while among falling flakes (snow too light or too pale to be seen as snow) every
 * frame offers several specks a hop away, and linking one of them each time makes a path of
 * chance. At most this share of such a track's links may have been a choice among two or more.
 */
const MAX_GUESSED = 0.5;
/**
 * Another blob within reach is another thing when it lies farther from the one linked than this
 * many of their sizes: the threshold breaks a body into pieces (a mouse's head, back and tail,
 * each about its width), and a small creature is at most a few times as long as it is wide.
 */
const PIECES_APART = 4;
/** ...and its course bends or its pace changes (a straight line at one pace is a carried thing, or a walker). */
const MIN_TURNING = 0.15;
const MIN_PAUSING = 0.2;
/**
 * A half second it stood still went under half its size, and under this share of its fastest
 * half second: a body that stops goes far less than when it goes. A thing at one slow pace (a
 * drop running down the camera's window), whose half seconds straddle half its size as its
 * centre jitters, never stops.
 */
const STOPPED = 0.5;
/**
 * A thing whose blob touches the view's edge in more than this share of its sightings is mostly
 * out of view: what shows of it grows and shrinks as it comes and goes, so its centre moves
 * whether it does or not (a car parked at the edge, its glint as the light changes). How it
 * moves cannot tell a creature.
 */
const EDGE_SHARE = 0.5;
/** Tracks moving alike at the same time: a flow (a conveyor, snow in wind), not creatures going their own way. */
const FLOW_TRACKS = 3;
/**
 * A faint track is looked at only when it moved as a person or vehicle does: at a walk, a run or
 * a road speed a body covers less than its own length in a fifth of a second, so at most this
 * share of its path is in longer hops (a few for a blob's jitter). Things carried past quickly
 * and a moving camera's leftovers hop.
 */
const FAINT_MAX_HOPS = 0.25;
/**
 * What moves may be the background itself, displaced a little: a twig, a leaf or a fold that
 * moved by a pixel or two shows values the background holds beside where it is (the displacement
 * test of Elgammal, Harwood and Davis, "Non-parametric model for background subtraction", 2000).
 * A pixel is displaced when a background pixel within this many px matches it within its
 * threshold: foliage sways up to a pixel a sample at the motion pass's 96 px (foliage.ts), two
 * at this size.
 */
const DISPLACED_PX = 2;
/**
 * A track whose blobs are mostly displaced background (this share of their pixels, on average
 * over its sightings) is the scene moving in place, not a creature: the tips of a conifer's
 * twigs jittering against the sky measured 0.99 to 1, a spider on a wall and a mouse in an arena
 * 0.02 to 0.07.
 */
const DISPLACED = 0.5;

function median(values: number[]): number {
  const sorted = [...values].sort(ascending);
  return sorted.length ? sorted[sorted.length >> 1]! : 0;
}

/**
 * Each pixel's own flicker: its mean change from one frame to the next. Leaves, water, a
 * flickering lamp or an overexposed cloth change all the time in place; a thing passing over a
 * pixel changes it twice (coming and going), which the mean over the clip hardly sees, however
 * slowly it passes. A pixel is foreground only when it leaves its own usual range.
 */
function flicker(frames: FineFrame[], pixels: number): Float32Array {
  const sum = new Float32Array(pixels);
  for (let f = 1; f < frames.length; f++) {
    const a = frames[f - 1]!.gray, b = frames[f]!.gray;
    for (let p = 0; p < pixels; p++) sum[p] += Math.abs(b[p]! - a[p]!);
  }
  for (let p = 0; p < pixels; p++) sum[p] /= Math.max(1, frames.length - 1);
  return sum;
}

/** The clip's noise: the robust standard deviation (1.4826 MAD) of differences from the background, sampled over a few frames. */
function noiseLevel(frames: FineFrame[], bg: Uint8Array): number {
  const histogram = new Uint32Array(256);
  let count = 0;
  const step = Math.max(1, Math.floor(frames.length / 5));
  for (let f = 0; f < frames.length; f += step) {
    const gray = frames[f]!.gray;
    const { gain, offset } = exposure(gray, bg);
    for (let p = 0; p < bg.length; p += 7) {
      histogram[Math.min(255, Math.round(Math.abs(gray[p]! - gain * bg[p]! - offset)))]++;
      count++;
    }
  }
  let below = 0;
  for (let level = 0; level < 256; level++) {
    below += histogram[level]!;
    if (below * 2 >= count) return 1.4826 * level;
  }
  return 0;
}

interface Blob {
  t: number;
  x: number;
  y: number;
  /** its longer side, px */
  size: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** darker (-1) or brighter (1) than the background */
  sign: number;
  /** its strongest pixel's difference from the background, over that pixel's threshold */
  contrast: number;
  /** when linked to a track: how many things of its frame could have been that track's next sighting (PIECES_APART) */
  choices?: number;
}

/** A frame's foreground: each pixel's sign (-1 darker, 1 brighter, 0 background), how far past its threshold, and the list of foreground pixels. */
interface Foreground {
  mask: Int8Array;
  excess: Float32Array;
  pixels: Int32Array;
  count: number;
}

/**
 * A frame's foreground into `fg` (that of three frames ago before): each pixel past its
 * threshold from the background under the frame's exposure (`gained`: the gain times each gray
 * level). A function of its own, over typed arrays only, so V8 compiles its loop once for all.
 */
function markForeground(fg: Foreground, gray: Uint8Array, bg: Uint8Array, gained: Float64Array, offset: number, threshold: Uint8Array): void {
  const { mask, excess, pixels: list } = fg;
  for (let j = 0; j < fg.count; j++) mask[list[j]!] = 0; // the rest is 0 already
  let count = 0;
  for (let p = 0; p < bg.length; p++) {
    const d = gray[p]! - gained[bg[p]!]! - offset;
    const limit = threshold[p]!;
    if (d > limit || d < -limit) {
      mask[p] = d > 0 ? 1 : -1;
      excess[p] = (d > 0 ? d : -d) / limit;
      list[count++] = p;
    }
  }
  fg.count = count;
}

/**
 * The background's edges, as pairs of neighbouring pixels, by the way they step: across x (a
 * pixel and the one to its right, `step` 1) or across y (and the one below, `step` the width).
 */
interface EdgePairs {
  step: number;
  /** per pixel, the pair it starts (an index into `cells`), or -1 */
  pairAt: Int32Array;
  /** the cell of a VIEW_GRID_X x VIEW_GRID_Y grid each pair lies in */
  cells: Uint8Array;
  /** pairs per cell, and the cells holding MIN_CELL_EDGES or more of them */
  totals: Uint16Array;
  held: number;
  /** the frame that last counted each pair (a stamp: counted once a frame) */
  counted: Uint32Array;
}

/**
 * The background's edges: neighbouring pixels whose gray levels differ by VIEW_EDGE or more, to
 * the right or below (masked pixels, whose threshold is 255, left out).
 */
function viewEdges(bg: Uint8Array, width: number, height: number, threshold: Uint8Array): EdgePairs[] {
  return [1, width].map((step) => {
    const pairAt = new Int32Array(width * height).fill(-1);
    const cells: number[] = [];
    for (let y = 0; y + 1 < height; y++) {
      for (let x = 0; x + 1 < width; x++) {
        const p = y * width + x;
        if (threshold[p] === 255 || threshold[p + step] === 255 || Math.abs(bg[p]! - bg[p + step]!) < VIEW_EDGE) continue;
        pairAt[p] = cells.length;
        cells.push(Math.floor((y * VIEW_GRID_Y) / height) * VIEW_GRID_X + Math.floor((x * VIEW_GRID_X) / width));
      }
    }
    const totals = new Uint16Array(VIEW_GRID_X * VIEW_GRID_Y);
    for (const c of cells) totals[c]++;
    const held = totals.filter((n) => n >= MIN_CELL_EDGES).length;
    return { step, pairAt, cells: Uint8Array.from(cells), totals, held, counted: new Uint32Array(cells.length) };
  });
}

/**
 * A frame whose view left the background's: in nearly every part of the view that holds edges
 * stepping one way (across x, or across y), most of them stand out. A small thing covers a few; a
 * car driving over a plain lot covers the edges of its own part of the view (on an overhead lot,
 * most of those in view); a camera that moved (a pan starting late in a long clip) displaces
 * everywhere the edges its motion crosses, whichever way it goes (one pixel of each pair then
 * shows the other side), and what stands out then is the scene's own edges. Edges along its
 * motion (a horizon in a pan) stay where they were, so each way is counted apart. The pairs are
 * reached from the frame's foreground, usually a few pixels (`frame`: its number, from 1).
 */
function leftTheView(fg: Foreground, edges: EdgePairs[], frame: number): boolean {
  return edges.some((pairs) => pairs.held >= MIN_HELD_CELLS && displacedEverywhere(fg, pairs, frame));
}

/** Whether most pairs stand out in VIEW_LEFT of the cells holding them (top-level, over typed arrays: V8 compiles its loop once). */
function displacedEverywhere(fg: Foreground, { step, pairAt, cells, totals, held, counted }: EdgePairs, frame: number): boolean {
  const off = new Uint16Array(totals.length);
  for (let k = 0; k < fg.count; k++) {
    const p = fg.pixels[k]!;
    // the pair it starts, and the one it ends, each counted once
    const starts = pairAt[p]!;
    if (starts >= 0 && counted[starts] !== frame) {
      counted[starts] = frame;
      off[cells[starts]!]++;
    }
    const ends = p >= step ? pairAt[p - step]! : -1;
    if (ends >= 0 && counted[ends] !== frame) {
      counted[ends] = frame;
      off[cells[ends]!]++;
    }
  }
  let displaced = 0;
  for (let c = 0; c < totals.length; c++) if (totals[c]! >= MIN_CELL_EDGES && off[c]! * 2 > totals[c]!) displaced++;
  return displaced >= VIEW_LEFT * held;
}

/** The small 8-connected blobs of one sign in a frame's foreground. `seen` is all zero on entry and left so. */
function smallBlobs(fg: Foreground, seen: Uint8Array, width: number, height: number, t: number, maxSide: number): Blob[] {
  const { mask, excess } = fg;
  const blobs: Blob[] = [];
  const stack: number[] = [];
  for (let k = 0; k < fg.count; k++) {
    const start = fg.pixels[k]!;
    if (seen[start]) continue;
    let x0 = width, y0 = height, x1 = 0, y1 = 0, sx = 0, sy = 0, n = 0, contrast = 0;
    const sign = mask[start]!;
    stack.push(start);
    seen[start] = 1;
    while (stack.length) {
      const i = stack.pop()!;
      const x = i % width;
      const y = (i - x) / width;
      x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
      sx += x; sy += y; n++; contrast = Math.max(contrast, excess[i]!);
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx, ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          const j = ny * width + nx;
          if (mask[j] === sign && !seen[j]) {
            seen[j] = 1;
            stack.push(j);
          }
        }
      }
    }
    const size = Math.max(x1 - x0, y1 - y0) + 1;
    if (size <= maxSide) blobs.push({ t, x: sx / n, y: sy / n, size, x0, y0, x1, y1, sign, contrast });
  }
  for (let k = 0; k < fg.count; k++) seen[fg.pixels[k]!] = 0;
  return blobs;
}

/**
 * Whether a blob (its pixels of its sign in `mask`) shares a pixel with the foreground of the same
 * sign of another frame (`other`): a body walking or crawling overlaps itself from one frame to
 * the next; a raindrop is in one frame only.
 */
function overlaps(blob: Blob, mask: Int8Array, other: Int8Array, width: number): boolean {
  for (let y = blob.y0; y <= blob.y1; y++) {
    for (let i = y * width + blob.x0, end = y * width + blob.x1; i <= end; i++) {
      if (mask[i] === blob.sign && other[i] === blob.sign) return true;
    }
  }
  return false;
}

/**
 * Links each frame's blobs to the tracks that could have got there: the closest pairs first, so a
 * faint speck near a creature never takes its track; a blob left over starts a track. A thing
 * inside the view gets to its edge by going there: a blob on the edge (`atEdge`) a hop longer
 * than either's size from a sighting inside is something else coming into view, shown in part
 * (in infrared a dark car's roof, followed up the overhead lot, was linked to a sliver of the
 * next car entering at the bottom, and its course so bent passed for a creature's).
 */
function link(frames: Blob[][], atEdge: (b: Blob) => boolean): Blob[][] {
  const tracks: Blob[][] = [];
  let alive: Blob[][] = [];
  for (const blobs of frames) {
    if (blobs.length === 0) continue;
    const now = blobs[0]!.t;
    alive = alive.filter((track) => now - track[track.length - 1]!.t <= MAX_GAP_S);
    const pairs: Array<{ blob: Blob; track: Blob[]; distance: number }> = [];
    const within = new Map<Blob[], Blob[]>(); // each track's blobs within reach
    for (const blob of blobs) {
      for (const track of alive) {
        const last = track[track.length - 1]!;
        const dt = blob.t - last.t;
        if (dt <= 0 || last.sign !== blob.sign) continue;
        // the same thing: about the same size (it turns, its legs and wings move: within a factor 2)
        if (Math.max(blob.size, last.size) > 2 * Math.min(blob.size, last.size) + BODY_PX) continue;
        const distance = Math.hypot(blob.x - last.x, blob.y - last.y);
        if (distance > LENGTHS_PER_S * Math.max(last.size, blob.size, BODY_PX) * dt + 1) continue;
        if (atEdge(blob) && !atEdge(last) && distance > Math.max(last.size, blob.size)) continue;
        pairs.push({ blob, track, distance });
        const near = within.get(track);
        if (near) near.push(blob);
        else within.set(track, [blob]);
      }
    }
    const linked = new Set<Blob>();
    const extended = new Set<Blob[]>();
    for (const { blob, track } of pairs.sort((x, y) => x.distance - y.distance)) {
      if (linked.has(blob) || extended.has(track)) continue;
      const apart = (other: Blob) => Math.hypot(other.x - blob.x, other.y - blob.y) > PIECES_APART * Math.max(other.size, blob.size, BODY_PX);
      blob.choices = 1 + within.get(track)!.filter(apart).length;
      track.push(blob);
      linked.add(blob);
      extended.add(track);
    }
    for (const blob of blobs) {
      if (linked.has(blob)) continue;
      const track = [blob];
      tracks.push(track);
      alive.push(track);
    }
  }
  return tracks;
}

/** How a track moved. */
function describe(track: Blob[], width: number, height: number): MoverTrack {
  const first = track[0]!, last = track[track.length - 1]!;
  const size = Math.max(BODY_PX, median(track.map((b) => b.size)));
  const seconds = last.t - first.t;
  // The path smoothed over half seconds: a blob's centre jitters by a pixel from frame to frame.
  const points: Array<{ x: number; y: number; t: number }> = [];
  for (let start = first.t; start <= last.t; start += 0.5) {
    const part = track.filter((b) => b.t >= start && b.t < start + 0.5);
    if (part.length) points.push({ x: median(part.map((b) => b.x)), y: median(part.map((b) => b.y)), t: median(part.map((b) => b.t)) });
  }
  const halves = points.slice(1).map((p, i) => Math.hypot(p.x - points[i]!.x, p.y - points[i]!.y));
  const fastest = Math.max(0, ...halves);
  let length = 0;
  let still = 0;
  let strides = 0;
  for (let i = 1; i < points.length; i++) {
    const step = halves[i - 1]!;
    length += step;
    // stood (nearly) still for that half second
    if (step < Math.max(1, size / 2) && step < STOPPED * fastest) still += points[i]!.t - points[i - 1]!.t;
    else strides += step;
  }
  const net = points.length > 1 ? Math.hypot(points[points.length - 1]!.x - points[0]!.x, points[points.length - 1]!.y - points[0]!.y) : 0;
  let span = 0; // the farthest apart two points of its course are
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) span = Math.max(span, Math.hypot(points[j]!.x - points[i]!.x, points[j]!.y - points[i]!.y));
  }
  const steps = track.slice(1).map((b, i) => ({ x: (b.x - track[i]!.x) / (b.t - track[i]!.t), y: (b.y - track[i]!.y) / (b.t - track[i]!.t) }));
  let path = 0;
  let hopped = 0;
  for (let i = 1; i < track.length; i++) {
    const step = Math.hypot(track[i]!.x - track[i - 1]!.x, track[i]!.y - track[i - 1]!.y);
    path += step;
    if (step > Math.max(size, BODY_PX)) hopped += step;
  }
  const x0 = Math.min(...track.map((b) => b.x0)), y0 = Math.min(...track.map((b) => b.y0));
  const x1 = Math.max(...track.map((b) => b.x1)), y1 = Math.max(...track.map((b) => b.y1));
  return {
    box: { x: x0 / width, y: y0 / height, w: (x1 - x0 + 1) / width, h: (y1 - y0 + 1) / height },
    from: first.t, to: last.t, seconds, sightings: track.length,
    contrast: median(track.map((b) => b.contrast)),
    hops: path > 0 ? hopped / path : 0,
    guessed: track.length > 1 ? track.slice(1).filter((b) => (b.choices ?? 1) > 1).length / (track.length - 1) : 0,
    travel: span / Math.max(size, STAYING_PX),
    striding: strides / Math.max(size, STAYING_PX),
    turning: length > 0 ? 1 - net / length : 0,
    pausing: seconds > 0 ? still / seconds : 0,
    velocity: { x: median(steps.map((s) => s.x)), y: median(steps.map((s) => s.y)) },
    course: points.map((p) => ({ t: p.t, x: p.x / width, y: p.y / height })),
  };
}

/**
 * The share of a blob's pixels (those standing out of the background, as markForeground finds
 * them) that a background pixel within DISPLACED_PX matches within their threshold: the
 * background displaced there. A masked pixel never counts, as background either.
 */
function displacedShare(b: Blob, gray: Uint8Array, bg: Uint8Array, seen: Exposure, threshold: Uint8Array, width: number, height: number, masked?: Uint8Array): number {
  const background = (q: number) => seen.gain * bg[q]! + seen.offset;
  let standing = 0;
  let displaced = 0;
  for (let y = b.y0; y <= b.y1; y++) {
    for (let x = b.x0; x <= b.x1; x++) {
      const p = y * width + x;
      const limit = threshold[p]!;
      if (Math.abs(gray[p]! - background(p)) <= limit) continue;
      standing++;
      search: for (let oy = Math.max(-y, -DISPLACED_PX); oy <= Math.min(height - 1 - y, DISPLACED_PX); oy++) {
        for (let ox = Math.max(-x, -DISPLACED_PX); ox <= Math.min(width - 1 - x, DISPLACED_PX); ox++) {
          const q = p + oy * width + ox;
          if (!masked?.[q] && Math.abs(gray[p]! - background(q)) <= limit) {
            displaced++;
            break search;
          }
        }
      }
    }
  }
  return standing ? displaced / standing : 0;
}

/** Tracks that move like `track` (direction within 25 degrees, speed within a factor 1.5) while it moves. */
function alike(track: MoverTrack, others: MoverTrack[]): number {
  const speed = Math.hypot(track.velocity.x, track.velocity.y);
  return others.filter((o) => {
    if (o === track) return false;
    const s = Math.hypot(o.velocity.x, o.velocity.y);
    if (speed === 0 || s === 0 || Math.max(s / speed, speed / s) > 1.5) return false;
    const cos = (o.velocity.x * track.velocity.x + o.velocity.y * track.velocity.y) / (s * speed);
    return cos > Math.cos((25 * Math.PI) / 180);
  }).length;
}

/** Seconds between two of the frames (they are evenly spaced); 1 for a single frame. */
const intervalOf = (frames: FineFrame[]): number =>
  frames.length > 1 ? (frames[frames.length - 1]!.t - frames[0]!.t) / (frames.length - 1) : 1;

/**
 * Where rain or snow falls, each frame with the drops taken out (pixel-median.ts): of it and the
 * frames within a fifth of a second either side, each pixel's darkest value where drops brighten
 * what they cross, else the median of three in a row (the temporal median deraining starts from).
 * A drop crosses the view within a frame; a walker, a car or a crawling thing moves a pixel or
 * two a frame here and is in all of them. A thing darting farther than its own length a frame is
 * lost with the drops.
 */
function derained(frames: FineFrame[], light: DropLight): FineFrame[] {
  const reach = dropWindow(light, 1 / intervalOf(frames)) >> 1;
  return frames.slice(reach, frames.length - reach).map((frame, k) => ({ t: frame.t, gray: withoutDrops(frames.slice(k, k + 2 * reach + 1).map((f) => f.gray), light) }));
}

/**
 * The frames to follow small movers on, their background and noise: as they are when it is
 * dry; in rain or snow with the drops taken out (derained), as the drops' light says where
 * that leaves a quieter background than the median of three, else by the median. Where drops
 * cover a third of the view a frame the median keeps a third of them (heavy rain lit at night:
 * a noise of 10 gray levels against 3 for the darkest of three); where they are sparse (a
 * drizzle) both take them out, and the median leaves more of a walker lit by the illuminator.
 * `flakes` (snow: drops seen as flakes more than as streaks) are taken out as their light says,
 * whatever the noise: a flake falls at about 1 m/s (a raindrop at 5 to 9) and goes little more
 * than its own blurred width between these frames, so it covers a pixel in two frames of three
 * and the median keeps it, where the darkest of three keeps a pixel lit only if flakes covered
 * it in all three. Light snow at night kept so filled every frame with blobs, and a far walker
 * among them was never followed.
 */
function withoutRain(frames: FineFrame[], falling: DropLight | undefined, flakes: boolean): { frames: FineFrame[]; bg: Uint8Array; noise: number; light?: DropLight } {
  const measured = (light: DropLight | undefined) => {
    const taken = light ? derained(frames, light) : frames;
    if (taken.length < MIN_SIGHTINGS) return { frames: taken, bg: new Uint8Array(0), noise: 0, light };
    const bg = medianFrame(taken.map((f) => f.gray), BACKGROUND_FRAMES);
    return { frames: taken, bg, noise: noiseLevel(taken, bg), light };
  };
  if (falling === undefined || falling === 'either') return measured(falling);
  const median = measured('either');
  const extreme = measured(falling);
  const quieter = extreme.noise < median.noise ? extreme : median;
  // snow's small movers are followed with its flakes taken out as their light says; the looks
  // take them out as the quieter background says (what they frame can be a car or a near walker,
  // which goes its own width in a fifth of a second: its darkest over it is a ghost)
  return flakes ? { ...extreme, light: quieter.light } : quieter;
}

/** How sure a small mover makes an animal: surer the longer it was followed, 0.6 for the shortest track that counts, up to 0.9 over 4 s. */
export function followedScore(seconds: number): number {
  return Math.min(0.9, 0.6 + (0.3 * (seconds - MIN_SECONDS)) / 3);
}

/**
 * Follows the small things that move through the view and keeps those that move as creatures
 * do. `masked` pixels (the camera's masks) never count. `falling`: drops were seen (rain or
 * snow, or too few over the view for it: light snow at night), doing this to what they cross;
 * `flakes`: they are snow's. The drops are taken out first (derained), a track seen throughout
 * while it hops does not count, and a creature also got where it went a step at a time (what
 * else moves is a traveller to look at).
 */
export function findSmallMovers(clipFrames: FineFrame[], width: number, height: number, masked?: Uint8Array, options: { falling?: DropLight; flakes?: boolean } = {}): SmallMovers {
  // The background lies within each pixel's range over the frames, so only a pixel ranging over
  // minDelta can stand out of it, and a mover stands out in two places at least (it goes its own
  // length): with fewer, a still view (an empty room, a parked scene) has nothing to follow.
  const nothing: SmallMovers = { creatures: [], travellers: [], faint: [], score: 0 };
  if (clipFrames.length < MIN_SIGHTINGS) return nothing;
  // a dim view shows a mover's difference from the background as it shows every other, smaller
  const minDelta = litDelta(MIN_DELTA, clipFrames[0]!.gray);
  if (pixelsRanging(clipFrames.map((f) => f.gray), width * height, minDelta, masked) < 2) return nothing;
  const { frames, bg, noise, light } = withoutRain(clipFrames, options.falling, options.flakes ?? false);
  const none: SmallMovers = { creatures: [], travellers: [], faint: [], score: 0, ...(light ? { derainedAs: light } : {}) };
  if (frames.length < MIN_SIGHTINGS) return none;
  const pixels = width * height;
  const own = flicker(frames, pixels);
  // A pixel's threshold: NOISE_FACTOR standard deviations of the clip's noise or of the pixel's
  // own flicker (a mean absolute change of a noise is 1.13 of its standard deviation), whichever is larger.
  const threshold = new Uint8Array(pixels);
  for (let p = 0; p < pixels; p++) threshold[p] = Math.min(255, Math.max(minDelta, NOISE_FACTOR * Math.max(noise, own[p]! / 1.13)));
  const short = Math.min(width, height);
  const maxSide = Math.max(2, Math.floor(short * SMALL_SIDE));
  if (masked) for (let p = 0; p < pixels; p++) if (masked[p]) threshold[p] = 255; // never foreground
  // the foregrounds of three frames in turn: a frame's blobs are judged once the next one is known
  const window: Foreground[] = [0, 1, 2].map(() => ({ mask: new Int8Array(pixels), excess: new Float32Array(pixels), pixels: new Int32Array(pixels), count: 0 }));
  const seen = new Uint8Array(pixels);
  const gained = new Float64Array(256);
  const sightings: Blob[][] = [];
  const edges = viewEdges(bg, width, height, threshold);
  const viewLeft: boolean[] = [];
  const judge = (k: number): Blob[] => {
    if (viewLeft[k]) return [];
    const blobs = smallBlobs(window[k % 3]!, seen, width, height, frames[k]!.t, maxSide);
    const unbusy = (some: Blob[]) => {
      if (some.length <= BUSY_FRAME) return some;
      // only what was there in the frames either side too
      const around = [k - 1, k + 1].filter((j) => j >= 0 && j < frames.length).map((j) => window[j % 3]!.mask);
      const staying = some.filter((b) => around.every((other) => overlaps(b, window[k % 3]!.mask, other, width)));
      return staying.length <= BUSY_FRAME ? staying : [];
    };
    // Drops that all brighten (or all darken) what they cross leave specks of that sign only,
    // where they crossed a pixel in every frame taken: a frame busy with them still has the
    // blobs of the other sign followed (a dark walker in rain lit by the illuminator).
    if (options.falling !== 'brighter' && options.falling !== 'darker') return unbusy(blobs);
    return [...unbusy(blobs.filter((b) => b.sign > 0)), ...unbusy(blobs.filter((b) => b.sign < 0))];
  };
  const exposures: Exposure[] = [];
  for (let k = 0; k < frames.length; k++) {
    const { gain, offset } = (exposures[k] = exposure(frames[k]!.gray, bg));
    // gain x each gray level, looked up: the loop runs over every pixel of every frame
    for (let v = 0; v < 256; v++) gained[v] = gain * v;
    markForeground(window[k % 3]!, frames[k]!.gray, bg, gained, offset, threshold);
    viewLeft[k] = leftTheView(window[k % 3]!, edges, k + 1);
    if (k > 0) sightings.push(judge(k - 1));
  }
  sightings.push(judge(frames.length - 1));
  const interval = intervalOf(frames);
  const cut = new Set<MoverTrack>(); // mostly cut by the view's edge
  const blobsOf = new Map<MoverTrack, Blob[]>();
  const atEdge = (b: Blob) => b.x0 === 0 || b.y0 === 0 || b.x1 === width - 1 || b.y1 === height - 1;
  const frameAt = new Map(frames.map((f, k) => [f.t, k]));
  const followed = link(sightings, atEdge).flatMap((t) => {
    const seconds = t[t.length - 1]!.t - t[0]!.t;
    const presence = t.length / (seconds / interval + 1);
    if (t.length < MIN_SIGHTINGS || seconds < MIN_SECONDS || presence < MIN_PRESENCE) return [];
    const track = describe(t, width, height);
    if (t.filter(atEdge).length > t.length * EDGE_SHARE) cut.add(track);
    blobsOf.set(track, t);
    return [{ track, presence }];
  });
  // in rain a track seen throughout proves nothing: a drop left over is always near
  const throughout = (presence: number) => !options.falling && presence >= SEEN_THROUGHOUT;
  const moving = followed
    .filter(({ track, presence }) => track.travel >= MIN_TRAVEL && (track.hops <= MAX_HOPS || (throughout(presence) && track.contrast >= MIN_CONTRAST)))
    .map(({ track }) => track);
  const seenAlone = new Set(followed.filter(({ track, presence }) => throughout(presence) && track.guessed <= ALONE_GUESSED).map(({ track }) => track));
  const clear = moving.filter((t) => t.contrast >= MIN_CONTRAST || (seenAlone.has(t) && t.contrast >= SEEN_CONTRAST));
  const dim = (t: MoverTrack) => t.contrast < MIN_CONTRAST;
  // a path of chance is nothing to follow, but its flakes still fall alike with the others of a flow
  const chance = (t: MoverTrack) => t.hops > MAX_HOPS && t.guessed > MAX_GUESSED;
  const alone = clear.filter((t) => !chance(t) && alike(t, clear) < FLOW_TRACKS - 1);
  // In rain, specks of drops left over link up now and then, from spot to spot: there a track
  // is a creature by how it moves only if it also got there a step at a time, as a body does
  // (a mouse running through a drizzle); what hops is only looked at.
  const continuous = (t: MoverTrack) => !options.falling || t.hops <= FAINT_MAX_HOPS;
  // the background displaced a little, looked for only where a track would be a creature
  const inPlace = (t: MoverTrack) => {
    const blobs = blobsOf.get(t)!;
    let displaced = 0;
    for (const b of blobs) {
      const k = frameAt.get(b.t)!;
      displaced += displacedShare(b, frames[k]!.gray, bg, exposures[k]!, threshold, width, height, masked);
    }
    return displaced >= DISPLACED * blobs.length;
  };
  const creatures = alone.filter((t) => !cut.has(t) && continuous(t) && t.striding >= MIN_TRAVEL && (t.turning >= MIN_TURNING || t.pausing >= MIN_PAUSING) && !inPlace(t));
  // a dim track that is no creature is faint, whether seen throughout or not
  const travellers = alone.filter((t) => !creatures.includes(t) && !dim(t));
  const faint = moving.filter((t) => dim(t) && !creatures.includes(t) && t.hops <= FAINT_MAX_HOPS && alike(t, moving) < FLOW_TRACKS - 1);
  if (creatures.length === 0) return { ...none, travellers, faint, moved: moving };
  return { ...none, creatures, travellers, faint, moved: moving, score: followedScore(Math.max(...creatures.map((c) => c.seconds))) };
}
