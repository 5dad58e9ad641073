// Foliage in wind and a flag on a pole, rendered frame by frame in Node from the real
// pictures and clips of ../shared/media (sharp reads them), piped into the real ffmpeg.
// Everything is seeded: a clip is the same on every run.
import { spawn } from 'node:child_process';
import sharp from 'sharp';
import { ffmpegPath } from '../../runtime/core/tools.js';
import { probeClip } from '../../runtime/pipeline/probe.js';
import { bodyMask, medianBackground } from './night.js';
import { media } from './paths.js';
import { seeded as random } from './random.js';

/** An RGB picture, 3 bytes a pixel, row by row. */
interface Raster {
  width: number;
  height: number;
  data: Buffer;
}


const between = (rand: () => number, lo: number, hi: number) => lo + (hi - lo) * rand();

/** A part of a shared picture (fractions of it), resized to width x height. */
async function picture(name: string, width: number, height: number, part = { x: 0, y: 0, w: 1, h: 1 }): Promise<Raster> {
  const meta = await sharp(media(name)).metadata();
  const left = Math.round(part.x * meta.width!);
  const top = Math.round(part.y * meta.height!);
  const data = await sharp(media(name))
    .extract({ left, top, width: Math.round(part.w * meta.width!), height: Math.round(part.h * meta.height!) })
    .resize(width, height, { fit: 'fill' })
    .removeAlpha()
    .raw()
    .toBuffer();
  return { width, height, data };
}

/** Writes raw RGB frames into an H.264 MP4 (yuv420p) through ffmpeg's stdin. */
async function encode(out: string, width: number, height: number, fps: number, frames: Iterable<Buffer>, crf = 23): Promise<string> {
  const child = spawn(ffmpegPath, [
    '-hide_banner', '-loglevel', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${width}x${height}`, '-r', String(fps), '-i', '-',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', String(crf), '-pix_fmt', 'yuv420p', out,
  ], { stdio: ['pipe', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (d: Buffer) => (errors += d.toString()));
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited with ${code}: ${errors}`))));
  });
  for (const frame of frames) {
    if (!child.stdin.write(frame)) await new Promise((resolve) => child.stdin.once('drain', resolve));
  }
  child.stdin.end();
  await done;
  return out;
}

