// Helpers for the highlight tests: hand-built analyses, decoded frames and
// stream facts, all through the real ffmpeg and ffprobe.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Analysis, Box, KeyFrame, Risk, ServiceLabel } from '../../runtime/core/analysis.js';
import { ffmpegPath, ffprobePath } from '../../runtime/core/tools.js';

const run = promisify(execFile);

export function analysisOf(keyframes: KeyFrame[], risk: Risk = 'danger', labels: ServiceLabel[] = ['person']): Analysis {
  const scores: Analysis['scores'] = {};
  for (const k of keyframes) for (const d of k.detections) scores[d.label] = Math.max(scores[d.label] ?? 0, d.score);
  if (labels.includes('NOTHING')) scores.NOTHING = 1;
  return {
    risk, labels, scores, keyframes,
    model: 'test', version: '0', backend: 'cpu',
    stats: { framesInferred: keyframes.length, decodeMs: 0, motionMs: 0, inferenceMs: 0, totalMs: 0 },
  };
}

/** Keyframes every `every` seconds over [from, to], with one person whose box is `box(t)`. */
export function personKeyframes(from: number, to: number, every: number, box: (t: number) => Box, score = 0.9): KeyFrame[] {
  const out: KeyFrame[] = [];
  for (let t = from; t <= to + 1e-9; t += every) {
    out.push({ t: Math.round(t * 1000) / 1000, score, detections: [{ label: 'person', score, box: box(t) }] });
  }
  return out;
}

export interface StreamFacts {
  streams: Array<{ codec_type: string; codec_name: string; pix_fmt?: string; width?: number; height?: number; avg_frame_rate?: string }>;
  format: { duration: string; format_name: string };
}

export async function probe(file: string): Promise<StreamFacts> {
  const { stdout } = await run(ffprobePath, ['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', file]);
  return JSON.parse(stdout) as StreamFacts;
}

export interface Frame {
  width: number;
  height: number;
  rgb: Buffer;
}

/** The frame shown at `t` seconds, decoded to RGB; without `t`, the first (of a still image: seeking one can give none). */
export async function frameAt(file: string, t?: number): Promise<Frame> {
  const facts = await probe(file);
  const video = facts.streams.find((s) => s.codec_type === 'video')!;
  const { stdout } = await run(
    ffmpegPath,
    ['-v', 'error', ...(t === undefined ? [] : ['-ss', String(t)]), '-i', file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
    { encoding: 'buffer', maxBuffer: 1 << 26 },
  );
  return { width: video.width!, height: video.height!, rgb: stdout };
}

export type Rgb = [number, number, number];

export function pixel(f: Frame, x: number, y: number): Rgb {
  const i = (y * f.width + x) * 3;
  return [f.rgb[i], f.rgb[i + 1], f.rgb[i + 2]];
}

export function distance(a: Rgb, b: Rgb): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

/** Mean absolute difference per channel over rows [y0, y1) of two frames of equal size. */
export function meanDiff(a: Frame, b: Frame, y0: number, y1: number): number {
  let sum = 0;
  const from = y0 * a.width * 3;
  const to = y1 * a.width * 3;
  for (let i = from; i < to; i++) sum += Math.abs(a.rgb[i] - b.rgb[i]);
  return sum / (to - from);
}

export function meanLuma(f: Frame, y0: number, y1: number): number {
  let sum = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = 0; x < f.width; x++) {
      const [r, g, b] = pixel(f, x, y);
      sum += 0.299 * r + 0.587 * g + 0.114 * b;
    }
  }
  return sum / ((y1 - y0) * f.width);
}

/**
 * How combed a frame is: the mean luma distance of each row from the mean of the rows either
 * side. An interlaced frame shown as stored has its two fields a field's time apart, so every
 * moving edge alternates line by line; one moment's frame is smooth down its columns.
 */
export function combing(f: Frame): number {
  const luma = (x: number, y: number) => { const [r, g, b] = pixel(f, x, y); return 0.299 * r + 0.587 * g + 0.114 * b; };
  let sum = 0;
  for (let y = 1; y < f.height - 1; y++) for (let x = 0; x < f.width; x++) sum += Math.abs(luma(x, y) - (luma(x, y - 1) + luma(x, y + 1)) / 2);
  return sum / (f.width * (f.height - 2));
}
