// Rain and snow drawn over real footage at test time, looking like what a camera records:
// rain as motion-blurred streaks in depth layers, each drop in one frame only; snow as soft
// flakes that fall and drift over many frames. The weather is drawn in Node as RGBA frames
// (seeded: the same clip every run), piped into ffmpeg and laid over the source clip at its
// own size and frame rate, optionally panned and with a burned-in caption over it all.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import sharp from 'sharp';
import { captionFont } from '../../runtime/highlight/font.js';
import { ffmpegPath } from '../../runtime/core/tools.js';
import { probeClip } from '../../runtime/pipeline/probe.js';
import { ffmpeg } from './clips.js';
import { seeded as random } from './random.js';

export type Rain = { kind: 'rain'; density: 'drizzle' | 'rain' | 'downpour' };
export type Snow = { kind: 'snow'; density: 'light' | 'heavy' };
/** no weather: the source only panned or captioned, to check that neither is taken for rain */
export type Dry = { kind: 'dry' };
export type Weather = Rain | Snow | Dry;

export interface WeatherClipOptions {
  /** the source is cropped by a window that moves slowly sideways (a camera panning at about 20 px/s at 480 px wide) */
  pan?: boolean;
  /** the view shakes a few pixels back and forth (a camera on a pole in the wind), instead of panning */
  shake?: boolean;
  /** a burned-in caption (camera name and a clock that ticks each second), drawn over the weather */
  caption?: boolean;
  /** at most this many seconds of the source */
  seconds?: number;
  seed?: number;
}


/** One frame of weather: the opacity of each pixel of a light layer (water and ice scatter light). */
class Layer {
  readonly alpha: Float32Array;
  constructor(readonly width: number, readonly height: number) {
    this.alpha = new Float32Array(width * height);
  }

  /** Opacities combine as layers of mist do: what one lets through, the next dims again. */
  private add(i: number, a: number): void {
    this.alpha[i] = 1 - (1 - this.alpha[i]!) * (1 - a);
  }

  /** a uniform veil (the loss of contrast of a downpour) */
  veil(a: number): void {
    for (let i = 0; i < this.alpha.length; i++) this.add(i, a);
  }

  /**
   * A segment from (x0, y0) to (x1, y1) with a soft cross-section (Gaussian of `sigma` px) and
   * ends that fade over a fifth of its length: a drop or flake smeared along its path during the
   * exposure.
   */
  segment(x0: number, y0: number, x1: number, y1: number, sigma: number, opacity: number): void {
    const reach = Math.ceil(sigma * 2.5) + 1;
    const dx = x1 - x0;
    const dy = y1 - y0;
    const length2 = dx * dx + dy * dy || 1e-6;
    const length = Math.sqrt(length2);
    const fade = Math.max(1, length / 5);
    const xa = Math.max(0, Math.floor(Math.min(x0, x1) - reach));
    const xb = Math.min(this.width - 1, Math.ceil(Math.max(x0, x1) + reach));
    const ya = Math.max(0, Math.floor(Math.min(y0, y1) - reach));
    const yb = Math.min(this.height - 1, Math.ceil(Math.max(y0, y1) + reach));
    for (let y = ya; y <= yb; y++) {
      for (let x = xa; x <= xb; x++) {
        const u = Math.max(0, Math.min(1, ((x - x0) * dx + (y - y0) * dy) / length2));
        const px = x0 + u * dx - x;
        const py = y0 + u * dy - y;
        const d2 = px * px + py * py;
        if (d2 > reach * reach) continue;
        const along = Math.min(u * length, (1 - u) * length);
        const a = opacity * Math.exp(-d2 / (2 * sigma * sigma)) * Math.min(1, (along + 0.5) / fade);
        if (a > 0.004) this.add(y * this.width + x, a);
      }
    }
  }
}

/**
 * Depth layers of rain, sizes at 480 px wide (scaled to the frame): far drops short, faint and
 * many; near drops long, wide, blurred and few.
 */