/** Decodes a clip to raw RGB frames at its own size and the given rate. */
async function decode(file: string, width: number, height: number, fps: number): Promise<Buffer[]> {
  const child = spawn(ffmpegPath, ['-hide_banner', '-loglevel', 'error', '-i', file, '-vf', `fps=${fps},scale=${width}:${height}`, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const chunks: Buffer[] = [];
  for await (const chunk of child.stdout) chunks.push(chunk as Buffer);
  const all = Buffer.concat(chunks);
  const size = width * height * 3;
  const frames: Buffer[] = [];
  for (let at = 0; at + size <= all.length; at += size) frames.push(all.subarray(at, at + size));
  return frames;
}

/** Bilinear sample of a raster at (x, y), channel c (clamped at the border). */
function sample(src: Raster, x: number, y: number, c: number): number {
  const xc = Math.min(src.width - 1.001, Math.max(0, x));
  const yc = Math.min(src.height - 1.001, Math.max(0, y));
  const x0 = Math.floor(xc);
  const y0 = Math.floor(yc);
  const fx = xc - x0;
  const fy = yc - y0;
  const i = (y0 * src.width + x0) * 3 + c;
  const row = src.width * 3;
  const top = src.data[i]! + (src.data[i + 3]! - src.data[i]!) * fx;
  const bottom = src.data[i + row]! + (src.data[i + row + 3]! - src.data[i + row]!) * fx;
  return top + (bottom - top) * fy;
}

/**
 * Where vegetation is, 0..1 per pixel: green or yellow-green over blue (leaves, trees, grass in
 * daylight), not red (roofs), not gray (sky, walls, sand); blurred so that a whole crown moves,
 * its gaps with it.
 */
async function vegetationMask(src: Raster): Promise<Float32Array> {
  const raw = Buffer.alloc(src.width * src.height);
  const ramp = (v: number) => Math.max(0, Math.min(1, v));
  for (let p = 0; p < raw.length; p++) {
    const r = src.data[p * 3]!, g = src.data[p * 3 + 1]!, b = src.data[p * 3 + 2]!;
    raw[p] = 255 * ramp((g - b - 10) / 20) * ramp((g - 0.75 * r) / 15);
  }
  const blurred = await sharp(raw, { raw: { width: src.width, height: src.height, channels: 1 } }).blur(4).extractChannel(0).raw().toBuffer();
  return Float32Array.from(blurred, (v) => Math.min(1, (v / 255) * 1.5));
}

/**
 * Wind in vegetation: a smooth displacement field made of branches, each a blob of the picture
 * (15 to 70 px across at 640 px) swinging back and forth along its own direction at its own
 * frequency (0.3 to 2 Hz) and phase, by 1.5 to 7 px; gusts (0.1 to 0.25 Hz) make the swings wider and
 * lean the whole crown downwind, and let it spring back. Evaluated on a coarse grid (8 px), as
 * the field is smooth, and interpolated. With `shake`, the wind's eddies also set each branch
 * vibrating at its own natural frequency (2 to 4 Hz a bough, 3 to 6 Hz a twig), by up to `shake`
 * of its swing, the vibration swelling and fading as eddies come and go. A real conifer filmed in
 * wind moves so: its cells' displacement correlates negatively from one sample to the next (-0.2
 * to -0.45 at 10 samples a second), the vibration outweighing the slow swing between two
 * samples, where a smooth swing alone correlates positively.
 */
class SwayField {
  private readonly step = 8;
  private readonly gw: number;
  private readonly gh: number;
  private readonly branches: Array<{ weights: Float32Array; amp: number; freq: number; phase: number; natural: number; eddies: number[]; cos: number; sin: number }> = [];
  private readonly gusts: Array<{ freq: number; phase: number }>;
  private readonly wind: number;
  /** `shake`: how far each branch vibrates at its own frequency, a share of its swing (see above). */
  constructor(readonly width: number, readonly height: number, seed: number, amplitude = 1, private readonly shake = 0) {
    const rand = random(seed);
    const shaking = random(seed + 300); // draws of its own: the swings of a seed stay the same with or without a shake
    this.gw = Math.ceil(width / this.step) + 1;
    this.gh = Math.ceil(height / this.step) + 1;
    this.wind = between(rand, -0.4, 0.4); // the wind's direction, near horizontal
    const count = Math.round((width * height) / 2500);
    for (let k = 0; k < count; k++) {
      const small = k % 3 !== 0; // two of three are leaves and twigs: small, quick
      const radius = small ? between(rand, 8, 20) : between(rand, 25, 70);
      const cx = rand() * width;
      const cy = rand() * height;
      const weights = new Float32Array(this.gw * this.gh);
      for (let j = 0; j < this.gh; j++) {
        for (let i = 0; i < this.gw; i++) {
          const d2 = (i * this.step - cx) ** 2 + (j * this.step - cy) ** 2;
          weights[j * this.gw + i] = Math.exp(-d2 / (2 * radius * radius));
        }
      }
      const angle = this.wind + between(rand, -0.7, 0.7);
      this.branches.push({
        weights, amp: amplitude * (small ? between(rand, 1.5, 3) : between(rand, 3, 7)),
        freq: small ? between(rand, 0.8, 2) : between(rand, 0.3, 1), phase: rand() * 2 * Math.PI, cos: Math.cos(angle), sin: Math.sin(angle),
        natural: small ? between(shaking, 3, 6) : between(shaking, 2, 4), eddies: [between(shaking, 0.2, 0.7), between(shaking, 0.2, 0.7)],
      });
    }
    this.gusts = [0, 1].map(() => ({ freq: between(rand, 0.1, 0.25), phase: rand() * 2 * Math.PI }));
  }

  /** The gust strength at t, 0.3..1. */
  private gust(t: number): number {
    const g = this.gusts.reduce((a, { freq, phase }) => a + Math.sin(2 * Math.PI * freq * t + phase), 0) / this.gusts.length;
    return 0.65 + 0.35 * g;
  }

  /** How strongly the eddies excite a branch's vibration at t, -1.4..1.4: it comes and goes. */
  private eddies(b: { eddies: number[]; phase: number }, t: number): number {
    return (Math.sin(2 * Math.PI * b.eddies[0]! * t + b.phase * 3) + Math.sin(2 * Math.PI * b.eddies[1]! * t + b.phase * 5)) / Math.SQRT2;
  }

  /** The displacement (coarse grid) at time t. */
  at(t: number): { dx: Float32Array; dy: Float32Array } {
    const dx = new Float32Array(this.gw * this.gh);
    const dy = new Float32Array(this.gw * this.gh);
    const gust = this.gust(t);
    const lean = 2.5 * (gust - 0.65); // downwind, with the gust
    for (const b of this.branches) {
      const vibration = this.shake ? this.shake * this.eddies(b, t) * Math.sin(2 * Math.PI * b.natural * t + b.phase * 7) : 0;
      const s = b.amp * gust * (Math.sin(2 * Math.PI * b.freq * t + b.phase) + vibration) + lean;
      for (let g = 0; g < dx.length; g++) {
        const w = b.weights[g]! * s;
        dx[g] += w * b.cos;
        dy[g] += w * b.sin;
      }
    }
    return { dx, dy };
  }

  /** The picture warped by the field at t, where `mask` (0..1 a pixel) lets it move. */
  warp(src: Raster, t: number, mask: Float32Array, out: Buffer = Buffer.alloc(src.data.length)): Buffer {
    const { dx, dy } = this.at(t);
    const { width, height } = src;
    for (let y = 0; y < height; y++) {
      const gy = y / this.step;
      const j = Math.min(this.gh - 2, Math.floor(gy));
      const fy = gy - j;
      for (let x = 0; x < width; x++) {
        const gx = x / this.step;
        const i = Math.min(this.gw - 2, Math.floor(gx));
        const fx = gx - i;
        const g = j * this.gw + i;
        const lerp = (f: Float32Array) => (f[g]! * (1 - fx) + f[g + 1]! * fx) * (1 - fy) + (f[g + this.gw]! * (1 - fx) + f[g + this.gw + 1]! * fx) * fy;
        const m = mask[y * width + x]!;
        const p = (y * width + x) * 3;
        if (m < 0.01) {
          out[p] = src.data[p]!; out[p + 1] = src.data[p + 1]!; out[p + 2] = src.data[p + 2]!;
          continue;
        }
        const sx = x - lerp(dx) * m;
        const sy = y - lerp(dy) * m;
        for (let c = 0; c < 3; c++) out[p + c] = sample(src, sx, sy, c);
      }
    }
    return out;
  }
}

export interface FoliageOptions {
  seconds?: number;
  seed?: number;
  /** sensor grain: each pixel's channels shifted by up to this many levels, anew every frame */
  grain?: number;
  /** leaves turning over in place as they flutter (LeafFlicker), over this share of the foliage */
  flicker?: number;
  /** branches vibrating at their own frequencies, excited by the wind's eddies, by this share of their swing (SwayField) */
  shake?: number;
}

/**
 * Leaves fluttering on their stalks turn over in place two to eight times a second, faster than
 * the branch they hang from sways, and show their paler undersides, or the sky between them,
 * for part of each turn: spots a leaf or a cluster wide (`size` px across, give or take 40 %)
 * that brighten and go back, each at its own rate and phase, over `share` of the foliage. Real
 * trees in wind flicker so at 320 px, the same pixels again and again, where a smooth warp of a
 * picture does not (runtime/pipeline/README.md, "Foliage and wind").
 */
class LeafFlicker {
  private readonly leaves: Array<{ x: number; y: number; r: number; freq: number; phase: number; light: number; pale: number }> = [];

  constructor(private readonly mask: Float32Array, private readonly width: number, private readonly height: number, share: number, size: number, seed: number) {
    const rand = random(seed);
    const area = mask.reduce((a, b) => a + b, 0);
    const count = Math.round((area * share) / (Math.PI * size * size));
    for (let tries = 0; this.leaves.length < count && tries < count * 50; tries++) {
      const x = rand() * width, y = rand() * height;
      if (mask[Math.floor(y) * width + Math.floor(x)]! < 0.5) continue;
      this.leaves.push({
        x, y, r: size * between(rand, 0.6, 1.4), freq: between(rand, 2, 8), phase: rand() * 2 * Math.PI,
        light: between(rand, 15, 30), pale: between(rand, -0.2, 0.6),
      });
    }
  }

  /** Brightens, in place, the leaves that show their pale side at t. */
  apply(frame: Buffer, t: number): Buffer {
    const { width, height, mask } = this;
    for (const leaf of this.leaves) {
      if (Math.sin(2 * Math.PI * leaf.freq * t + leaf.phase) <= leaf.pale) continue;
      const r2 = leaf.r * leaf.r;
      for (let y = Math.max(0, Math.floor(leaf.y - leaf.r)); y <= Math.min(height - 1, Math.ceil(leaf.y + leaf.r)); y++) {
        for (let x = Math.max(0, Math.floor(leaf.x - leaf.r)); x <= Math.min(width - 1, Math.ceil(leaf.x + leaf.r)); x++) {
          const d2 = (x - leaf.x) ** 2 + (y - leaf.y) ** 2;
          if (d2 > r2) continue;
          const a = leaf.light * Math.min(1, (2 * (r2 - d2)) / r2) * mask[y * width + x]!;
          const p = (y * width + x) * 3;
          for (let c = 0; c < 3; c++) frame[p + c] = Math.min(255, frame[p + c]! + a);
        }
      }
    }
    return frame;
  }
}

/** Adds grain to a frame in place (seeded). */
function addGrain(frame: Buffer, grain: number, rand: () => number): Buffer {
  for (let i = 0; i < frame.length; i++) frame[i] = Math.max(0, Math.min(255, frame[i]! + Math.round((rand() * 2 - 1) * grain)));
  return frame;
}

/**
 * The trees in wind of treesInWindClip, frame by frame (640x360, 25 fps): the tree line of
 * kite_and_cold.jpg, enlarged, swaying branch by branch, flickering with `flicker`; `over` draws
 * on a frame before the sensor's grain (`grain`) goes over it all.
 */
async function swayingTrees(options: FoliageOptions) {
  const width = 640, height = 360, fps = 25;
  const src = await picture('kite_and_cold.jpg', width, height, { x: 0.02, y: 0.33, w: 0.22, h: 0.185 });
  const mask = await vegetationMask(src);
  const field = new SwayField(width, height, options.seed ?? 7, 1, options.shake);
  const rand = random((options.seed ?? 7) + 100);
  // a leaf or a cluster of a tree line some 20 m wide: about 1.5 px
  const leaves = options.flicker ? new LeafFlicker(mask, width, height, options.flicker, 1.5, (options.seed ?? 7) + 200) : undefined;
  const frame = (n: number, over?: (frame: Buffer) => void): Buffer => {
    const view = field.warp(src, n / fps, mask);
    leaves?.apply(view, n / fps);
    over?.(view);
    return options.grain ? addGrain(view, options.grain, rand) : view;
  };
  return { width, height, fps, frame };
}

/**
 * Trees in wind seen by a still camera: the tree line of kite_and_cold.jpg, enlarged (the sky
 * above and the grass below stay still), the trees swaying branch by branch; with `flicker`, their
 * leaves turning over in place too; with `grain`, a grainy sensor's noise over all of it.
 * 640x360, 25 fps.
 */
export async function treesInWindClip(out: string, options: FoliageOptions = {}): Promise<string> {
  const seconds = options.seconds ?? 6;
  const trees = await swayingTrees(options);
  const frames = function* () {
    for (let n = 0; n < seconds * trees.fps; n++) yield trees.frame(n);
  };
  return encode(out, trees.width, trees.height, trees.fps, frames());
}

export interface WalkerBeforeTreesOptions extends FoliageOptions {
  /** the walker clip's scale in the view */
  scale: number;
  /** where the walker clip's top-left corner lies in the view, in 0..1 */
  at: { x: number; y: number };
}

/**
 * A person walking along a tree line on a windy day: the walker of a real clip (`walker`, someone
 * walking through a still view) cut out of it, in colour, and carried at `scale` in front of
 * the trees of treesInWindClip, swaying (and flickering, with `flicker`) behind him. As long as
 * the walker's clip, 640x360, 25 fps.
 */
export async function walkerBeforeTreesClip(walker: string, out: string, options: WalkerBeforeTreesOptions): Promise<string> {
  const trees = await swayingTrees(options);
  const { width, height, fps } = trees;
  const info = await probeClip(walker);
  const w = Math.round((info.width * options.scale) / 2) * 2, h = Math.round((info.height * options.scale) / 2) * 2;
  const body = await decode(walker, w, h, fps);
  const grays = body.map((rgb) => {
    const gray = Buffer.alloc(w * h);
    for (let p = 0; p < gray.length; p++) gray[p] = Math.round(0.299 * rgb[p * 3]! + 0.587 * rgb[p * 3 + 1]! + 0.114 * rgb[p * 3 + 2]!);
    return gray;
  });
  const bg = medianBackground(grays, w * h);
  const left = Math.round(options.at.x * width), top = Math.round(options.at.y * height);
  const carry = (n: number) => (frame: Buffer) => {
    const person = bodyMask(grays[n]!, bg, w, h, true);
    for (let y = Math.max(0, -top); y < Math.min(h, height - top); y++) {
      for (let x = Math.max(0, -left); x < Math.min(w, width - left); x++) {
        if (!person[y * w + x]) continue;
        const p = ((top + y) * width + left + x) * 3, q = (y * w + x) * 3;
        for (let c = 0; c < 3; c++) frame[p + c] = body[n]![q + c]!;
      }
    }
  };
  const frames = function* () {
    for (let n = 0; n < body.length; n++) yield trees.frame(n, carry(n));
  };
  return encode(out, width, height, fps, frames());
}

/** A field of sunflowers and their leaves swaying in wind (sunflower.png), still camera, at `fps` (25). */
export async function sunflowerInWindClip(out: string, options: FoliageOptions & { fps?: number } = {}): Promise<string> {
  const width = 640, height = 424, fps = options.fps ?? 25, seconds = options.seconds ?? 6;
  const src = await picture('sunflower.png', width, height);
  const mask = new Float32Array(width * height).fill(1); // all of it is plant
  const field = new SwayField(width, height, options.seed ?? 11);
  const frames = function* () {
    for (let n = 0; n < seconds * fps; n++) yield field.warp(src, n / fps, mask);
  };
  return encode(out, width, height, fps, frames());
}

/**
 * A real clip with a bush swaying in wind in its top right (or left) corner: leaves of sunflower.png
 * (an irregular, soft-edged crown about a quarter of the frame wide), warped like the trees;
 * what the clip shows (a walker) goes on around it.
 */
export async function foliageOverClip(clip: string, out: string, options: FoliageOptions & { width: number; height: number; fps: number; corner?: 'left' | 'right' }): Promise<string> {
  const { width, height, fps } = options;
  const frames = await decode(clip, width, height, fps);
  const bw = Math.round(width * 0.28), bh = Math.round(height * 0.42);
  const bush = await picture('sunflower.png', bw, bh, { x: 0.72, y: 0.45, w: 0.28, h: 0.55 });
  const rand = random((options.seed ?? 5) + 1);
  // an irregular crown: an ellipse whose radius wavers with the angle, soft at its edge
  const lobes = Array.from({ length: 5 }, (_, k) => ({ k: k + 2, a: between(rand, 0, 0.12), p: rand() * 2 * Math.PI }));
  const alpha = new Float32Array(bw * bh);
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const u = (x - bw * 0.55) / (bw * 0.5), v = (y - bh * 0.45) / (bh * 0.55);
      const angle = Math.atan2(v, u);
      const r = 1 + lobes.reduce((a, l) => a + l.a * Math.sin(l.k * angle + l.p), 0);
      alpha[y * bw + x] = Math.max(0, Math.min(1, (r - Math.hypot(u, v)) * 8));
    }
  }
  const field = new SwayField(bw, bh, options.seed ?? 5);
  // a bush a metre or two across: its leaves some 4 px
  const leaves = options.flicker ? new LeafFlicker(alpha, bw, bh, options.flicker, 4, (options.seed ?? 5) + 200) : undefined;
  const still = new Float32Array(bw * bh).fill(1);
  const warped = Buffer.alloc(bw * bh * 3);
  const x0 = options.corner === 'left' ? 0 : width - bw, y0 = 0;
  const composite = function* () {
    for (let n = 0; n < frames.length; n++) {
      const frame = Buffer.from(frames[n]!);
      field.warp(bush, n / fps, still, warped);
      leaves?.apply(warped, n / fps);
      for (let y = 0; y < bh; y++) {
        for (let x = 0; x < bw; x++) {
          const a = alpha[y * bw + x]!;
          if (a <= 0) continue;
          const p = ((y0 + y) * width + x0 + x) * 3, q = (y * bw + x) * 3;
          for (let c = 0; c < 3; c++) frame[p + c] = frame[p + c]! * (1 - a) + warped[q + c]! * a;
        }
      }
      yield frame;
    }
  };
  // re-encoded finely, so the clip's own pixels stay as the camera gave them
  return encode(out, width, height, fps, composite(), 16);
}

