// The record stream's recent past: short MPEG-TS segments written by ffmpeg's
// segment muxer (stream copy, cut at keyframes), each dated on the wall clock
// when ffmpeg closes it. The ring keeps only what a clip may still need: the
// pre-roll, and everything from the start of an event under way (a pin).
// A clip is cut from whole segments with the concat demuxer, again without
// re-encoding, so it starts at the keyframe that opens its first segment.
import fs from 'node:fs';
import path from 'node:path';
import { runTool } from '../core/spawn.js';
import { ffmpegPath } from '../core/tools.js';

/** a segment starting this close to the previous one's end continues it */
const CONTIGUOUS_MS = 1000;

export interface Segment {
  file: string;
  /** wall-clock milliseconds */
  start: number;
  end: number;
  bytes: number;
}

/** A segment list line of ffmpeg's segment muxer (csv): name,start,end in stream seconds. */
export function parseSegmentLine(line: string): { name: string; seconds: number } | undefined {
  const m = /^(.+),(-?[\d.]+),(-?[\d.]+)$/.exec(line.trim());
  if (!m) return undefined;
  const seconds = Number(m[3]) - Number(m[2]);
  return Number.isFinite(seconds) && seconds >= 0 ? { name: m[1]!, seconds } : undefined;
}

export class SegmentRing {
  private readonly segments: Segment[] = [];
  private readonly pins = new Map<number, number>();
  private nextPin = 0;
  /** the number the next run of the segment muxer starts counting from (names never repeat) */
  nextNumber = 0;

  /** keepMs: how far back segments are kept when nothing is pinned (the pre-roll and a margin) */
  constructor(readonly dir: string, private readonly keepMs: number) {}

  /** An empty folder (segments of an earlier run are not this run's past). */
  async prepare(): Promise<void> {
    await fs.promises.rm(this.dir, { recursive: true, force: true });
    await fs.promises.mkdir(this.dir, { recursive: true, mode: 0o700 });
  }

  /** Removes the folder; its parent too when asked and left empty (a folder the daemon made for its cameras). */
  async remove(parentIfEmpty = false): Promise<void> {
    this.segments.length = 0;
    await fs.promises.rm(this.dir, { recursive: true, force: true });
    if (parentIfEmpty) await fs.promises.rmdir(path.dirname(this.dir)).catch(() => undefined);
  }

  /** The muxer's output pattern for a run, numbered on from the last run. */
  pattern(): string {
    return path.join(this.dir, 'seg-%09d.ts');
  }

  /** A segment the muxer closed just now (endedAt), lasting `seconds` of stream time. */
  add(name: string, seconds: number, endedAt: number): void {
    const file = path.isAbsolute(name) ? name : path.join(this.dir, path.basename(name));
    const m = /seg-(\d+)\.ts$/.exec(file);
    if (m) this.nextNumber = Math.max(this.nextNumber, Number(m[1]) + 1);
    let bytes = 0;
    try {
      bytes = fs.statSync(file).size;
    } catch {
      return; // gone (the ring was removed)
    }
    // segments of one run follow each other: the wall clock's jitter (when ffmpeg's line came) leaves no gaps
    const estimated = endedAt - seconds * 1000;
    const previousEnd = this.segments.at(-1)?.end ?? 0;
    const start = Math.abs(estimated - previousEnd) < CONTIGUOUS_MS ? previousEnd : Math.max(estimated, previousEnd);
    this.segments.push({ file, start, end: endedAt, bytes });
    this.prune(endedAt);
  }

  /** The end of the newest segment (wall-clock ms), 0 with none. */
  get newestEnd(): number {
    return this.segments.at(-1)?.end ?? 0;
  }

  get bytes(): number {
    return this.segments.reduce((sum, s) => sum + s.bytes, 0);
  }

  get count(): number {
    return this.segments.length;
  }

  /** Keeps the segments from `from` on until unpinned; returns the unpin function. */
  pin(from: number): () => void {
    const id = this.nextPin++;
    this.pins.set(id, from);
    return () => {
      this.pins.delete(id);
      this.prune(this.newestEnd);
    };
  }

  /** The segments that overlap [from, to] (wall-clock ms). */
  covering(from: number, to: number): Segment[] {
    return this.segments.filter((s) => s.end > from && s.start < to);
  }

  /** Removes the segments nothing needs any more. */
  private prune(now: number): void {
    let keepFrom = now - this.keepMs;
    for (const from of this.pins.values()) keepFrom = Math.min(keepFrom, from);
    while (this.segments.length > 1 && this.segments[0]!.end < keepFrom) {
      const old = this.segments.shift()!;
      fs.rm(old.file, { force: true }, () => undefined);
    }
  }
}

/**
 * Joins whole segments into one MP4 without re-encoding (the concat demuxer). Rejects with
 * ffmpeg's last error line when it fails.
 */
export async function joinSegments(segments: Segment[], outFile: string, signal?: AbortSignal): Promise<void> {
  if (!segments.length) throw new Error('no segments to join');
  const list = `${outFile}.txt`;
  // the concat demuxer's quoting: a quote is closed, escaped and reopened
  const quoted = (file: string) => `'${file.replace(/'/g, `'\\''`)}'`;
  await fs.promises.writeFile(list, segments.map((s) => `file ${quoted(s.file)}\n`).join(''));
  try {
    const run = await runTool(ffmpegPath, [
      '-hide_banner', '-loglevel', 'error', '-nostdin', '-y',
      '-f', 'concat', '-safe', '0', '-i', list,
      '-map', '0:v:0', '-c', 'copy', '-movflags', '+faststart', '-f', 'mp4', outFile,
    ], { signal, timeoutMs: 60_000 });
    if (run.code !== 0) throw new Error(`the segments could not be joined: ${run.stderr.trim().split('\n').pop() || `ffmpeg exited with ${run.code}`}`);
  } finally {
    await fs.promises.rm(list, { force: true });
  }
}
