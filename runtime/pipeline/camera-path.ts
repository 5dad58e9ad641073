// Where the camera pointed. A camera that pans, tilts, or is swung by the wind on its mast
// moves the whole view in the frame: a parked car or a seated person moves across the frame
// with it while staying where it is, and a walker the camera follows stays near the middle of
// the frame while crossing the scene. Whether a thing moved is a question about the scene, so
// the view's own motion is measured and taken out (decide.ts, "stayed put").
//
// Each pair of consecutive samples is matched block by block, as a camera moves every block of
// its view the same way and a walker or a car moves some of them: the shift of the largest group
// of blocks that went together, where it spans the view, to a fraction of a pixel. Added up from
// the clip's start, the shifts say where each sample's view lies against the first one's.
import type { Box } from '../core/analysis.js';
import { median } from '../core/median.js';

/** Where the view's content has moved since the clip's first sample, in shares of the frame's width and height. */
export interface ViewOffset {
  x: number;
  y: number;
}

/** Blocks matched per pair of samples: a 4x3 grid (a walker or a car covers a few of them). */
const BLOCKS_X = 4;
const BLOCKS_Y = 3;
/**
 * Searched around the previous pair's shift, px of the motion pass's frame: a camera's motion is
 * smooth from one tenth of a second to the next, and a swing or a pan speeding up gains at most
 * this much a sample.
 */
const REACH = 3;
/** Pairs in a row that could not be matched, while the camera moves, that go on at the shift of the last matched pair. */
const CARRIED = 2;
/** The first pair, with nothing to go on, is searched this far: a sixteenth of a 96 px frame in a tenth of a second. */
const FIRST_REACH = 6;
/** A block flatter than this (mean absolute gradient, gray levels) matches anywhere: it does not vote. */
const TEXTURED = 2;
/**
 * A camera moves its whole view: the view moved where the largest group of blocks that went
 * together (within AGREE_PX of each other's shift) is most of those that voted and spans the
 * view, three of its four columns and two of its three rows. Where the only texture in view is a
 * walker on a plain wall, or a car's lights in a dark lot, the blocks that move together are the
 * thing's, a column or two of them; a truck crossing half of a still view leaves the other half
 * voting against it.
 */
const SPAN_COLUMNS = 3;
const SPAN_ROWS = 2;
const AGREE_PX = 0.5;

/** Lucas-Kanade steps refining a block's shift: each leaves a small part of what was left, on a textured block. */
const REFINE_STEPS = 4;

/** A block of the frame that is matched: its top-left corner and size, px. */
interface Block {
  x0: number;
  y0: number;
  w: number;
  h: number;
  /** its cell of the grid */
  column: number;
  row: number;
}

/**
 * The fraction of a pixel left once a block is matched to the pixel (dx, dy): Lucas-Kanade
 * steps over the block (the least squares of the brightness change against the block's
 * gradients, `b` sampled between its pixels), which, unlike a parabola through the costs, do
 * not pull the shift to whole pixels. Undefined where the block's gradients leave the motion
 * unknown along some direction (an edge tells only the motion across it).
 */