type Rgb = [number, number, number];

/** Flags' cloths, by where on the cloth (u from the pole, v from the top, 0..1). */
const CLOTHS = {
  /** thirteen stripes and a canton of stars in rows */
  'stripes-and-canton': (u: number, v: number): Rgb => {
    if (u < 0.4 && v < 7 / 13) {
      const star = Math.hypot(((u * 30) % 1) - 0.5, ((v * 18 + (Math.floor(u * 30) % 2) * 0.5) % 1) - 0.5) < 0.22;
      return star ? [235, 235, 240] : [40, 55, 125];
    }
    return Math.floor(v * 13) % 2 === 0 ? [190, 30, 45] : [240, 240, 240];
  },
  /** three vertical bands */
  tricolour: (u: number): Rgb => (u < 1 / 3 ? [0, 85, 164] : u < 2 / 3 ? [245, 245, 245] : [239, 65, 53]),
  /** three horizontal bands */
  bands: (_u: number, v: number): Rgb => (v < 1 / 3 ? [20, 20, 20] : v < 2 / 3 ? [221, 0, 0] : [255, 206, 0]),
};

/**
 * A flag on a pole in wind, still camera: a cloth (stripes and a canton, or bands: a national
 * flag's look), hoisted on a shaded pole, in front of the sky and tree line of kite_and_cold.jpg. A
 * wave travels from the pole to the free end (flutter 1.5 to 3 Hz, wavelength about half the
 * flag), its amplitude growing towards the free end; the slope of the cloth shades its folds,
 * and gusts change the flutter's strength. 640x360, 25 fps. `size`: the flag's and the pole's
 * scale (1: a cloth 230 px wide, near; a quarter: a flag across the street).
 */
