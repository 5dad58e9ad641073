// Turns a HighlightPlan into an ffmpeg 4.1 filter chain. drawbox in 4.1
// evaluates its geometry once, not per frame, so a moving box is a series of
// short drawbox segments, each switched on for its own slice of time
// (timeline `enable`). drawtext does evaluate x/y per frame, so a label
// follows its box with a piecewise-linear expression of t instead.
import type { Analysis, ClipInfo, Risk } from '../core/analysis.js';
import { DEINTERLACE } from '../pipeline/frames.js';
import { boxAt, trackSpan, type HighlightPlan, type Track, type TrackPoint } from './plan.js';

/**
 * Widest highlight, pixels: a camera's substream size, enough to verify an alarm on a phone.
 * Decoding the source and encoding are a render's whole cost: 640 instead of 1280 takes a
 * 10 s 720p render from about 1.0 to 0.63 CPU seconds.
 */
export const MAX_WIDTH = 640;
/**
 * Frame rate cap: what many CCTV recorders keep, enough to verify an alarm. Each frame costs
 * decoding, scaling and encoding: 10 instead of 15 takes a 10 s 720p render from about 0.57
 * to 0.42 CPU seconds.
 */
export const MAX_FPS = 10;
/**
 * The highlight's scaler: area averaging, the right filter for shrinking (every source pixel
 * counts, no aliasing), and on the 10 s 720p clip 0.03 s of CPU cheaper than the default
 * bicubic. The frames the classification prepares are scaled so too.
 */
export const SCALER = 'area';
/** Boxes move at most this often (seconds); finer steps only cost filters. */
const MIN_BOX_STEP_S = 0.1;
/** Upper bound on drawbox segments in one graph, whatever the analysis holds. */
const MAX_BOX_SEGMENTS = 600;

/** Box and caption accent colour per risk (0xRRGGBB). */
export const RISK_COLOURS: Record<Risk, string> = { danger: '0xE53935', intrusion: '0xFF8F00', safe: '0x00C853' };

export interface Geometry {
  width: number;
  height: number;
  fps: number;
}

/** Output size and rate: at most MAX_WIDTH wide (even sides, for yuv420p), at most MAX_FPS. */
export function geometryOf(clip: Pick<ClipInfo, 'width' | 'height' | 'fps'>): Geometry {
  const width = even(Math.min(MAX_WIDTH, clip.width));
  const height = even((clip.height * width) / clip.width);
  const fps = clip.fps > 0 ? Math.min(MAX_FPS, clip.fps) : MAX_FPS;
  return { width, height, fps };
}

export interface FilterInput {
  plan: HighlightPlan;
  analysis: Pick<Analysis, 'risk' | 'labels' | 'scores'>;
  geometry: Geometry;
  /** source fps, to know whether the rate must be reduced */
  sourceFps: number;
  /** the frames come at the geometry's size and rate already (prepared-frames.ts) */
  prepared?: boolean;
  /** the source is interlaced (ClipInfo.interlaced) */
  interlaced?: boolean;
  fontFile: string;
}

/**
 * The first filters of frames read from the clip itself (prepared frames had them in the
 * classification's decode): an interlaced source's frame made one moment, as the networks saw
 * it. Left as stored, its two fields a field's time apart comb every moving edge, line by line.
 */
export function fromSource(source: { interlaced?: boolean }): string[] {
  return source.interlaced ? [DEINTERLACE] : [];
}

/** The whole -vf chain: scale, rate, caption, boxes and their labels. */
export function buildFilterChain(input: FilterInput): string {
  const { plan, analysis, geometry: g, fontFile } = input;
  const colour = RISK_COLOURS[analysis.risk] ?? RISK_COLOURS.safe;
  // sized so the caption fits the width of a typical frame and stays legible on small ones
  const fontSize = Math.min(32, Math.max(10, Math.round(Math.min(g.width / 46, g.height / 20))));
  const thickness = Math.max(2, Math.round(g.width / 240));
  // Frames are dropped before scaling: scaling those that are then dropped was most of a render's filter time.
  const filters: string[] = [];
  if (!input.prepared) {
    filters.push(...fromSource(input));
    if (input.sourceFps > g.fps + 0.01) filters.push(filter('fps', { fps: g.fps }));
    filters.push(filter('scale', { w: g.width, h: g.height, flags: SCALER }));
  }

  const step = boxStep(plan, g.fps);
  for (const track of plan.tracks) {
    filters.push(...boxSegments(track, plan, g, step, colour, thickness));
    filters.push(trackLabel(track, plan, g, fontFile, Math.round(fontSize * 0.8), colour, thickness));
  }
  filters.push(...caption(plan, analysis, fontFile, fontSize, colour));
  filters.push(filter('format', { pix_fmts: 'yuv420p' }));
  return filters.join(',');
}

/** The caption band: the risk, what was found, and the clip time of the frame shown. */
function caption(plan: HighlightPlan, analysis: FilterInput['analysis'], fontFile: string, fontSize: number, colour: string): string[] {
  const found = analysis.labels
    .filter((l) => l !== 'NOTHING')
    .slice(0, 4)
    .map((l) => `${l} ${percent(analysis.scores[l] ?? 0)}`);
  const what = plan.nothing || found.length === 0 ? 'nothing found' : found.join(', ');
  const pad = Math.round(fontSize * 0.3);
  const band = fontSize + 2 * pad;
  const text = `${literal(`${analysis.risk.toUpperCase()}  |  ${what}  |  clip `)}%{pts:hms:${num(plan.window.start)}}`;
  return [
    filter('drawbox', { x: 0, y: 0, w: 'iw', h: band, color: 'black@0.6', t: 'fill' }),
    filter('drawbox', { x: 0, y: band - 2, w: 'iw', h: 2, color: colour, t: 'fill' }),
    filter('drawtext', { fontfile: fontFile, text, x: pad, y: pad, fontsize: fontSize, fontcolor: 'white' }),
  ];
}