function refine(a: Uint8Array, b: Uint8Array, width: number, height: number, { x0, y0, w, h }: Block, dx: number, dy: number): { u: number; v: number } | undefined {
  // pixels whose neighbours, and whose counterparts a pixel around, lie in both frames
  const xa = Math.max(x0, 1, 1 - dx), xb = Math.min(x0 + w, width - 2, width - 2 - dx);
  const ya = Math.max(y0, 1, 1 - dy), yb = Math.min(y0 + h, height - 2, height - 2 - dy);
  let xx = 0, xy = 0, yy = 0;
  for (let y = ya; y < yb; y++) {
    for (let x = xa; x < xb; x++) {
      const p = y * width + x;
      const ix = (a[p + 1]! - a[p - 1]!) * 0.5;
      const iy = (a[p + width]! - a[p - width]!) * 0.5;
      xx += ix * ix;
      xy += ix * iy;
      yy += iy * iy;
    }
  }
  const det = xx * yy - xy * xy;
  // an edge alone leaves the gradients' matrix all but singular
  if (det <= 0 || det < 0.01 * (xx + yy) * (xx + yy)) return undefined;
  let u = 0, v = 0;
  for (let step = 0; step < REFINE_STEPS; step++) {
    const fu = u < 0 ? u + 1 : u, fv = v < 0 ? v + 1 : v; // b's pixel below and the fraction past it
    const ox = dx + (u < 0 ? -1 : 0), oy = dy + (v < 0 ? -1 : 0);
    let xt = 0, yt = 0;
    for (let y = ya; y < yb; y++) {
      for (let x = xa; x < xb; x++) {
        const p = y * width + x;
        const q = p + oy * width + ox;
        const moved = (b[q]! * (1 - fu) + b[q + 1]! * fu) * (1 - fv) + (b[q + width]! * (1 - fu) + b[q + width + 1]! * fu) * fv;
        const it = moved - a[p]!;
        xt += (a[p + 1]! - a[p - 1]!) * 0.5 * it;
        yt += (a[p + width]! - a[p - width]!) * 0.5 * it;
      }
    }
    u -= (yy * xt - xy * yt) / det;
    v -= (xx * yt - xy * xt) / det;
    if (Math.abs(u) >= 1 || Math.abs(v) >= 1) return undefined; // the pixel match was wrong
  }
  return { u, v };
}


/** The blocks of a frame with texture enough to match: the middle half (each way) of each cell of the grid, so what it shows stays in view as it moves. */
function texturedBlocks(a: Uint8Array, width: number, height: number): Block[] {
  const cw = Math.floor(width / BLOCKS_X);
  const ch = Math.floor(height / BLOCKS_Y);
  const w = Math.max(4, cw >> 1);
  const h = Math.max(4, ch >> 1);
  const blocks: Block[] = [];
  for (let gy = 0; gy < BLOCKS_Y; gy++) {
    for (let gx = 0; gx < BLOCKS_X; gx++) {
      const x0 = gx * cw + ((cw - w) >> 1);
      const y0 = gy * ch + ((ch - h) >> 1);
      let texture = 0;
      for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w - 1; x++) texture += Math.abs(a[y * width + x + 1]! - a[y * width + x]!);
      if (texture / (h * (w - 1)) >= TEXTURED) blocks.push({ x0, y0, w, h, column: gx, row: gy });
    }
  }
  return blocks;
}

/**
 * Where a block of `a` lies in `b`, to the pixel: the offset within `reach` of (cx, cy) with the
 * least squared difference; undefined where that least is at the edge of the search (the block
 * moved farther, or matches nothing).
 */
function matchBlock(a: Uint8Array, b: Uint8Array, width: number, height: number, { x0, y0, w, h }: Block, cx: number, cy: number, reach: number): { dx: number; dy: number } | undefined {
  let best = Infinity;
  let at: { dx: number; dy: number } | undefined;
  for (let dy = cy - reach; dy <= cy + reach; dy++) {
    if (y0 + dy < 0 || y0 + h + dy > height) continue;
    for (let dx = cx - reach; dx <= cx + reach; dx++) {
      if (x0 + dx < 0 || x0 + w + dx > width) continue;
      let sum = 0;
      for (let y = y0; y < y0 + h; y++) {
        const ra = y * width;
        const rb = (y + dy) * width + dx;
        for (let x = x0; x < x0 + w; x++) {
          const d = a[ra + x]! - b[rb + x]!;
          sum += d * d;
        }
      }
      if (sum < best) {
        best = sum;
        at = { dx, dy };
      }
    }
  }
  return at && Math.abs(at.dx - cx) < reach && Math.abs(at.dy - cy) < reach ? at : undefined;
}

