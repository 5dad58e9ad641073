// The snapshot of a classified clip: its best frame (the keyframe that drove
// the result most) as a JPEG with the boxes found in it, and a clean one
// without. What notifications, dashboards and Home Assistant show. Rendered
// beside the highlight, so it is deleted and pruned with it.
import fs from 'node:fs';
import path from 'node:path';
import type { Analysis, KeyFrame } from '../core/analysis.js';
import { writeAndReadBack } from '../core/disk-full.js';
import type { HighlightRequest } from '../jobs/stages.js';
import { CLEAN_SNAPSHOT_FILE, SNAPSHOT_FILE } from '../store/media-files.js';
import { runFfmpeg } from './ffmpeg.js';
import { RISK_COLOURS, SCALER, filter, fromSource, geometryOf, literal } from './filters.js';
import { captionFont } from './font.js';
import { preparedFrames, preparedInput } from './prepared-frames.js';
import { relevantDetections } from './plan.js';


/** The keyframe that drove the result most, with only the detections that drove it; null without keyframes. */
export function bestFrame(analysis: Analysis): KeyFrame | null {
  const frames = relevantDetections(analysis, analysis.keyframes);
  if (!frames.length) return null;
  return frames.reduce((a, b) => (b.score > a.score || (b.score === a.score && b.detections.length > a.detections.length) ? b : a));
}

/** How a snapshot's frame is read: prepared (at the snapshot's size already), or from the clip itself, interlaced or not. */
interface FrameSource {
  prepared: boolean;
  interlaced?: boolean;
}

/** The first filters of a snapshot: from the clip itself, one moment per frame and scaled; prepared, none. */
function readFilters(source: FrameSource, geometry: { width: number; height: number }): string[] {
  return source.prepared ? [] : [...fromSource(source), filter('scale', { w: geometry.width, h: geometry.height, flags: SCALER })];
}

/** The -vf chain of the boxed snapshot: as read (readFilters), one box and one label per detection. */
export function snapshotFilters(analysis: Analysis, frame: KeyFrame | null, geometry: { width: number; height: number }, source: FrameSource = { prepared: false }): string {
  const { width, height } = geometry;
  const colour = RISK_COLOURS[analysis.risk] ?? RISK_COLOURS.safe;
  const thickness = Math.max(2, Math.round(width / 240));
  const fontSize = Math.min(26, Math.max(10, Math.round(Math.min(width / 40, height / 24))));
  const filters = readFilters(source, geometry);
  for (const d of frame?.detections ?? []) {
    const x = Math.round(d.box.x * width);
    const y = Math.round(d.box.y * height);
    filters.push(filter('drawbox', {
      x, y, w: Math.max(thickness * 2, Math.round(d.box.w * width)), h: Math.max(thickness * 2, Math.round(d.box.h * height)), color: colour, t: thickness,
    }));
    filters.push(filter('drawtext', {
      fontfile: captionFont(), text: literal(`${d.label} ${Math.round(d.score * 100)}%`), fontsize: fontSize, fontcolor: 'white',
      box: 1, boxcolor: `${colour}@0.85`, boxborderw: 2, x: `max(0,min(w-tw,${x}))`, y: `max(0,${y}-th-4)`,
    }));
  }
  return filters.join(',') || 'null';
}

/** Writes snapshot.jpg and snapshot-clean.jpg beside outPath (the highlight), each renamed into place. */
export async function renderSnapshots({ clip, analysis, outPath, signal }: HighlightRequest): Promise<void> {
  const frame = bestFrame(analysis);
  const geometry = geometryOf(clip);
  const at = Math.max(0, Math.min(frame?.t ?? 0, Math.max(0, clip.duration - 0.05)));
  const prepared = await preparedFrames(clip, outPath);
  const source = { prepared: prepared !== undefined, interlaced: clip.interlaced };
  const dir = path.dirname(outPath);
  const boxed = path.join(dir, SNAPSHOT_FILE);
  const clean = path.join(dir, CLEAN_SNAPSHOT_FILE);
  const parts = [`${boxed}.part`, `${clean}.part`];
  const complete = async () => {
    for (const part of parts) {
      if (!(await isWholeJpeg(part))) throw new Error('ffmpeg wrote an empty or cut snapshot');
    }
  };
  try {
    await writeAndReadBack(dir, signal, () => runFfmpeg(
      [
        '-hide_banner', '-nostdin', '-loglevel', 'error', '-y',
        ...(prepared ? preparedInput(prepared, at) : ['-ss', String(at), '-i', clip.path]),
        '-map', '0:v:0', '-frames:v', '1', '-vf', snapshotFilters(analysis, frame, geometry, source), '-q:v', '3', '-f', 'image2', '-c:v', 'mjpeg', parts[0]!,
        '-map', '0:v:0', '-frames:v', '1', '-vf', readFilters(source, geometry).join(',') || 'null', '-q:v', '3', '-f', 'image2', '-c:v', 'mjpeg', parts[1]!,
      ],
      signal,
    ), complete);
    await fs.promises.rename(parts[0]!, boxed);
    await fs.promises.rename(parts[1]!, clean);
  } finally {
    for (const part of parts) await fs.promises.rm(part, { force: true });
  }
}

/** A JPEG written to its end (its last two bytes are the end-of-image marker). */
async function isWholeJpeg(file: string): Promise<boolean> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size < 4) return false;
    const tail = Buffer.alloc(2);
    await handle.read(tail, 0, 2, size - 2);
    return tail[0] === 0xff && tail[1] === 0xd9;
  } finally {
    await handle.close();
  }
}

