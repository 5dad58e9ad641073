// What the highlight shows, decided from the Analysis alone (no ffmpeg here):
// which seconds of the clip to cut, and where each object's box is at any
// moment of the cut. Pure functions, so the choices can be tested directly.
import type { Analysis, Box, KeyFrame, ServiceLabel } from '../core/analysis.js';
import { centreDistance, iou } from '../pipeline/boxes.js';

/** The longest highlight, seconds. */
export const MAX_HIGHLIGHT_S = 10;
/** A clip where nothing was found gets this much (the caption is all there is to see). */
export const NOTHING_HIGHLIGHT_S = 4;
/** Context kept before the best moment when the window has to be cut. */
const LEAD_S = 1;
/** At most this many objects per inferred frame are drawn (the highest scores). */
const MAX_BOXES_PER_FRAME = 6;
/** Two detections of one label in neighbouring frames are one object when their boxes overlap this much... */
const MIN_IOU = 0.1;
/** ...or their centres are closer than this plus the object's size (normalised units): fast objects between sparse inferences. */
const MAX_CENTRE_DISTANCE = 0.2;
/** A track is not continued across a gap longer than this, seconds. */
const MAX_TRACK_GAP_S = 3;

export interface Window {
  /** seconds of the clip */
  start: number;
  end: number;
}

export interface TrackPoint {
  /** seconds of the clip */
  t: number;
  score: number;
  box: Box;
}

/** One object followed across inferred frames. */
export interface Track {
  label: ServiceLabel;
  points: TrackPoint[];
  /** the box is shown from points[0].t - hold to points[last].t + hold */
  hold: number;
}

export interface HighlightPlan {
  window: Window;
  tracks: Track[];
  /** nothing was found: the highlight is short and holds only the caption */
  nothing: boolean;
}

export function planHighlight(analysis: Analysis, clipDuration: number): HighlightPlan {
  const keyframes = [...analysis.keyframes].sort((a, b) => a.t - b.t);
  const relevant = relevantDetections(analysis, keyframes);
  const nothing = relevant.every((k) => k.detections.length === 0);
  const length = nothing ? NOTHING_HIGHLIGHT_S : MAX_HIGHLIGHT_S;
  const window = chooseWindow(keyframes, clipDuration, length);
  const tracks = nothing ? [] : buildTracks(relevant, holdFor(keyframes));
  return { window, tracks: tracks.filter((t) => visibleIn(t, window)), nothing };
}

/**
 * The cut: the whole clip when it fits; else the `length`-second window with
 * the largest total keyframe score, among windows placed around each keyframe
 * (ties go to the window nearest the single best keyframe, then the earliest).
 */
export function chooseWindow(keyframes: KeyFrame[], clipDuration: number, length: number): Window {
  const duration = clipDuration > 0 ? clipDuration : length;
  if (duration <= length) return { start: 0, end: duration };
  if (keyframes.length === 0) return { start: 0, end: length };
  const latest = duration - length;
  const clamp = (s: number) => Math.min(latest, Math.max(0, s));
  const best = keyframes.reduce((a, b) => (b.score > a.score ? b : a));
  const starts = new Set<number>();
  for (const k of keyframes) {
    for (const s of [k.t - LEAD_S, k.t - length / 2, k.t - length + LEAD_S]) starts.add(round3(clamp(s)));
  }
  let chosen: { start: number; total: number; distance: number } | undefined;
  for (const start of [...starts].sort((a, b) => a - b)) {
    const end = start + length;
    const total = keyframes.filter((k) => k.t >= start && k.t <= end).reduce((sum, k) => sum + k.score, 0);
    const distance = Math.abs(start + length / 2 - best.t);
    const better = !chosen || total > chosen.total + 1e-9 || (Math.abs(total - chosen.total) <= 1e-9 && distance < chosen.distance - 1e-9);
    if (better) chosen = { start, total, distance };
  }
  const start = chosen!.start;
  return { start, end: round3(start + length) };
}

