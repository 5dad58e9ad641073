// Renders the annotated highlight of one classified clip with ffmpeg: the
// planned window, scaled, boxes and caption drawn, H.264 yuv420p with
// +faststart and no audio. Written beside the target and renamed into place,
// so a half-written file is never served; ffmpeg is killed on abort.
import fs from 'node:fs';
import path from 'node:path';
import type { ClipInfo } from '../core/analysis.js';
import { writeAndReadBack } from '../core/disk-full.js';
import { CancelledError } from '../core/errors.js';
import { probeClip } from '../pipeline/probe.js';
import type { HighlightRenderer, HighlightRequest, HighlightStage } from '../jobs/stages.js';
import { runFfmpeg } from './ffmpeg.js';
import { buildFilterChain, geometryOf } from './filters.js';
import { captionFont } from './font.js';
import { planHighlight } from './plan.js';
import { discardFrames, framesWithRoom, preparedFrames, preparedInput } from './prepared-frames.js';
import { renderSnapshots } from './snapshot.js';

/** The highlight video and the snapshots beside it (the same lifecycle: media/<id>/). */
export const renderHighlight: HighlightRenderer = async (request) => {
  // side by side: each is one ffmpeg, mostly single-threaded, and a sync answer waits for both
  const [video, snapshots] = await Promise.allSettled([renderHighlightVideo(request), renderSnapshots(request)]);
  if (video.status === 'rejected') throw video.reason;
  if (snapshots.status === 'rejected') throw snapshots.reason;
  return video.value;
};

/** The highlight stage of a job: frames prepared by the classification (where the volume has room beside its floor), then the render. */
export function highlightStage(keepFreeBytes: number): HighlightStage {
  return { framesFor: (clip, outPath) => framesWithRoom(clip, outPath, keepFreeBytes), discardFrames, render: renderHighlight };
}

/** Writes the highlight video to outPath; answers its facts as probed. */
export async function renderHighlightVideo({ clip, analysis, outPath, signal }: HighlightRequest): Promise<ClipInfo> {
  if (signal.aborted) throw signal.reason ?? new CancelledError();
  const plan = planHighlight(analysis, clip.duration);
  const geometry = geometryOf(clip);
  const prepared = await preparedFrames(clip, outPath);
  const chain = buildFilterChain({ plan, analysis, geometry, sourceFps: clip.fps, prepared: prepared !== undefined, interlaced: clip.interlaced, fontFile: captionFont() });
  const { start, end } = plan.window;
  // The chain can be long (one drawbox per box slice), so it goes in a file, not argv.
  const scriptPath = `${outPath}.filters`;
  const partPath = `${outPath}.part`;
  const args = [
    '-hide_banner', '-nostdin', '-loglevel', 'error', '-y',
    ...(prepared ? preparedInput(prepared, start, end - start) : ['-ss', String(start), '-t', String(end - start), '-i', clip.path]),
    '-map', '0:v:0', '-an', '-sn', '-dn', '-map_metadata', '-1',
    '-filter_script:v', scriptPath,
    // ultrafast: encoding is the cost of a render (filters are cheap); it halves the time
    // of veryfast for about twice the bytes, and its profile plays on any player.
    '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '25', '-pix_fmt', 'yuv420p',
    '-movflags', '+faststart', '-f', 'mp4', partPath,
  ];
  try {
    await fs.promises.writeFile(scriptPath, chain);
    const written = await writeAndReadBack(
      path.dirname(outPath),
      signal,
      () => runFfmpeg(args, signal),
      () => probeClip(partPath, signal),
    );
    // ffmpeg exits 0 when every frame of the cut failed to decode; such a file is no highlight
    if (written.nframes < 1) throw new Error('no frame of the clip could be decoded');
    await fs.promises.rename(partPath, outPath);
    return { ...written, path: outPath };
  } catch (err) {
    await fs.promises.rm(partPath, { force: true });
    throw err;
  } finally {
    await fs.promises.rm(scriptPath, { force: true });
  }
}
