// The cheap pass over the whole clip: small gray frames at a fixed sampling
// rate, differenced against the previous one. It says when things move (the
// energy of each sample), where (the moving cells of a coarse grid) and how
// (spread, fragmentation, oscillation, travel) for the weather rules.
import type { Box } from '../core/analysis.js';
import { readFrames, scaledSize } from './frames.js';

/** samples per second of clip time, in the motion pass and for frame choice */
export const SAMPLE_FPS = 10;
const WIDTH = 96;
const GRID_X = 12;
const GRID_Y = 9;
/** a pixel moved when its gray level changed by more than this */
const PIXEL_DELTA = 24;
/** a cell moves when this fraction of its pixels moved */
const CELL_ACTIVE = 0.06;

export interface MotionSample {
  /** seconds from the start */
  t: number;
  /** fraction of pixels that changed since the previous sample */
  energy: number;
  /** the moving cells (row-major GRID_X x GRID_Y) */
  cells: Uint8Array;
  /** the box around the largest group of moving cells, when any */
  region: Box | undefined;
  /** how many separate groups of moving cells */
  groups: number;
}

export interface MotionPattern {
  /** some sample moved */
  moving: boolean;
  /** mean fraction of grid cells moving, over the samples that moved */
  spread: number;
  /** moving groups per moving cell: high for many small scattered blobs (rain, snow) */
  fragmentation: number;
  /** how often moving cells switch on and off: high for swaying vegetation */
  oscillation: number;
  /** how far the centre of motion travelled, as a fraction of the frame diagonal */
  travel: number;
}

export interface MotionAnalysis {
  samples: MotionSample[];
  pattern: MotionPattern;
}

export const MOTION_GRID = { x: GRID_X, y: GRID_Y };

/** Groups 4-connected moving cells; returns the groups as lists of cell indexes. */
function cellGroups(cells: Uint8Array): number[][] {
  const seen = new Uint8Array(cells.length);
  const groups: number[][] = [];
  for (let start = 0; start < cells.length; start++) {
    if (!cells[start] || seen[start]) continue;
    const group: number[] = [];
    const stack = [start];
    seen[start] = 1;
    while (stack.length) {
      const c = stack.pop()!;
      group.push(c);
      const x = c % GRID_X;
      const y = Math.floor(c / GRID_X);
      for (const [nx, ny] of [[x - 1, y], [x + 1, y], [x, y - 1], [x, y + 1]] as const) {
        if (nx < 0 || ny < 0 || nx >= GRID_X || ny >= GRID_Y) continue;
        const n = ny * GRID_X + nx;
        if (cells[n] && !seen[n]) {
          seen[n] = 1;
          stack.push(n);
        }
      }
    }
    groups.push(group);
  }
  return groups;
}

function groupBox(group: number[]): Box {
  const xs = group.map((c) => c % GRID_X);
  const ys = group.map((c) => Math.floor(c / GRID_X));
  const x0 = Math.min(...xs);
  const y0 = Math.min(...ys);
  return { x: x0 / GRID_X, y: y0 / GRID_Y, w: (Math.max(...xs) - x0 + 1) / GRID_X, h: (Math.max(...ys) - y0 + 1) / GRID_Y };
}

function compare(prev: Buffer, cur: Buffer, width: number, height: number): Omit<MotionSample, 't'> {
  const moved = new Uint32Array(GRID_X * GRID_Y);
  const size = new Uint32Array(GRID_X * GRID_Y);
  let changed = 0;
  for (let y = 0; y < height; y++) {
    const row = Math.min(GRID_Y - 1, Math.floor((y * GRID_Y) / height)) * GRID_X;
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const cell = row + Math.min(GRID_X - 1, Math.floor((x * GRID_X) / width));
      size[cell]++;
      if (Math.abs(cur[i]! - prev[i]!) > PIXEL_DELTA) {
        changed++;
        moved[cell]++;
      }
    }
  }
  const cells = new Uint8Array(GRID_X * GRID_Y);
  for (let c = 0; c < cells.length; c++) cells[c] = size[c] && moved[c]! / size[c]! >= CELL_ACTIVE ? 1 : 0;
  const groups = cellGroups(cells);
  const largest = groups.sort((a, b) => b.length - a.length)[0];
  return { energy: changed / (width * height), cells, region: largest ? groupBox(largest) : undefined, groups: groups.length };
}

export function describePattern(samples: MotionSample[]): MotionPattern {
  const movingSamples = samples.filter((s) => s.region);
  if (movingSamples.length === 0) return { moving: false, spread: 0, fragmentation: 0, oscillation: 0, travel: 0 };
  const cellCount = GRID_X * GRID_Y;
  const active = movingSamples.map((s) => s.cells.reduce((a, b) => a + b, 0));
  const spread = active.reduce((a, b) => a + b, 0) / movingSamples.length / cellCount;
  const fragmentation = movingSamples.reduce((a, s, i) => a + s.groups / Math.max(1, active[i]!), 0) / movingSamples.length;
  // Oscillation: among cells that moved at all, how often they toggled between samples.
  let toggles = 0;
  let everMoved = 0;
  for (let c = 0; c < cellCount; c++) {
    let moved = false;
    for (let i = 1; i < samples.length; i++) {
      if (samples[i]!.cells[c] !== samples[i - 1]!.cells[c]) toggles++;
      moved ||= samples[i]!.cells[c] === 1;
    }
    if (moved) everMoved++;
  }
  const oscillation = everMoved && samples.length > 2 ? toggles / (everMoved * (samples.length - 1)) : 0;
  const centre = (s: MotionSample) => ({ x: s.region!.x + s.region!.w / 2, y: s.region!.y + s.region!.h / 2 });
  const first = centre(movingSamples[0]!);
  const last = centre(movingSamples[movingSamples.length - 1]!);
  const travel = Math.hypot(last.x - first.x, last.y - first.y) / Math.SQRT2;
  return { moving: true, spread, fragmentation, oscillation, travel };
}

/** Runs the motion pass over the whole clip. */
export async function analyseMotion(input: string, clipWidth: number, clipHeight: number, signal: AbortSignal): Promise<MotionAnalysis> {
  const { width, height } = scaledSize(clipWidth, clipHeight, WIDTH);
  const samples: MotionSample[] = [];
  let prev: Buffer | undefined;
  let index = 0;
  for await (const frame of readFrames({
    input, width, height, pixelFormat: 'gray', signal,
    // Motion needs no exact picture: skipping the deblocking filter decodes faster.
    inputArgs: ['-skip_loop_filter', 'all', '-flags2', '+fast'],
    filters: `fps=${SAMPLE_FPS},scale=${width}:${height}:flags=area`,
  })) {
    if (prev) samples.push({ t: index / SAMPLE_FPS, ...compare(prev, frame, width, height) });
    else samples.push({ t: 0, energy: 0, cells: new Uint8Array(GRID_X * GRID_Y), region: undefined, groups: 0 });
    prev = Buffer.from(frame);
    index++;
  }
  if (samples.length === 0) throw new Error('the clip has no frames');
  return { samples, pattern: describePattern(samples) };
}