const RAIN_LAYERS = [
  { length: [5, 10], sigma: 0.45, opacity: [0.25, 0.45] },
  { length: [12, 24], sigma: 0.7, opacity: [0.3, 0.5] },
  { length: [35, 70], sigma: 1.6, opacity: [0.2, 0.35] },
] as const;
/**
 * Drops per frame at 480x270 in each layer. Drizzle is small drops falling slowly: far, short
 * and faint streaks only, a few in the middle distance, none near.
 */
const RAIN_DENSITY = { drizzle: [100, 8, 0], rain: [260, 80, 10], downpour: [700, 210, 28] } as const;
/** how long streaks are against the layer's lengths: drizzle falls at 2 m/s, rain at 5 to 9 */
const RAIN_SPEED = { drizzle: 0.6, rain: 1, downpour: 1 } as const;
/** the light a downpour scatters all over the view */
const RAIN_VEIL = { drizzle: 0, rain: 0.04, downpour: 0.14 } as const;
const SNOW_FLAKES = { light: 120, heavy: 400 } as const;

interface Flake { x: number; y: number; z: number; phase: number; period: number }

/** Weather frames, one per source frame at its rate: `next()` gives the layer of the next frame. */
function weatherFrames(weather: Weather, width: number, height: number, fps: number, seed: number): () => Layer {
  const rnd = random(seed);
  const scale = width / 480;
  const area = (width * height) / (480 * 270);
  const between = (r: readonly [number, number]) => r[0] + rnd() * (r[1] - r[0]);
  if (weather.kind === 'dry') return () => new Layer(width, height);
  if (weather.kind === 'rain') {
    // wind slants the fall a little, the same way for every drop, with some turbulence
    const slant = 0.18;
    return () => {
      const layer = new Layer(width, height);
      layer.veil(RAIN_VEIL[weather.density]);
      for (const [i, l] of RAIN_LAYERS.entries()) {
        const n = Math.round(RAIN_DENSITY[weather.density][i]! * area);
        for (let k = 0; k < n; k++) {
          const length = between(l.length) * scale * RAIN_SPEED[weather.density];
          const tilt = slant + (rnd() - 0.5) * 0.08;
          const x = rnd() * (width + length * tilt) - length * tilt;
          const y = rnd() * (height + length) - length;
          layer.segment(x, y, x + length * tilt, y + length, l.sigma * scale, between(l.opacity));
        }
      }
      return layer;
    };
  }
  // Snow: each flake at a depth z (0 far, 1 near): nearer flakes are bigger (1 to 6 px at 480 px
  // wide), brighter and fall faster (0.25 to 0.8 frame heights a second), all drift with the wind
  // and sway sideways.
  const flakes: Flake[] = [];
  const spawnFlake = (top: boolean): Flake => ({
    x: rnd() * width, y: top ? -6 * scale : rnd() * height, z: rnd(), phase: rnd() * Math.PI * 2, period: 1.5 + rnd() * 2,
  });
  for (let k = 0; k < Math.round(SNOW_FLAKES[weather.density] * area); k++) flakes.push(spawnFlake(false));
  let frame = 0;
  return () => {
    const layer = new Layer(width, height);
    const t = frame++ / fps;
    for (let k = 0; k < flakes.length; k++) {
      const f = flakes[k]!;
      const fall = (0.25 + 0.55 * f.z) * height;
      const vx = 0.04 * width + 0.06 * width * Math.cos((2 * Math.PI * t) / f.period + f.phase);
      const size = (1 + 5 * f.z) * scale;
      const blur = 1 / 120; // the exposure smears a flake a little along its path
      layer.segment(f.x, f.y, f.x + vx * blur, f.y + fall * blur, Math.max(0.4, size / 2.6), 0.55 + 0.4 * f.z);
      f.x += vx / fps;
      f.y += fall / fps;
      if (f.y > height + 6 * scale || f.x > width + 6 * scale) flakes[k] = spawnFlake(true);
      if (flakes[k]!.x > width) flakes[k]!.x -= width;
    }
    return layer;
  };
}

