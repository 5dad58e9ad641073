// Sky clips made at test time: birds soaring and flapping against an overcast
// sky, drawn frame by frame (SVG through sharp) and encoded by the real ffmpeg.
// What a camera under a grey sky sees of a flock of birds of prey circling: small
// dark silhouettes, wings spread and tilting as they bank, a few wing beats now
// and then, each bird on a circle of its own, over soft, slowly drifting clouds.
import { spawn } from 'node:child_process';
import sharp from 'sharp';
import { ffmpegPath } from '../../runtime/core/tools.js';
import { seeded } from './random.js';


export interface FrameSource {
  width: number;
  height: number;
  fps: number;
  frames: number;
  /** frame i as raw RGB */
  frame(i: number): Promise<Buffer>;
}

/** Encodes raw RGB frames with the real ffmpeg (H.264, yuv420p), as a camera's clip would be. */
export async function encodeFrames(source: FrameSource, out: string): Promise<string> {
  const ff = spawn(ffmpegPath, [
    '-hide_banner', '-loglevel', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', 'rgb24',
    '-s', `${source.width}x${source.height}`, '-r', String(source.fps), '-i', '-',
    '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p', out,
  ], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  ff.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<void>((resolve, reject) => {
    ff.on('error', reject);
    ff.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}: ${stderr}`))));
  });
  for (let i = 0; i < source.frames; i++) {
    const frame = await source.frame(i);
    if (!ff.stdin.write(frame)) await new Promise((r) => ff.stdin.once('drain', r));
  }
  ff.stdin.end();
  await done;
  return out;
}

interface Bird {
  cx: number;
  cy: number;
  radius: number;
  /** radians per second, either way round */
  turn: number;
  phase: number;
  /** wingspan in px */
  span: number;
  flapHz: number;
  /** share of the time spent flapping (the rest soaring) */
  flapping: number;
  shade: number;
}

/** One bird's silhouette: a body and two wings whose tips rise and fall with the beat. */
function birdPath(b: Bird, x: number, y: number, heading: number, beat: number): string {
  const s = b.span / 2;
  const lift = beat * s * 0.45; // wing tips above (positive) or below the body line
  const c = Math.cos(heading), n = Math.sin(heading);
  // wings along the axis across the heading, body along it
  const pt = (along: number, across: number, up: number) => `${(x + along * c - across * n).toFixed(1)},${(y + along * n + across * c - up).toFixed(1)}`;
  const body = s * 0.35;
  return [
    `M ${pt(body, 0, 0)} L ${pt(0, s * 0.12, 0)} Q ${pt(s * 0.1, s * 0.55, lift * 0.6)} ${pt(-s * 0.05, s, lift)}`,
    `L ${pt(-s * 0.2, s * 0.5, lift * 0.4)} L ${pt(-body, s * 0.1, 0)} L ${pt(-body * 1.3, 0, 0)} L ${pt(-body, -s * 0.1, 0)}`,
    `L ${pt(-s * 0.2, -s * 0.5, lift * 0.4)} L ${pt(-s * 0.05, -s, lift)} Q ${pt(s * 0.1, -s * 0.55, lift * 0.6)} ${pt(0, -s * 0.12, 0)} Z`,
  ].join(' ');
}

export interface FlockOptions {
  width?: number;
  height?: number;
  fps?: number;
  seconds?: number;
  birds?: number;
  /** wingspans are drawn from this range, px */
  span?: [number, number];
  seed?: number;
}

/** A flock of birds circling in an overcast sky, as a raw frame source. */
export async function flockFrames(options: FlockOptions = {}): Promise<FrameSource> {
  const width = options.width ?? 640, height = options.height ?? 360, fps = options.fps ?? 25, seconds = options.seconds ?? 4;
  const random = seeded(options.seed ?? 7);
  const [minSpan, maxSpan] = options.span ?? [10, 28];
  // Overcast sky: brighter towards the top, soft cloud masses, drawn once at twice the width and drifting.
  const cloudW = width * 2;
  const clouds = Array.from({ length: 40 }, () => ({
    x: random() * cloudW, y: random() * height, rx: 60 + random() * 160, ry: 25 + random() * 60, o: 0.05 + random() * 0.12, light: random() < 0.5,
  }));
  const skySvg = `<svg xmlns="http://www.w3.org/2000/svg" width="${cloudW}" height="${height}">
    <defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#c9ccd0"/><stop offset="1" stop-color="#9ea3a9"/></linearGradient>
    <filter id="b"><feGaussianBlur stdDeviation="18"/></filter></defs>
    <rect width="100%" height="100%" fill="url(#g)"/>
    <g filter="url(#b)">${clouds.map((c) => `<ellipse cx="${c.x.toFixed(0)}" cy="${c.y.toFixed(0)}" rx="${c.rx.toFixed(0)}" ry="${c.ry.toFixed(0)}" fill="${c.light ? '#e4e6e8' : '#7d838a'}" opacity="${c.o.toFixed(2)}"/>`).join('')}</g></svg>`;
  const sky = await sharp(Buffer.from(skySvg)).removeAlpha().raw().toBuffer();
  const birds: Bird[] = Array.from({ length: options.birds ?? 9 }, () => ({
    cx: width * (0.2 + random() * 0.6), cy: height * (0.2 + random() * 0.5), radius: 30 + random() * 90,
    turn: (random() < 0.5 ? -1 : 1) * (0.4 + random() * 0.6), phase: random() * Math.PI * 2,
    span: minSpan + random() * (maxSpan - minSpan), flapHz: 2.5 + random() * 2, flapping: 0.2 + random() * 0.3, shade: 25 + random() * 35,
  }));
  const drift = 6; // px a second: clouds move slowly
  return {
    width, height, fps, frames: Math.round(seconds * fps),
    async frame(i: number) {
      const t = i / fps;
      const offset = Math.floor((t * drift) % width);
      const paths = birds.map((b) => {
        const a = b.phase + b.turn * t;
        const x = b.cx + b.radius * Math.cos(a);
        const y = b.cy + b.radius * Math.sin(a) * 0.45; // a circle seen from below at an angle
        const heading = Math.atan2(b.radius * Math.cos(a) * 0.45 * b.turn, -b.radius * Math.sin(a) * b.turn);
        // flap in bursts: a few beats, then a glide with the wings slightly raised
        const inBurst = (t * 0.5 + b.phase) % 1 < b.flapping;
        const beat = inBurst ? Math.sin(2 * Math.PI * b.flapHz * t + b.phase) : 0.25;
        const g = Math.round(b.shade);
        return `<path d="${birdPath(b, x, y, heading, beat)}" fill="rgb(${g},${g},${g + 4})"/>`;
      }).join('');
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${paths}</svg>`;
      const background = sharp(sky, { raw: { width: cloudW, height, channels: 3 } }).extract({ left: offset, top: 0, width, height });
      return background.composite([{ input: Buffer.from(svg) }]).removeAlpha().raw().toBuffer();
    },
  };
}

/** A clip of a flock circling in the sky (flockFrames), encoded to `out`. */
export async function flockClip(out: string, options: FlockOptions = {}): Promise<string> {
  return encodeFrames(await flockFrames(options), out);
}