export async function flagClip(out: string, options: FoliageOptions & { cloth?: keyof typeof CLOTHS; size?: number } = {}): Promise<string> {
  const width = 640, height = 360, fps = 25, seconds = options.seconds ?? 6;
  const rand = random(options.seed ?? 3);
  const scene = await picture('kite_and_cold.jpg', width, height, { x: 0, y: 0.08, w: 0.45, h: 0.38 });
  const size = options.size ?? 1;
  const pole = { x: 210, top: Math.round(50 - 10 * size), width: Math.max(2, Math.round(8 * size)) };
  const flag = { x: pole.x + pole.width, y: 50, w: Math.round(230 * size), h: Math.round(140 * size) };
  const freq = between(rand, 1.5, 3);
  const wavelength = between(rand, 0.45, 0.6);
  const gusts = [0, 1].map(() => ({ freq: between(rand, 0.1, 0.3), phase: rand() * 2 * Math.PI }));
  const cloth = CLOTHS[options.cloth ?? 'stripes-and-canton'];
  const frames = function* () {
    for (let n = 0; n < seconds * fps; n++) {
      const t = n / fps;
      const frame = Buffer.from(scene.data);
      const gust = 0.7 + 0.3 * gusts.reduce((a, g) => a + Math.sin(2 * Math.PI * g.freq * t + g.phase), 0) / gusts.length;
      const phase = (u: number) => 2 * Math.PI * (freq * t - u / wavelength);
      // the pole: a vertical cylinder lit from the left
      for (let y = pole.top; y < height; y++) {
        for (let x = pole.x; x < pole.x + pole.width; x++) {
          const shade = 0.55 + 0.45 * Math.cos(((x - pole.x) / pole.width - 0.3) * Math.PI);
          const p = (y * width + x) * 3;
          frame[p] = 170 * shade; frame[p + 1] = 170 * shade; frame[p + 2] = 175 * shade;
        }
      }
      // the cloth: column by column from the pole; the wave lifts and lowers each column, the
      // cloth bunches up (shorter) where the wave folds it, and the fold's slope shades it
      const reach = flag.w * (0.88 + 0.1 * gust);
      for (let x = flag.x; x < flag.x + reach && x < width; x++) {
        const u = (x - flag.x) / reach;
        const amp = flag.h * 0.12 * gust * u;
        const lift = amp * Math.sin(phase(u));
        const slope = Math.cos(phase(u)) * gust * Math.min(1, 0.3 + u);
        const shade = 0.78 + 0.22 * slope;
        const droop = u * u * 8 * (1 - gust); // in a lull the free end sags
        const top = flag.y + lift + droop;
        for (let y = Math.max(0, Math.floor(top)); y < Math.min(height, top + flag.h); y++) {
          const v = (y - top) / flag.h;
          const rgb = cloth(u, v);
          const edge = Math.min(1, y + 1 - top, top + flag.h - y); // antialiased hem
          const p = (y * width + x) * 3;
          for (let c = 0; c < 3; c++) frame[p + c] = frame[p + c]! * (1 - edge) + Math.min(255, rgb[c]! * shade) * edge;
        }
      }
      yield frame;
    }
  };
  return encode(out, width, height, fps, frames());
}