/** The layer as RGBA: a cold light gray, opaque where the weather is dense. */
function rgba(layer: Layer): Buffer {
  const out = Buffer.allocUnsafe(layer.alpha.length * 4);
  for (let i = 0; i < layer.alpha.length; i++) {
    out[i * 4] = 222;
    out[i * 4 + 1] = 228;
    out[i * 4 + 2] = 236;
    out[i * 4 + 3] = Math.round(Math.min(1, layer.alpha[i]!) * 255);
  }
  return out;
}

/**
 * `source` (a real clip, read in place) with the weather over it, written to `out` as H.264 at the
 * source's size and frame rate.
 */
export async function weatherClip(source: string, out: string, weather: Weather, options: WeatherClipOptions = {}): Promise<string> {
  const info = await probeClip(source);
  const { width, height } = info;
  const fps = info.fps || 25;
  const seconds = Math.min(info.duration, options.seconds ?? Infinity);
  const frames = Math.max(1, Math.round(seconds * fps));
  const graph: string[] = [];
  const larger = `scale=${Math.round((width * 1.2) / 2) * 2}:-2`;
  if (options.pan) graph.push(`[0:v]${larger},crop=${width}:${height}:x='(iw-ow)*t/${seconds}':y='(ih-oh)/2',setsar=1[scene]`);
  else if (options.shake) graph.push(`[0:v]${larger},crop=${width}:${height}:x='(iw-ow)/2+6*sin(2*PI*2.3*t)':y='(ih-oh)/2+4*sin(2*PI*3.1*t+1)',setsar=1[scene]`);
  else graph.push('[0:v]setsar=1[scene]');
  let last = '[scene][1:v]overlay=format=auto:eof_action=endall';
  if (options.caption) {
    const size = Math.round(height / 18);
    last += `,drawtext=fontfile='${captionFont()}':fontsize=${size}:fontcolor=white:borderw=2:bordercolor=black:x=${size}:y=${size}` +
      ":text='CAM 02  2026-11-24 10\\:42\\:%{eif\\:10+t\\:d\\:2}'"; // a clock ticking each second
  }
  graph.push(`${last},format=yuv420p[out]`);
  const next = weatherFrames(weather, width, height, fps, options.seed ?? 26);
  return overlaid(source, out, { width, height, fps, seconds, frames }, graph.join(';'), () => rgba(next()));
}

