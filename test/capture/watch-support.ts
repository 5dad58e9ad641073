// Streams for the watching tests, made at test time from the real clips: a
// still scene (one frame of the empty room, held) and then a person walking
// through, looped by the RTSP publisher. 640x360 H.264 (10 fps unless asked
// otherwise) with a keyframe every second, as a camera's record stream would be.
import path from 'node:path';
import { ffmpeg } from '../support/clips.js';
import { media } from '../support/paths.js';

export const STREAM_FPS = 10;
const encode = (fps: number) => ['-r', String(fps), '-c:v', 'libx264', '-preset', 'veryfast', '-bf', '0', '-pix_fmt', 'yuv420p', '-g', String(fps), '-keyint_min', String(fps), '-sc_threshold', '0', '-an'];
const frame = (fps: number) => `scale=640:360:force_original_aspect_ratio=increase,crop=640:360,fps=${fps},setsar=1`;

export interface WalkLoop {
  file: string;
  /** seconds of still scene at the start of each loop */
  stillS: number;
  /** seconds of walking after it */
  walkS: number;
}

/** The empty room's first frame held `stillS`, then `walk` ("short": two walkers down a corridor, about 3 s; "long": a worker walking there and back, about 14 s). */
export async function walkLoop(dir: string, walk: 'short' | 'long', stillS: number, fps = STREAM_FPS): Promise<WalkLoop> {
  const file = path.join(dir, `walk-${walk}-${fps}.mp4`);
  const FRAME = frame(fps);
  const STREAM_FPS = fps;
  const still = `[0:v]trim=end_frame=1,${FRAME},loop=loop=${stillS * STREAM_FPS - 1}:size=1:start=0,setpts=N/${STREAM_FPS}/TB[still]`;
  let walking: string;
  let walkS: number;
  if (walk === 'short') {
    walking = `[1:v]${FRAME},setpts=N/${STREAM_FPS}/TB[walk]`;
    walkS = 2.9;
  } else {
    // there, back and there again: one long walk without a pause
    walking = `[1:v]${FRAME},split=3[a][b][c];[b]reverse[r];[a][r][c]concat=n=3:v=1:a=0,setpts=N/${STREAM_FPS}/TB[walk]`;
    walkS = 3 * 4.7;
  }
  const source = walk === 'short' ? 'corridor_two_walkers.mp4' : 'worker_hardhat_walking.mp4';
  await ffmpeg([
    '-i', media('real/indoor_empty_room.mp4'), '-i', media(`real/${source}`),
    '-filter_complex', `${still};${walking};[still][walk]concat=n=2:v=1:a=0[out]`,
    '-map', '[out]', ...encode(fps), file,
  ]);
  return { file, stillS, walkS };
}

/** The empty room's first frame held for `seconds`: a scene where nothing moves. */
export async function stillLoop(dir: string, seconds: number, fps = STREAM_FPS): Promise<string> {
  const file = path.join(dir, `still-${fps}.mp4`);
  const FRAME = frame(fps);
  const STREAM_FPS = fps;
  await ffmpeg([
    '-i', media('real/indoor_empty_room.mp4'),
    '-vf', `trim=end_frame=1,${FRAME},loop=loop=${seconds * STREAM_FPS - 1}:size=1:start=0,setpts=N/${STREAM_FPS}/TB`,
    ...encode(fps), file,
  ]);
  return file;
}