/** Keyframes holding only the detections that drove the result. */
export function relevantDetections(analysis: Analysis, keyframes: KeyFrame[]): KeyFrame[] {
  const found = new Set<ServiceLabel>(analysis.labels.filter((l) => l !== 'NOTHING'));
  const drove = (label: ServiceLabel) => found.size === 0 || found.has(label);
  const anyDrove = keyframes.some((k) => k.detections.some((d) => d.label !== 'NOTHING' && drove(d.label)));
  return keyframes.map((k) => ({
    ...k,
    detections: k.detections
      .filter((d) => d.label !== 'NOTHING' && (!anyDrove || drove(d.label)) && d.box.w > 0 && d.box.h > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, MAX_BOXES_PER_FRAME),
  }));
}

/**
 * Links detections of neighbouring inferred frames into tracks: a detection
 * continues the open track of its label whose last box overlaps it most (or
 * whose centre is nearest), otherwise it starts a new one.
 */
export function buildTracks(keyframes: KeyFrame[], hold: number): Track[] {
  const tracks: Track[] = [];
  for (const k of keyframes) {
    const taken = new Set<Track>();
    for (const d of k.detections) {
      let match: Track | undefined;
      let matchQuality = -Infinity;
      for (const track of tracks) {
        const last = track.points[track.points.length - 1];
        if (track.label !== d.label || taken.has(track) || last.t >= k.t || k.t - last.t > MAX_TRACK_GAP_S) continue;
        const overlap = iou(last.box, d.box);
        const distance = centreDistance(last.box, d.box);
        if (overlap < MIN_IOU && distance > MAX_CENTRE_DISTANCE + Math.max(last.box.w, last.box.h)) continue;
        const quality = overlap - distance;
        if (quality > matchQuality) {
          match = track;
          matchQuality = quality;
        }
      }
      const point = { t: k.t, score: d.score, box: clampBox(d.box) };
      if (match) match.points.push(point);
      else tracks.push((match = { label: d.label, points: [point], hold }));
      taken.add(match);
    }
  }
  return tracks;
}

/** The box of a track at clip time t: linear between its points, held at its ends. */
export function boxAt(track: Track, t: number): Box {
  return interpolate(track.points, t, (p) => p.box, lerpBox);
}

export function scoreAt(track: Track, t: number): number {
  return interpolate(track.points, t, (p) => p.score, (a, b, f) => a + (b - a) * f);
}

/** The clip seconds during which a track's box is shown, cut to the window. */
export function trackSpan(track: Track, window: Window): Window {
  return {
    start: Math.max(window.start, track.points[0].t - track.hold),
    end: Math.min(window.end, track.points[track.points.length - 1].t + track.hold),
  };
}

function visibleIn(track: Track, window: Window): boolean {
  const span = trackSpan(track, window);
  return span.end > span.start;
}

/** How long a box outlives its inferred frame: half the usual gap between inferred frames, within limits. */
function holdFor(keyframes: KeyFrame[]): number {
  const gaps = keyframes.slice(1).map((k, i) => k.t - keyframes[i].t).filter((g) => g > 0).sort((a, b) => a - b);
  const median = gaps.length ? gaps[Math.floor(gaps.length / 2)] : 1;
  return Math.min(1, Math.max(0.25, median / 2));
}

function interpolate<T>(points: TrackPoint[], t: number, pick: (p: TrackPoint) => T, lerp: (a: T, b: T, f: number) => T): T {
  if (t <= points[0].t) return pick(points[0]);
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const b = points[i];
    if (t <= b.t) return lerp(pick(a), pick(b), (t - a.t) / (b.t - a.t));
  }
  return pick(points[points.length - 1]);
}

function lerpBox(a: Box, b: Box, f: number): Box {
  return { x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f, w: a.w + (b.w - a.w) * f, h: a.h + (b.h - a.h) * f };
}

function clampBox(b: Box): Box {
  const x = Math.min(1, Math.max(0, b.x));
  const y = Math.min(1, Math.max(0, b.y));
  return { x, y, w: Math.min(1 - x, Math.max(0, b.w)), h: Math.min(1 - y, Math.max(0, b.h)) };
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;