/** `source` with RGBA frames from `next` laid over it by `graph` (inputs [0:v] and [1:v], output [out]), as H.264. */
async function overlaid(source: string, out: string, size: { width: number; height: number; fps: number; seconds: number; frames: number }, graph: string, next: () => Buffer): Promise<string> {
  const { width, height, fps, seconds, frames } = size;
  const child = spawn(ffmpegPath, [
    '-hide_banner', '-loglevel', 'error', '-y', '-t', String(seconds), '-i', source,
    '-f', 'rawvideo', '-pix_fmt', 'rgba', '-s', `${width}x${height}`, '-r', String(fps), '-i', 'pipe:0',
    '-filter_complex', graph, '-map', '[out]', '-frames:v', String(frames), '-r', String(fps),
    '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', out,
  ], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
  const exited = once(child, 'close');
  child.stdin.on('error', () => undefined); // ffmpeg may stop reading once it has its frames
  for (let k = 0; k < frames; k++) {
    if (!child.stdin.write(next())) await Promise.race([once(child.stdin, 'drain'), exited]);
    if (child.exitCode !== null) break;
  }
  child.stdin.end();
  const [code] = await exited;
  if (code !== 0) throw new Error(`ffmpeg could not draw the weather: ${stderr.trim()}`);
  return out;
}

/** A puddle: the ellipse inside a box of the frame (shares of its width and height), its shore uneven. */
export interface Puddle {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface RipplesOptions {
  /** where water stands */
  puddles: Puddle[];
  density: Rain['density'];
  /** the view's width in metres where the water is (the rings' size follows): 12 m, a lot seen from a pole, by default */
  metres?: number;
  /** the camera's tilt foreshortens the rings: their height over their width (1 looking straight down) */
  flattening?: number;
  seconds?: number;
  seed?: number;
}

/**
 * Rings that drops landing on standing water spread, per visible drop per square metre and
 * second. Most drops are small and their rings too faint to see; the large ones of a shower
 * leave some tens of visible rings a square metre each second, a downpour makes the water boil.
 */
const RINGS_PER_M2_S = { drizzle: 15, rain: 50, downpour: 150 } as const;
/** a drop's ring spreads at about 0.25 m/s (capillary waves) and is gone within a second */
const RING_SPEED = 0.25;
const RING_LIFE = [0.35, 1] as const;

/**
 * Rain falling on puddles of `source`: each drop's impact spreads a ring on the water, a bright
 * crest (it reflects the sky) with a dark trough inside it, growing at RING_SPEED and fading
 * within a second; new rings land anywhere on the water, never twice in the same place. Only
 * the rings are drawn: lay streaks over the result with weatherClip, or leave them out (rain
 * that shows only where it lands, against a bright sky).
 */
export async function ripplesClip(source: string, out: string, options: RipplesOptions): Promise<string> {
  const info = await probeClip(source);
  const { width, height } = info;
  const fps = info.fps || 25;
  const seconds = Math.min(info.duration, options.seconds ?? Infinity);
  const frames = Math.max(1, Math.round(seconds * fps));
  const rnd = random(options.seed ?? 26);
  const perMetre = width / (options.metres ?? 12);
  const flattening = options.flattening ?? 1;
  const shores = options.puddles.map((p) => ({
    cx: (p.x + p.w / 2) * width, cy: (p.y + p.h / 2) * height, rx: (p.w / 2) * width, ry: (p.h / 2) * height,
    phases: [rnd() * 2 * Math.PI, rnd() * 2 * Math.PI],
  }));
  const onWater = (x: number, y: number) => shores.some((s) => {
    const angle = Math.atan2((y - s.cy) / s.ry, (x - s.cx) / s.rx);
    return Math.hypot((x - s.cx) / s.rx, (y - s.cy) / s.ry) < 0.88 + 0.08 * Math.sin(3 * angle + s.phases[0]!) + 0.04 * Math.sin(7 * angle + s.phases[1]!);
  });
  const water = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) water[y * width + x] = onWater(x, y) ? 1 : 0;
  // each pixel of water is 1 / perMetre wide and 1 / (perMetre x flattening) deep
  const waterArea = water.reduce((a, b) => a + b, 0) / (perMetre * perMetre * flattening);
  const perFrame = (RINGS_PER_M2_S[options.density] * waterArea) / fps;
  const rings: Array<{ x: number; y: number; born: number; life: number; strength: number }> = [];
  let frame = 0;
  const light = new Float32Array(width * height); // what the water reflects: + a crest, - a trough
  const next = () => {
    const t = frame++ / fps;
    for (let k = Math.floor(perFrame + rnd()); k > 0; k--) {
      let x = 0, y = 0;
      do {
        x = rnd() * width;
        y = rnd() * height;
      } while (!water[Math.floor(y) * width + Math.floor(x)]);
      rings.push({ x, y, born: t, life: RING_LIFE[0] + rnd() * (RING_LIFE[1] - RING_LIFE[0]), strength: 0.2 + rnd() * 0.5 });
    }
    light.fill(0);
    for (let i = rings.length - 1; i >= 0; i--) {
      const ring = rings[i]!;
      const age = t - ring.born;
      if (age > ring.life) {
        rings.splice(i, 1);
        continue;
      }
      const radius = 1 + RING_SPEED * perMetre * age;
      const a = ring.strength * (1 - age / ring.life);
      const reach = radius + 3;
      for (let y = Math.max(0, Math.floor(ring.y - reach * flattening)); y <= Math.min(height - 1, Math.ceil(ring.y + reach * flattening)); y++) {
        for (let x = Math.max(0, Math.floor(ring.x - reach)); x <= Math.min(width - 1, Math.ceil(ring.x + reach)); x++) {
          const d = Math.hypot(x - ring.x, (y - ring.y) / flattening) - radius;
          light[y * width + x] += a * (Math.exp(-(d * d) / 0.8) - 0.7 * Math.exp(-((d + 1.8) ** 2) / 0.8));
        }
      }
    }
    const rgba = Buffer.alloc(width * height * 4); // its own: ffmpeg's pipe may still hold the last one
    for (let i = 0; i < water.length; i++) {
      const v = light[i]!;
      if (!v || !water[i]) continue;
      const [r, g, b] = v > 0 ? [215, 220, 228] : [25, 28, 32];
      rgba[i * 4] = r;
      rgba[i * 4 + 1] = g;
      rgba[i * 4 + 2] = b;
      rgba[i * 4 + 3] = Math.min(255, Math.round(Math.abs(v) * 255));
    }
    return rgba;
  };
  return overlaid(source, out, { width, height, fps, seconds, frames }, '[0:v]setsar=1[scene];[scene][1:v]overlay=format=auto:eof_action=endall,format=yuv420p[out]', next);
}

/** When a lightning stroke lights the view, seconds from the clip's start, and for how long. */
export interface Flash {
  at: number;
  seconds: number;
}

/**
 * Lightning over `source`'s first `seconds`: while a stroke lights the view (a tenth of a second
 * or so, often followed by a return stroke), what the scene reflects is lit 2.2 times as much,
 * and the sky's glow adds a veil of 30 gray levels; what was already bright clips to white. The
 * light changes all of the view at once, and nothing in it moves.
 */
export async function lightningClip(source: string, out: string, flashes: Flash[] = [{ at: 3, seconds: 0.12 }, { at: 3.3, seconds: 0.06 }], seconds = 10): Promise<string> {
  // no flash: the same encode of the same stretch, to compare with
  const lit = flashes.map((f) => `between(t,${f.at},${f.at + f.seconds})`).join('+') || '0';
  await ffmpeg(['-t', String(seconds), '-i', source, '-an', '-vf', `lutyuv=y='clip(val*2.2+30,0,255)':enable='${lit}'`, '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', out]);
  return out;
}

/**
 * Water drops on the camera's window over `source`'s first `seconds`: out of focus so near the
 * lens, each a soft bright disc (it gathers light from all around, as a raindrop does) a tenth
 * of the view's width across or less, five of them resting and two running down the glass at
 * one slow pace (0.09 and 0.06 of the view's height a second, under their own size).
 */
export async function dropsOnWindowClip(source: string, out: string, seconds = 10): Promise<string> {
  const { width } = await probeClip(source);
  const side = Math.max(8, Math.round(width / 8)) & ~1;
  const r = side / 2;
  const disc = Buffer.alloc(side * side * 4);
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const d = Math.hypot(x + 0.5 - r, y + 0.5 - r) / r;
      const i = (y * side + x) * 4;
      disc[i] = disc[i + 1] = disc[i + 2] = Math.round(200 + 40 * Math.max(0, 1 - d));
      disc[i + 3] = d < 1 ? Math.round(255 * 0.55 * Math.min(1, 3 * (1 - d))) : 0;
    }
  }
  const drop = `${out}.drop.png`;
  await sharp(disc, { raw: { width: side, height: side, channels: 4 } }).png().toFile(drop);
  const resting: Array<[number, number, number]> = [[0.2, 0.3, 1], [0.6, 0.15, 0.7], [0.8, 0.6, 1.2], [0.35, 0.7, 0.8], [0.5, 0.45, 0.6]];
  const running: Array<[number, number, number]> = [[0.7, 0.05, 0.5], [0.12, 0.2, 0.4]];
  const graph: string[] = [];
  let view = '[0:v]';
  [...resting, ...running].forEach(([x, y, scale], k) => {
    const fall = k >= resting.length ? `+H*${0.09 - 0.03 * (k - resting.length)}*t` : '';
    graph.push(`[${k + 1}:v]scale=iw*${scale}:-1[d${k}]`, `${view}[d${k}]overlay=W*${x}:H*${y}${fall}:shortest=1[v${k}]`);
    view = `[v${k}]`;
  });
  const inputs = [...resting, ...running].flatMap(() => ['-loop', '1', '-i', drop]);
  await ffmpeg(['-t', String(seconds), '-i', source, ...inputs, '-filter_complex', graph.join(';'), '-map', view, '-an', '-t', String(seconds), '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p', out]);
  return out;
}

