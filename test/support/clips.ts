// Test clips made at test time from ../shared/media with the real ffmpeg.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ffmpegPath } from '../../runtime/core/tools.js';
import { media } from './paths.js';

const run = promisify(execFile);

/** The folders tempDir made, removed when the process exits (mocha exits when its run is done). */
const made: string[] = [];
process.on('exit', () => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** A new folder under the system's temporary one, for this process's run only. */
export function tempDir(prefix = 'vigil-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Runs ffmpeg with the given arguments (overwriting the output). */
export async function ffmpeg(args: string[]): Promise<void> {
  await run(ffmpegPath, ['-hide_banner', '-loglevel', 'error', '-y', ...args], { maxBuffer: 1 << 26 });
}

/** A still image looped into an H.264 MP4 clip (even dimensions, yuv420p). */
export async function stillClip(image: string, out: string, seconds = 3, fps = 10, width = 640): Promise<string> {
  await ffmpeg([
    '-loop', '1', '-framerate', String(fps), '-i', media(image), '-t', String(seconds),
    '-vf', `scale=${width}:-2,format=yuv420p`, '-c:v', 'libx264', '-preset', 'ultrafast', out,
  ]);
  return out;
}

/**
 * A slow pan across an image: a crop window moving left to right, so the scene has motion.
 * `keyframeS`: a key frame this often, as a camera streams (by default the encoder's own, one
 * at the start of a short clip).
 */
export async function panClip(image: string, out: string, seconds = 4, fps = 10, width = 640, keyframeS?: number): Promise<string> {
  await ffmpeg([
    '-loop', '1', '-framerate', String(fps), '-i', media(image), '-t', String(seconds),
    '-vf', `scale=${Math.round(width * 1.25)}:-2,crop=${width}:ih:'(iw-ow)*t/${seconds}':0,scale=trunc(iw/2)*2:trunc(ih/2)*2,format=yuv420p`,
    '-c:v', 'libx264', '-preset', 'ultrafast', ...(keyframeS ? ['-g', String(Math.round(keyframeS * fps))] : []), out,
  ]);
  return out;
}

/**
 * A camera panning across what a real clip shows, as a PTZ camera on its tour turns: a window
 * of 0.8 of the clip's width sliding across it in 5 s (a quarter of the view), over the clip's
 * moving frames, or with `still` over its frame at 1 s held for 4 s (parked cars, seated people).
 */
export async function pannedClip(clip: string, out: string, { still = false } = {}): Promise<string> {
  const pan = "scale=1600:-2,crop=1280:ih:'(iw-ow)*t/5':0,scale=trunc(iw/2)*2:trunc(ih/2)*2,format=yuv420p";
  const frame = `${out}.png`;
  if (still) await ffmpeg(['-ss', '1', '-i', clip, '-frames:v', '1', frame]);
  const input = still ? ['-loop', '1', '-framerate', '10', '-i', frame, '-t', '4'] : ['-i', clip];
  await ffmpeg([...input, '-vf', pan, '-an', '-c:v', 'libx264', '-preset', 'ultrafast', out]);
  return out;
}

/** Several images shown one after another (each for `each` seconds). */
export async function sequenceClip(images: string[], out: string, each = 1, fps = 10, width = 640): Promise<string> {
  const inputs = images.flatMap((img) => ['-loop', '1', '-framerate', String(fps), '-t', String(each), '-i', media(img)]);
  const scaled = images.map((_, i) => `[${i}:v]scale=${width}:${Math.round((width * 9) / 16 / 2) * 2}:force_original_aspect_ratio=decrease,pad=${width}:${Math.round((width * 9) / 16 / 2) * 2}:(ow-iw)/2:(oh-ih)/2,setsar=1,format=yuv420p[v${i}]`);
  const concat = images.map((_, i) => `[v${i}]`).join('') + `concat=n=${images.length}:v=1:a=0[out]`;
  await ffmpeg([...inputs, '-filter_complex', [...scaled, concat].join(';'), '-map', '[out]', '-c:v', 'libx264', '-preset', 'ultrafast', out]);
  return out;
}

/**
 * A camera on a pole nudged by gusts: its view of a clip drifts a few pixels back and forth (3 px
 * over about 3 s, with a 1 px tremor) in whole-pixel steps, holding still between them: cropped
 * out of the clip 8 % larger, at a place that moves by whole pixels. Not foliage.
 */
export async function nudgedCameraClip(clip: string, out: string, seconds = 8): Promise<string> {
  const drift = "x='(iw-ow)/2+3*sin(2*PI*0.3*t)+sin(2*PI*1.3*t+1)':y='(ih-oh)/2+2*sin(2*PI*0.23*t+2)+0.7*sin(2*PI*1.7*t)'";
  await ffmpeg([
    '-t', String(seconds), '-i', clip,
    '-vf', `scale=trunc(iw*1.08/2)*2:-2,crop=trunc(iw/1.08/2)*2:trunc(ih/1.08/2)*2:${drift},setsar=1,format=yuv420p`,
    '-an', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', out,
  ]);
  return out;
}

/**
 * A camera whose automatic gain hunts (or a room under lamps flickering slower than the frame
 * rate): the whole view's levels swell and fade together, a fifth either way at 0.7 Hz. Nothing
 * in it moves that did not move in `clip`.
 */
export async function huntingGainClip(clip: string, out: string, seconds = 10): Promise<string> {
  await ffmpeg([
    '-t', String(seconds), '-i', clip,
    '-vf', "eq=brightness='0.08*sin(2*PI*t*0.7)':contrast='1+0.2*sin(2*PI*t*0.7)':eval=frame,format=yuv420p",
    '-an', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', out,
  ]);
  return out;
}

/**
 * `clip` (looped to `seconds`) with each pixel's light multiplied by `factor`, an ffmpeg
 * expression of X, Y, W, H and T: light falls on the scene, so what is lit or shaded keeps its
 * contrast in proportion. `night`: filters after it (the clip is then gray, as at night).
 */
async function relitClip(clip: string, out: string, factor: string, seconds: number, night = ''): Promise<string> {
  // the light is soft: drawn at a quarter of the size (geq is slow), enlarged, multiplied in
  await ffmpeg([
    '-stream_loop', '-1', '-i', clip, '-t', String(seconds),
    '-filter_complex', `[0:v]${night ? 'format=gray,' : ''}split[scene][sized];[sized]scale=iw/4:-2,format=gray,geq=lum='255*${factor}'[small];`
      + `[small][scene]scale2ref[light][view];[view]format=gbrp[v];[light]format=gbrp[l];[v][l]blend=all_mode=multiply,${night}format=yuv420p`,
    '-an', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', out,
  ]);
  return out;
}

/**
 * A cloud's shadow crossing the view: its edge, a penumbra a quarter of the view wide, sweeps
 * from left to right in 3 s from 0.5 s on, leaning a little, and the shaded part keeps 55 % of
 * its light (sunlight gone, the sky's left). Nothing in it moves that did not move in `clip`.
 */
export async function cloudShadowClip(clip: string, out: string, seconds = 8): Promise<string> {
  return relitClip(clip, out, '(1-0.45*clip(((T-0.5)*W/3-X+0.3*Y)/(0.25*W),0,1))', seconds);
}

/**
 * The shadows of leaves in the sun, swaying with their branches on what the camera sees: soft
 * blobs at 45 % less light over the upper three quarters of the view, fading below, moved back
 * and forth 14 px at 0.6 Hz and 5 px at 1.3 Hz (at 480 px wide). No leaf is in view.
 */
export async function leafShadowsClip(clip: string, out: string, seconds = 8): Promise<string> {
  const sway = '(14*sin(2*PI*0.6*T)+5*sin(2*PI*1.3*T+1))*W/480';
  const k = (f: number) => `${f}*480/W`;
  const leaves = `clip(3*(sin((X+${sway})*${k(0.045)}+2*sin(Y*${k(0.031)}))*sin(Y*${k(0.052)}+1.7*sin((X+${sway})*${k(0.023)}))-0.1),0,1)`;
  return relitClip(clip, out, `(1-0.45*${leaves}*clip(1.5-2*Y/H,0,1))`, seconds);
}

/**
 * `clip` at night (gray, a fifth of its light over a floor of 10 levels, a grain of 6) as a car's
 * headlights sweep across it: a soft beam, two fifths of the view wide, crossing it from 1 s to
 * 4 s and lighting what it falls on back to nearly its daylight.
 */
export async function headlightsClip(clip: string, out: string, seconds = 8): Promise<string> {
  const beam = 'exp(-(pow((X-W*(-0.3+1.6*clip((T-1)/3,0,1)))/(0.22*W),2)+pow((Y-0.6*H)/(0.35*H),2)))';
  return relitClip(clip, out, `(0.2+0.8*${beam})`, seconds, 'lutyuv=y=val+10,noise=alls=6:allf=t,');
}

/**
 * A lamp flickering over part of the view: its pool of light (soft, an eighth of the view wide
 * either way of its centre, a third of the way across) dims by up to `swing` of the light and
 * comes back, `hz` times a second. Nothing in it moves that did not move in `clip`.
 */
export async function flickeringLampClip(clip: string, out: string, options: { swing?: number; hz?: number; seconds?: number } = {}): Promise<string> {
  const { swing = 0.3, hz = 1.5, seconds = 6 } = options;
  const pool = 'exp(-(pow(X-W/3,2)+pow(Y-H/2,2))/(2*pow(W/8,2)))';
  return relitClip(clip, out, `(1-${swing}*${pool}*(1-sin(2*PI*${hz}*T))/2)`, seconds);
}

/** A camera shaken by wind: its whole view of an image sways back and forth in place (2 sways a second). Not foliage. */
export async function shakenCameraClip(image: string, out: string, seconds = 4): Promise<string> {
  await ffmpeg([
    '-loop', '1', '-framerate', '10', '-i', media(image), '-t', String(seconds),
    '-vf', 'scale=720:-2,crop=640:ih-16:40+6*sin(2*PI*t*2):8,scale=640:-2,format=yuv420p',
    '-c:v', 'libx264', '-preset', 'ultrafast', out,
  ]);
  return out;
}

/**
 * Night infrared: a dark, grainy gray scene where a small person (a second image) walks slowly
 * across, `speed` pixels a second at 640 px wide: too slow for sample-to-sample differences.
 */
export async function nightWalkerClip(scene: string, walker: string, out: string, speed = 8, seconds = 8): Promise<string> {
  await ffmpeg([
    '-loop', '1', '-framerate', '10', '-i', media(scene), '-loop', '1', '-framerate', '10', '-i', media(walker), '-t', String(seconds),
    '-filter_complex', `[0:v]scale=640:360,format=gray,lutyuv=y=val*0.35[bg];[1:v]scale=-2:120,format=gray,lutyuv=y=val*0.5[p];[bg][p]overlay=x='60+${speed}*t':y=200,noise=alls=12:allf=t,format=yuv420p`,
    '-c:v', 'libx264', '-preset', 'ultrafast', out,
  ]);
  return out;
}

/**
 * A person (an image, 260 px tall) walking left to right across an empty 640x360 yard (a plain
 * wall: nobody else in view), 90 px a second; the feet stay at the bottom of the frame.
 */
export async function walkerClip(walker: string, out: string, seconds = 4): Promise<string> {
  await ffmpeg([
    '-f', 'lavfi', '-i', 'color=c=0x6b7a5e:s=640x360:r=10', '-loop', '1', '-framerate', '10', '-i', media(walker), '-t', String(seconds),
    '-filter_complex', `[1:v]scale=-2:260[w];[0:v][w]overlay=x='20+90*t':y=96,format=yuv420p`,
    '-c:v', 'libx264', '-preset', 'ultrafast', out,
  ]);
  return out;
}