/**
 * The view's shift from frame `a` to frame `b` (what was at (x, y) in a is at (x + dx, y + dy) in
 * b), in px, searched within `reach` of `around`; undefined when the blocks do not show the
 * whole view moving together (SPAN_COLUMNS). Each block's shift is the least squared difference, to a pixel, then to a fraction of
 * one (refine); the view's is the median of the largest group that went together.
 */
export function viewShift(a: Uint8Array, b: Uint8Array, width: number, height: number, around = { dx: 0, dy: 0 }, reach = REACH): { dx: number; dy: number } | undefined {
  const votes: Array<{ dx: number; dy: number; block: Block }> = [];
  for (const block of texturedBlocks(a, width, height)) {
    const pixel = matchBlock(a, b, width, height, block, Math.round(around.dx), Math.round(around.dy), reach);
    const fraction = pixel && refine(a, b, width, height, block, pixel.dx, pixel.dy);
    if (pixel && fraction) votes.push({ dx: pixel.dx + fraction.u, dy: pixel.dy + fraction.v, block });
  }
  // the largest group of blocks that went together: those within AGREE_PX of the vote with the most such
  const near = (v: { dx: number; dy: number }) => votes.filter((o) => Math.hypot(o.dx - v.dx, o.dy - v.dy) <= AGREE_PX);
  const together = votes.map(near).reduce((a, b) => (b.length > a.length ? b : a), []);
  const columns = new Set(together.map((v) => v.block.column)).size;
  const rows = new Set(together.map((v) => v.block.row)).size;
  if (2 * together.length <= votes.length || columns < SPAN_COLUMNS || rows < SPAN_ROWS) return undefined;
  return { dx: median(together.map((v) => v.dx)), dy: median(together.map((v) => v.dy)) };
}

/** A box seen in the view `from`, where the same place in the scene lies in the view `to`: shifted as the view's content moved. */
export function inView(box: Box, from: ViewOffset, to: ViewOffset): Box {
  return { ...box, x: box.x + to.x - from.x, y: box.y + to.y - from.y };
}

/**
 * Where each frame's view lies against the first one's (ViewOffset), from consecutive gray
 * frames of width x height. `moved(k)` says whether the camera moved between frames k - 1 and k:
 * where it held still the view stays, so the small errors of matching a still view do not add
 * up over a long clip. Each pair is searched around the shift of the pair before.
 */
export function viewPath(frames: Uint8Array[], width: number, height: number, moved: (k: number) => boolean): ViewOffset[] {
  const path: ViewOffset[] = [{ x: 0, y: 0 }];
  let last: { dx: number; dy: number } | undefined;
  let missed = 0;
  for (let k = 1; k < frames.length; k++) {
    const found = moved(k)
      ? (last && viewShift(frames[k - 1]!, frames[k]!, width, height, last)) ?? viewShift(frames[k - 1]!, frames[k]!, width, height, undefined, FIRST_REACH)
      : undefined;
    // a pair that could not be matched (a blur, a block of the view gone flat) while the camera
    // moves goes on as the pair before: a camera's motion is smooth over a tenth of a second
    missed = found ? 0 : missed + 1;
    const shift = found ?? (moved(k) && missed <= CARRIED ? last : undefined);
    if (found || missed > CARRIED) last = found;
    const prev = path[k - 1]!;
    path.push(shift ? { x: prev.x + shift.dx / width, y: prev.y + shift.dy / height } : prev);
  }
  return path;
}

/**
 * `frame` laid onto the view of `own`, a frame of the same size (gray or RGB alike), where what
 * `own` shows at (x, y) `frame` shows at (x + dx, y + dy) px (rounded): so that each pixel of
 * the frames of a moving camera holds the same place of the scene. Where that falls outside
 * `frame`, `own`'s pixel stands.
 */