/** A street lamp in the view: where its head is (shares of the width and height) and how far its light reaches (a share of the width). */
export interface Lamp {
  x: number;
  y: number;
  reach: number;
}

/**
 * Rain or snow at night under a street lamp, over `source`: a colour camera's night view (the
 * scene at a quarter of its light, up to three fifths of it where the lamp lights it, warm, with
 * the grain of a raised gain) where drops and flakes show only where the lamp lights them (`dry`: the night
 * view alone). A drop or a flake is as bright as the light falling on it, which fades with the
 * distance from the lamp: they are drawn as weatherClip draws them, their opacity times the
 * lamp's light there (a Gaussian of `reach` about its head), so they thin out from a bright cone
 * below the lamp into the dark. The lamp's head glows in the view.
 */
export async function underLampClip(source: string, out: string, weather: Weather, lamp: Lamp, options: { seconds?: number; seed?: number } = {}): Promise<string> {
  const info = await probeClip(source);
  const { width, height } = info;
  const fps = info.fps || 25;
  const seconds = Math.min(info.duration, options.seconds ?? Infinity);
  const frames = Math.max(1, Math.round(seconds * fps));
  const sigma = lamp.reach * width;
  const glow = width / 60;
  const light = new Float32Array(width * height); // the lamp's light: 1 at its head
  const head = new Float32Array(width * height); // the glow of the head itself
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const d2 = (x - lamp.x * width) ** 2 + (y - lamp.y * height) ** 2;
      light[y * width + x] = Math.exp(-d2 / (2 * sigma * sigma));
      head[y * width + x] = Math.exp(-d2 / (2 * glow * glow));
    }
  }
  const next = weatherFrames(weather, width, height, fps, options.seed ?? 26);
  const DROP = [255, 236, 200]; // the lamp's warm white
  const frame = (): Buffer => {
    const rain = next().alpha;
    const rgba = Buffer.allocUnsafe(width * height * 4);
    for (let i = 0; i < light.length; i++) {
      // three layers over the scene, composed into one: the night's darkness (black, letting
      // through a quarter of the light and more under the lamp), the lit drops, the lamp's head
      const dark = 1 - (0.25 + 0.35 * light[i]!);
      const drop = Math.min(1, rain[i]! * light[i]!);
      const lit = head[i]!;
      const through = (1 - dark) * (1 - drop) * (1 - lit);
      const a = 1 - through;
      for (let ch = 0; ch < 3; ch++) {
        const added = DROP[ch]! * drop * (1 - lit) + 255 * lit; // what the drops and the head add over the darkened scene
        rgba[i * 4 + ch] = a > 0 ? Math.min(255, Math.round(added / a)) : 0;
      }
      rgba[i * 4 + 3] = Math.round(a * 255);
    }
    return rgba;
  };
  // the scene warmed as sodium or warm LED light tints it; the raised gain's grain over it all
  const graph = '[0:v]setsar=1,colorchannelmixer=rr=1:gg=0.86:bb=0.68[scene];[scene][1:v]overlay=format=auto:eof_action=endall,noise=alls=6:allf=t,format=yuv420p[out]';
  return overlaid(source, out, { width, height, fps, seconds, frames }, graph, frame);
}