/** A track's box as constant-geometry slices; equal neighbouring slices are merged. */
function boxSegments(track: Track, plan: HighlightPlan, g: Geometry, step: number, colour: string, thickness: number): string[] {
  const span = trackSpan(track, plan.window);
  const slices: Array<{ from: number; to: number; px: [number, number, number, number] }> = [];
  for (let from = span.start; from < span.end - 1e-6; from += step) {
    const to = Math.min(span.end, from + step);
    const b = boxAt(track, (from + to) / 2);
    const px: [number, number, number, number] = [
      Math.round(b.x * g.width),
      Math.round(b.y * g.height),
      Math.max(thickness * 2, Math.round(b.w * g.width)),
      Math.max(thickness * 2, Math.round(b.h * g.height)),
    ];
    const last = slices[slices.length - 1];
    if (last && last.px.every((v, i) => v === px[i])) last.to = to;
    else slices.push({ from, to, px });
  }
  const start = plan.window.start;
  return slices.map(({ from, to, px: [x, y, w, h] }) =>
    filter('drawbox', { x, y, w, h, color: colour, t: thickness, enable: `gte(t,${num(from - start)})*lt(t,${num(to - start)})` }),
  );
}

/** "person 91%" above the box (inside it at the top edge), moving with it, its score interpolated too. */
function trackLabel(track: Track, plan: HighlightPlan, g: Geometry, fontFile: string, fontSize: number, colour: string, thickness: number): string {
  const span = trackSpan(track, plan.window);
  const start = plan.window.start;
  const at = (pick: (p: TrackPoint) => number) => piecewiseLinear(track.points.map((p) => [p.t - start, pick(p)]));
  const x = at((p) => p.box.x * g.width);
  const top = at((p) => p.box.y * g.height);
  const score = `round(${at((p) => p.score * 100)})`;
  // the score is interpolated like the box (plan.scoreAt, as an ffmpeg expression)
  const text = `${literal(`${track.label} `)}%{eif:max(0,min(100,${score})):d}${literal('%')}`;
  return filter('drawtext', {
    fontfile: fontFile,
    text,
    fontsize: fontSize,
    fontcolor: 'white',
    box: 1,
    boxcolor: `${colour}@0.85`,
    boxborderw: 2,
    x: `max(0,min(w-tw,${x}))`,
    y: `if(lt(${top}-th-4,0),${top}+${thickness + 2},${top}-th-4)`,
    enable: `between(t,${num(span.start - start)},${num(span.end - start)})`,
  });
}

/**
 * An ffmpeg expression of t that is linear between the points and constant
 * outside them. Written as a flat sum of gated pieces rather than nested
 * if()s, so the expression parser never recurses deeply.
 */
export function piecewiseLinear(points: Array<[number, number]>): string {
  if (points.length === 1) return num(points[0][1]);
  const terms = [`lt(t,${num(points[0][0])})*${num(points[0][1])}`];
  for (let i = 1; i < points.length; i++) {
    const [t0, v0] = points[i - 1];
    const [t1, v1] = points[i];
    if (t1 <= t0) continue;
    const slope = (v1 - v0) / (t1 - t0);
    terms.push(`gte(t,${num(t0)})*lt(t,${num(t1)})*(${num(v0)}+${num(slope)}*(t-${num(t0)}))`);
  }
  const [tn, vn] = points[points.length - 1];
  terms.push(`gte(t,${num(tn)})*${num(vn)}`);
  return `(${terms.join('+')})`;
}

/** Time step of box slices: per frame, but not finer than MIN_BOX_STEP_S and within the segment budget. */
function boxStep(plan: HighlightPlan, fps: number): number {
  const shown = plan.tracks.reduce((sum, t) => {
    const span = trackSpan(t, plan.window);
    return sum + Math.max(0, span.end - span.start);
  }, 0);
  return Math.max(1 / fps, MIN_BOX_STEP_S, shown / MAX_BOX_SEGMENTS);
}

// ---- escaping ---------------------------------------------------------------
// A filter description is parsed three times: by the graph parser (which
// splits on , ; [ ]), by the filter's option parser (which splits on :), and
// for drawtext's text by its expansion (%{...}). Each level takes backslash escapes.

/** "name=opt=value:opt=value", escaped for the option and graph levels. */
export function filter(name: string, options: Record<string, string | number>): string {
  const args = Object.entries(options)
    .map(([k, v]) => `${k}=${String(v).replace(/[\\':]/g, '\\$&')}`)
    .join(':');
  return `${name}=${args.replace(/[\\'[\],;]/g, '\\$&')}`;
}

/** Text shown as it is by drawtext (no %{...} expansion inside it). */
export function literal(text: string): string {
  return text.replace(/[\\%]/g, '\\$&');
}

function num(n: number): string {
  const s = String(Math.round(n * 10000) / 10000);
  return n < 0 ? `(${s})` : s;
}

function percent(score: number): string {
  return `${Math.round(Math.max(0, Math.min(1, score)) * 100)}%`;
}

function even(n: number): number {
  return Math.max(2, 2 * Math.round(n / 2));
}