export interface InsectOnDomeOptions {
  /** the blot's half length, px of the view (out of focus on the dome: large and soft) */
  radius?: number;
  /** how much light its body holds back at its middle (0..1: out of focus, never all) */
  shade?: number;
  width?: number;
  height?: number;
  fps?: number;
  seed?: number;
}

/**
 * A fly walking on a dome camera's cover by day, over a real clip: a centimetre from the lens it
 * is far out of focus, a soft dark blot longer than wide that holds back part of the light of
 * what lies behind it (it never hides it). It walks in starts and stops, turning as it goes, its
 * outline wobbling with its legs while it walks, and never leaves the view. What the clip shows
 * goes on behind it.
 */
export async function insectOnDomeClip(clip: string, out: string, options: InsectOnDomeOptions = {}): Promise<string> {
  const { radius = 60, shade = 0.6, width = 1280, height = 720, fps = 10, seed = 3 } = options;
  const frames = await decode(clip, width, height, fps);
  const rand = random(seed);
  let x = width * 0.3, y = height * 0.4, heading = rand() * 2 * Math.PI, walking = true;
  const step = (4 * radius) / fps; // about two of its lengths a second while it walks
  const blotted = function* () {
    for (let n = 0; n < frames.length; n++) {
      if (rand() < 0.1) walking = !walking; // a few steps, a pause, on again
      if (walking) {
        heading += (rand() - 0.5) * 1.2;
        x += Math.cos(heading) * step;
        y += Math.sin(heading) * step;
      }
      if (x < radius || x > width - radius) heading = Math.PI - heading;
      if (y < radius || y > height - radius) heading = -heading;
      x = Math.min(width - radius, Math.max(radius, x));
      y = Math.min(height - radius, Math.max(radius, y));
      const wobble = walking ? 0.1 * Math.sin(n * 2.5) : 0;
      const frame = Buffer.from(frames[n]!);
      const c = Math.cos(heading), s = Math.sin(heading);
      for (let yy = Math.max(0, Math.floor(y - 2 * radius)); yy < Math.min(height, y + 2 * radius); yy++) {
        for (let xx = Math.max(0, Math.floor(x - 2 * radius)); xx < Math.min(width, x + 2 * radius); xx++) {
          const u = ((xx - x) * c + (yy - y) * s) / (radius * 1.3), v = (-(xx - x) * s + (yy - y) * c) / (radius * (0.8 + wobble));
          const a = shade * Math.exp(-1.5 * (u * u + v * v));
          const p = (yy * width + xx) * 3;
          for (let k = 0; k < 3; k++) frame[p + k] = Math.round(frame[p + k]! * (1 - a) + 15 * a);
        }
      }
      yield frame;
    }
  };
  return encode(out, width, height, fps, blotted());
}