export function laidOnto(frame: Uint8Array, own: Uint8Array, width: number, height: number, dx: number, dy: number): Uint8Array {
  const sx = Math.round(dx), sy = Math.round(dy);
  if (sx === 0 && sy === 0) return frame;
  const channels = frame.length / (width * height);
  const out = own.slice();
  const x0 = Math.max(0, -sx), x1 = Math.min(width, width - sx);
  for (let y = Math.max(0, -sy); y < Math.min(height, height - sy); y++) {
    if (x1 <= x0) break;
    out.set(frame.subarray(((y + sy) * width + x0 + sx) * channels, ((y + sy) * width + x1 + sx) * channels), (y * width + x0) * channels);
  }
  return out;
}

/** A pan this slow (px a sample) smears the fifth of a second either side of a frame by little: the camera is taken as still. */
const PAN_PX = 1;
/** The fastest pan looked for, px a sample: a sixth of a 300 px view a second. */
const PAN_REACH = 5;
/** Laid by the pan, the frames must match the chosen one this much better than as they are (noise fits a still view by a few %). */
const PAN_FIT = 0.9;
/** Every this many pixels either way is compared: the view's texture, not its detail, tells its shift. */
const PAN_STRIDE = 5;

/**
 * The camera's steady pan, in px a sample, about a gray frame `own` (width x height), from the
 * frames `k` samples from it: a camera's motion is smooth over a fifth of a second, so what `own`
 * shows at (x, y) each shows at (x + k dx, y + k dy). The one pan that lays them best onto it,
 * to the pixel and then to a quarter of one (bilinear), by their mean absolute difference; where
 * it is under PAN_PX, or lays them no better than PAN_FIT of as they are (a still camera: noise,
 * drops, a walker), undefined.
 */
export function steadyPan(own: Uint8Array, around: Array<{ k: number; frame: Uint8Array }>, width: number, height: number): { dx: number; dy: number } | undefined {
  // the farthest a pan looked for lays a pixel, and the one past it that a blend reads
  const margin = Math.ceil((PAN_REACH + 1) * Math.max(1, ...around.map((a) => Math.abs(a.k)))) + 1;
  const misfit = (dx: number, dy: number) => {
    let sum = 0;
    let count = 0;
    for (const { k, frame } of around) {
      const sx = k * dx, sy = k * dy;
      const ix = Math.floor(sx), iy = Math.floor(sy), fx = sx - ix, fy = sy - iy;
      const whole = fx === 0 && fy === 0; // whole pixels: no need to blend
      for (let y = margin; y < height - margin; y += PAN_STRIDE) {
        for (let x = margin; x < width - margin; x += PAN_STRIDE) {
          const p = (y + iy) * width + x + ix;
          if (whole) {
            sum += Math.abs(own[y * width + x]! - frame[p]!);
          } else {
            const top = frame[p]! + (frame[p + 1]! - frame[p]!) * fx;
            const bottom = frame[p + width]! + (frame[p + width + 1]! - frame[p + width]!) * fx;
            sum += Math.abs(own[y * width + x]! - (top + (bottom - top) * fy));
          }
          count++;
        }
      }
    }
    return count ? sum / count : Infinity;
  };
  let best = { dx: 0, dy: 0, misfit: misfit(0, 0) };
  const still = best.misfit;
  const search = (cx: number, cy: number, reach: number, step: number) => {
    for (let dy = cy - reach; dy <= cy + reach + 1e-9; dy += step) {
      for (let dx = cx - reach; dx <= cx + reach + 1e-9; dx += step) {
        const m = misfit(dx, dy);
        if (m < best.misfit) best = { dx, dy, misfit: m };
      }
    }
  };
  search(0, 0, PAN_REACH, 1);
  search(best.dx, best.dy, 0.5, 0.25);
  return Math.hypot(best.dx, best.dy) >= PAN_PX && best.misfit <= PAN_FIT * still ? { dx: best.dx, dy: best.dy } : undefined;
}
