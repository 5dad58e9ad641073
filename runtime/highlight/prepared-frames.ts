// The highlight's frames, prepared by the classification: its motion pass
// decodes every frame of the clip anyway, so it also writes them at the
// highlight's size and rate (raw yuv420p beside the highlight). The render that
// follows the classification then only draws and encodes, which is what a
// sync answer waits for, and the clip is decoded once less.
import fs from 'node:fs';
import path from 'node:path';
import type { ClipInfo, FrameCopy } from '../core/analysis.js';
import { diskSpaceSync } from '../core/disk-space.js';
import { geometryOf, SCALER } from './filters.js';

const FRAMES_FILE = '.highlight-frames.yuv';

/**
 * The largest copy: about 19 s of a 16:9 highlight (14 s of a 4:3 one), which holds the usual
 * 10 to 15 s event clip. It lives for a second or two, so the page cache takes it and a deleted
 * file is never written out (an SD card's wear); the cut of a longer clip is decoded by its render.
 */
export const MAX_COPY_BYTES = 64 * 1024 * 1024;

type ClipShape = Pick<ClipInfo, 'width' | 'height' | 'fps' | 'duration'>;

/** The frames to prepare for a clip's highlight: all of them, at the highlight's size and rate, when that is not too much. */
export function framesFor(clip: ClipShape, outPath: string): FrameCopy | undefined {
  const { width, height, fps } = geometryOf(clip);
  const frames = { path: framesPath(outPath), width, height, fps, scaler: SCALER };
  return clip.duration > 0 && copyBytes(clip, frames) <= MAX_COPY_BYTES ? frames : undefined;
}

/** Where a highlight's prepared frames are written, whether or not they were. */
function framesPath(outPath: string): string {
  return path.join(path.dirname(outPath), FRAMES_FILE);
}

/** Removes a highlight's prepared frames, if any. */
export async function discardFrames(outPath: string): Promise<void> {
  await fs.promises.rm(framesPath(outPath), { force: true });
}

/** Bytes of the whole copy of a clip. */
function copyBytes(clip: ClipShape, frames: FrameCopy): number {
  return Math.ceil(clip.duration * frames.fps) * frameBytes(frames);
}

/** Bytes of one yuv420p frame. */
export function frameBytes(size: { width: number; height: number }): number {
  return (size.width * size.height * 3) / 2;
}

/**
 * A copy takes at most this share of the room above retention's floor: a few jobs' copies at once
 * leave uploads and the database most of it (a 24 MB volume with 20 MB free made uploads wait).
 */
const ROOM_PER_COPY = 8;

/**
 * framesFor, when the data volume has room for it: at least ROOM_PER_COPY times its size above
 * `keepFreeBytes` (retention's floor). On a nearly full volume the copy would take the room
 * uploads and the database need, and be refused or fail anyway.
 */
export function framesWithRoom(clip: ClipShape, outPath: string, keepFreeBytes: number): FrameCopy | undefined {
  const frames = framesFor(clip, outPath);
  if (!frames) return undefined;
  try {
    return diskSpaceSync(path.dirname(outPath)).freeBytes - keepFreeBytes >= ROOM_PER_COPY * copyBytes(clip, frames) ? frames : undefined;
  } catch {
    return undefined; // the folder is gone (deleted meanwhile): nothing to prepare
  }
}

/** The prepared frames of this render when they were written whole (at least one frame). */
export async function preparedFrames(clip: ClipInfo, outPath: string): Promise<FrameCopy | undefined> {
  const frames = framesFor(clip, outPath);
  if (!frames) return undefined;
  const size = await fs.promises.stat(frames.path).then((s) => s.size, () => 0);
  const bytes = frameBytes(frames);
  return size >= bytes && size % bytes === 0 ? frames : undefined;
}

/** ffmpeg's input options reading prepared frames, from `start` seconds for `length` seconds when given. */
export function preparedInput(frames: FrameCopy, start?: number, length?: number): string[] {
  return [
    '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-video_size', `${frames.width}x${frames.height}`, '-framerate', String(frames.fps),
    ...(start ? ['-ss', String(start)] : []), ...(length !== undefined ? ['-t', String(length)] : []), '-i', frames.path,
  ];
}
