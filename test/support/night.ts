// Night-infrared clips made at test time from real footage: a real walker, cut out of a real
// clip against that clip's own background (the per-pixel median of its frames), is carried
// small and far into a wide view of another real scene, and the whole frame is what an
// infrared camera at night gives: gray, dark, low in contrast, grainy. The walker keeps the
// gait, the outline and the pace of the footage it comes from.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ffmpegPath, ffprobePath } from '../../runtime/core/tools.js';
import { connectedGroups } from '../../runtime/pipeline/cell-groups.js';
import { encodeFrames } from './sky.js';
import { gaussian, seeded } from './random.js';

const run = promisify(execFile);

/** Raw gray frames of a clip at a size and rate, decoded by the real ffmpeg. */
async function grayFrames(file: string, width: number, height: number, fps: number, frames?: number): Promise<Buffer[]> {
  const { stdout } = await run(ffmpegPath, [
    '-hide_banner', '-loglevel', 'error', '-i', file, '-vf', `fps=${fps},scale=${width}:${height},format=gray`,
    ...(frames ? ['-frames:v', String(frames)] : []), '-f', 'rawvideo', '-',
  ], { encoding: 'buffer', maxBuffer: 1 << 30 });
  const size = width * height;
  return Array.from({ length: Math.floor(stdout.length / size) }, (_, i) => stdout.subarray(i * size, (i + 1) * size));
}

/**
 * A gray level as an infrared camera records `scene`'s at night: a third of the light, lifted a
 * little, what the illuminator lights near the lens (`added`), and the sensor's grain.
 */
function infrared(scene: number, added: number, grain: number): number {
  return Math.max(0, Math.min(255, Math.round(12 + scene * 0.35 + added + grain)));
}

/** A whole frame of `view` so (infrared), RGB, with what `light` adds to each pixel and a grain of 6 levels. */
function infraredFrame(view: Uint8Array, gauss: () => number, light?: Float32Array): Buffer {
  const rgb = Buffer.alloc(view.length * 3);
  for (let k = 0; k < view.length; k++) rgb[3 * k] = rgb[3 * k + 1] = rgb[3 * k + 2] = infrared(view[k]!, light ? light[k]! : 0, gauss() * 6);
  return rgb;
}

/**
 * Adds one position of a soft spot of light (out of focus near the lens: a Gaussian of `radius`
 * px, `level` gray levels at its centre) to `light`, as one of `positions` it takes within an
 * exposure: what moves while the shutter is open is smeared along its way.
 */
function addSoftSpot(light: Float32Array, width: number, height: number, spot: { x: number; y: number; radius: number; level: number }, positions: number): void {
  const { x, y, radius, level } = spot;
  const x0 = Math.max(0, Math.floor(x - 2 * radius)), x1 = Math.min(width - 1, Math.ceil(x + 2 * radius));
  const y0 = Math.max(0, Math.floor(y - 2 * radius)), y1 = Math.min(height - 1, Math.ceil(y + 2 * radius));
  for (let yy = y0; yy <= y1; yy++) {
    for (let xx = x0; xx <= x1; xx++) light[yy * width + xx]! += (level * Math.exp(-((xx - x) ** 2 + (yy - y) ** 2) / (radius * radius))) / positions;
  }
}

/** Each pixel's median over the frames: the scene without what moves through it. */
export function medianBackground(frames: Buffer[], size: number): Uint8Array {
  const bg = new Uint8Array(size);
  const values = new Uint8Array(frames.length);
  for (let p = 0; p < size; p++) {
    for (let f = 0; f < frames.length; f++) values[f] = frames[f]![p]!;
    bg[p] = values.sort()[frames.length >> 1]!;
  }
  return bg;
}

/** The pixels of a frame that stand apart from the background, closed over holes of a pixel. */
function walkerMask(frame: Buffer, bg: Uint8Array, width: number, height: number, threshold: number): Uint8Array {
  const raw = new Uint8Array(width * height);
  for (let p = 0; p < raw.length; p++) raw[p] = Math.abs(frame[p]! - bg[p]!) > threshold ? 1 : 0;
  const mask = new Uint8Array(raw.length);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      let n = 0;
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) n += raw[(y + dy) * width + x + dx]!;
      mask[y * width + x] = n >= 4 ? 1 : 0; // most of its neighbourhood: fills holes, drops lone specks
    }
  }
  return mask;
}

/**
 * Only the largest part of a mask (its pixels joined side by side or corner to corner): the
 * body, where the clip it is cut from shows other things apart from their median too (the mouse
 * arena's rim, whose light flickers).
 */
function largestPart(mask: Uint8Array, width: number, height: number): Uint8Array {
  const parts = connectedGroups({ x: width, y: height }, (p) => mask[p] === 1, true);
  const body = new Uint8Array(mask.length);
  for (const p of parts.reduce((a, b) => (b.length > a.length ? b : a), [])) body[p] = 1;
  return body;
}

/** What of a frame of the carried clip is carried: what stands apart from its background, or only the largest part of it. */
export function bodyMask(frame: Buffer, bg: Uint8Array, width: number, height: number, bodyOnly = false): Uint8Array {
  const mask = walkerMask(frame, bg, width, height, 24);
  return bodyOnly ? largestPart(mask, width, height) : mask;
}

export interface FarWalkerOptions {
  /** the walker clip's scale in the wide view (0.35: a walker 90 px tall in the clip is 32 px) */
  scale: number;
  /** where the walker clip's top-left corner lies in the wide view, in 0..1 */
  at: { x: number; y: number };
  width?: number;
  height?: number;
  fps?: number;
  seed?: number;
  /** only the largest part of what stands apart from the clip's background is carried (largestPart) */
  bodyOnly?: boolean;
}

/** A real walker cut out of his clip and carried into another scene (farNightWalkerClip, thermal.ts). */
export interface CarriedWalker {
  /** the walker clip's gray frames at its scale in the view, w x h, and their background */
  frames: Buffer[];
  bg: Uint8Array;
  w: number;
  h: number;
  /** the scene's first frame, gray, at the view's size */
  view: Buffer;
  /** where the walker clip's top-left corner lies in the view, in pixels */
  left: number;
  top: number;
  /** the sensor's grain: a standard normal draw, seeded */
  gauss: () => number;
}

/** `walker`'s frames scaled by `options.scale` and `scene`'s view of width x height, at `fps`: what a walker carried into a view is made of. */
export async function carryWalker(walker: string, scene: string, options: FarWalkerOptions & Required<Pick<FarWalkerOptions, 'width' | 'height' | 'fps' | 'seed'>>): Promise<CarriedWalker> {
  const { width, height, fps, seed } = options;
  const { width: sw, height: sh } = await sizeOf(walker);
  const w = Math.round((sw * options.scale) / 2) * 2;
  const h = Math.round((sh * options.scale) / 2) * 2;
  const frames = await grayFrames(walker, w, h, fps);
  const [view] = await grayFrames(scene, width, height, fps, 1);
  const random = seeded(seed);
  return {
    frames, bg: medianBackground(frames, w * h), w, h, view: view!,
    left: Math.round(options.at.x * width), top: Math.round(options.at.y * height),
    gauss: gaussian(random),
  };
}

/**
 * A far walker at night: `walker` (a real clip of someone walking) cut out and carried at
 * `scale` into a wide view of `scene`'s first frame, as an infrared camera sees it at night.
 */
export async function farNightWalkerClip(walker: string, scene: string, out: string, options: FarWalkerOptions): Promise<string> {
  const { width = 1280, height = 720, fps = 10, seed = 7 } = options;
  const { frames, bg, w, h, view, left, top, gauss } = await carryWalker(walker, scene, { ...options, width, height, fps, seed });
  return encodeFrames({
    width, height, fps, frames: frames.length,
    async frame(i) {
      const mask = bodyMask(frames[i]!, bg, w, h, options.bodyOnly);
      const rgb = Buffer.alloc(width * height * 3);
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const wx = x - left;
          const wy = y - top;
          const inside = wx >= 0 && wy >= 0 && wx < w && wy < h && mask[wy * w + wx];
          const lit = inside ? frames[i]![wy * w + wx]! : view[y * width + x]!;
          const v = infrared(lit, 0, gauss() * 6);
          const o = (y * width + x) * 3;
          rgb[o] = rgb[o + 1] = rgb[o + 2] = v;
        }
      }
      return rgb;
    },
  }, out);
}

/**
 * `source` as an infrared camera would film it at night: gray, darker and a third lower in
 * contrast (its levels at 0.65: the illuminator lights less than day does), with the sensor's
 * grain changing from frame to frame (10 levels) and a night stream's low bitrate (crf 26).
 * What moves in it moves as it did, at the source's size and rate.
 */
export function atNightClip(source: string, out: string): Promise<string> {
  return grayNightClip(source, out, 'lutyuv=y=val*0.65,noise=alls=10:allf=t');
}

/**
 * `source` filmed in a third of the light, as a camera whose infrared illuminator reaches the
 * scene weakly films it at night: gray, its levels at 0.35 lifted by 12 (the sensor's black
 * level), the grain changing from frame to frame (8 levels) and a night stream's low bitrate
 * (crf 26). What moves in it moves as it did, at the source's size and rate.
 */
export function dimClip(source: string, out: string): Promise<string> {
  return grayNightClip(source, out, 'lutyuv=y=val*0.35+12,noise=alls=8:allf=t');
}

/** `source` gray through `levels` (the light and the grain, ffmpeg filters), at a night stream's low bitrate (crf 26). */
async function grayNightClip(source: string, out: string, levels: string): Promise<string> {
  await run(ffmpegPath, [
    '-hide_banner', '-loglevel', 'error', '-y', '-i', source, '-an',
    '-vf', `format=gray,${levels},format=yuv420p`,
    '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '26', out,
  ]);
  return out;
}

/** A clip's width and height, as ffprobe reads them. */
async function sizeOf(file: string): Promise<{ width: number; height: number }> {
  const probe = await run(ffprobePath, ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', file]);
  const [width, height] = probe.stdout.trim().split(',').map(Number) as [number, number];
  return { width, height };
}

/**
 * `source` as an infrared camera films it at night, frame by frame: every frame gray, a third of
 * its light lifted a little (infrared), and the sensor's grain of 6 levels drawn anew for each
 * (seeded), at `fps`, at the source's size. What moves in it moves as it did.
 */
export async function infraredClip(source: string, out: string, options: { fps?: number; seed?: number } = {}): Promise<string> {
  const { fps = 10, seed = 5 } = options;
  const { width, height } = await sizeOf(source);
  const frames = await grayFrames(source, width, height, fps);
  const gauss = gaussian(seeded(seed));
  return encodeFrames({ width, height, fps, frames: frames.length, async frame(i) { return infraredFrame(frames[i]!, gauss); } }, out);
}

export interface NightViewOptions {
  seconds?: number;
  width?: number;
  height?: number;
  fps?: number;
  seed?: number;
}

/** `scene`'s first frame as an infrared camera sees it at night, held still: nothing in it moves but the sensor's grain. */
export async function nightViewClip(scene: string, out: string, options: NightViewOptions = {}): Promise<string> {
  const { seconds = 5, width = 1280, height = 720, fps = 10, seed = 13 } = options;
  const [view] = await grayFrames(scene, width, height, fps, 1);
  const random = seeded(seed);
  const gauss = gaussian(random);
  return encodeFrames({
    width, height, fps, frames: Math.round(seconds * fps),
    async frame() {
      return infraredFrame(view!, gauss);
    },
  }, out);
}

export interface MothOptions {
  /** the moth's blur disc, radius in px of the 1280 px view (out of focus near the lens: large and soft) */
  radius?: number;
  seconds?: number;
  width?: number;
  height?: number;
  fps?: number;
  seed?: number;
}

/**
 * A moth at the lens at night: the infrared illuminator lights it far brighter than the scene,
 * and out of focus it is a soft bright disc, smeared along its way within the exposure (half the
 * frame interval), its brightness flickering with its wingbeat (faster than the frame rate, so
 * each frame catches another moment of it), flitting on a course that turns and changes pace all
 * the time, now and then leaving the view and coming back. The scene is `scene`'s first frame
 * as an infrared camera sees it at night.
 */
export async function mothAtLensClip(scene: string, out: string, options: MothOptions = {}): Promise<string> {
  const { radius = 28, seconds = 6, width = 1280, height = 720, fps = 10, seed = 11 } = options;
  const [view] = await grayFrames(scene, width, height, fps, 1);
  const random = seeded(seed);
  const gauss = gaussian(random);
  // its course: velocity as a random walk (px/s), pulled back towards the middle of the view
  const steps = 8; // positions within one exposure
  const dt = 1 / fps / 2 / steps;
  let x = width * 0.4;
  let y = height * 0.45;
  let vx = 300;
  let vy = -120;
  const frames = Math.round(seconds * fps);
  const path: Array<Array<{ x: number; y: number }>> = [];
  for (let i = 0; i < frames; i++) {
    const exposure: Array<{ x: number; y: number }> = [];
    for (let s = 0; s < 2 * steps; s++) {
      vx += gauss() * 260 + (width / 2 - x) * 0.4;
      vy += gauss() * 260 + (height / 2 - y) * 0.4;
      const speed = Math.hypot(vx, vy);
      if (speed > 700) { vx *= 700 / speed; vy *= 700 / speed; }
      x += vx * dt;
      y += vy * dt;
      if (s < steps) exposure.push({ x, y }); // the shutter is open for the first half of the interval
    }
    path.push(exposure);
  }
  return encodeFrames({
    width, height, fps, frames,
    async frame(i) {
      const light = new Float32Array(width * height);
      const beat = 0.6 + 0.4 * random(); // the wingbeat's moment this frame caught
      for (const p of path[i]!) addSoftSpot(light, width, height, { ...p, radius, level: 170 * beat }, steps);
      return infraredFrame(view!, gauss, light);
    },
  }, out);
}

export interface NightSnowOptions {
  /** flakes near the lens (out of focus: large soft discs) and farther away (in focus: specks streaked by their fall) */
  near?: number;
  far?: number;
  seconds?: number;
  width?: number;
  height?: number;
  fps?: number;
  seed?: number;
}

/**
 * Snow at night as an infrared camera sees it: the illuminator lights the flakes far brighter
 * than the scene. A flake's closeness z (0 far, 1 at the lens) sets how it looks: the far ones
 * in focus, a pixel or a few across, streaked by their fall within the exposure (half the frame
 * interval); the near ones out of focus, soft discs up to 46 px in radius. A flake falls at about
 * a metre a second whatever its size, so on the view the nearer fall faster (the nearest cross it
 * in well under a second); all drift with the wind and sway. The scene is `scene`'s first frame
 * as an infrared camera sees it at night (nightViewClip).
 */
export async function snowAtNightClip(scene: string, out: string, options: NightSnowOptions = {}): Promise<string> {
  const { near = 8, far = 300, seconds = 6, width = 1280, height = 720, fps = 10, seed = 3 } = options;
  const [view] = await grayFrames(scene, width, height, fps, 1);
  const random = seeded(seed);
  const gauss = gaussian(random);
  const flake = (z: number, top: boolean) => ({ z, x: random() * width, y: top ? -50 : random() * height, phase: random() * 2 * Math.PI, period: 1.5 + 2 * random() });
  const flakes = [
    ...Array.from({ length: near }, () => flake(0.75 + 0.25 * random(), false)),
    ...Array.from({ length: far }, () => flake(0.6 * random(), false)),
  ];
  const steps = 6; // positions within one exposure
  return encodeFrames({
    width, height, fps, frames: Math.round(seconds * fps),
    async frame(i) {
      const t = i / fps;
      const light = new Float32Array(width * height);
      for (const f of flakes) {
        const radius = f.z > 0.7 ? 6 + (40 * (f.z - 0.7)) / 0.3 : 1 + 2 * f.z;
        const fall = (0.15 + 1.2 * f.z * f.z) * height; // px/s
        const drift = 0.03 * width + 0.05 * width * Math.cos((2 * Math.PI * t) / f.period + f.phase);
        const shine = f.z > 0.7 ? 110 : 60 + 80 * f.z;
        for (let s = 0; s < steps; s++) {
          addSoftSpot(light, width, height, { x: f.x + (drift * s) / steps / fps / 2, y: f.y + (fall * s) / steps / fps / 2, radius, level: shine }, steps);
        }
        f.x += drift / fps;
        f.y += fall / fps;
        if (f.y > height + 50) Object.assign(f, flake(f.z, true));
        if (f.x > width) f.x -= width;
      }
      return infraredFrame(view!, gauss, light);
    },
  }, out);
}

export interface WebOptions {
  /** loose threads hanging from the camera's hood across the view */
  threads?: number;
  /** an orb web strung in a corner of the view as well */
  orb?: boolean;
  /** how far the breeze swings a thread's middle, px of the 1280 px view */
  swing?: number;
  /** the silk's blur (out of focus a few centimetres from the lens), sigma in px of the 1280 px view */
  blur?: number;
  /** what the illuminator adds along a thread, gray levels */
  level?: number;
  /** the scene moves as its clip does (a walker through the view) instead of its first frame held */
  moving?: boolean;
  seconds?: number;
  width?: number;
  height?: number;
  fps?: number;
  seed?: number;
}

type Point = [number, number];

/**
 * A spider's silk at the lens at night, as an infrared camera sees it: the illuminator beside the
 * lens lights threads a few centimetres from it far brighter than the scene, and out of focus a
 * thread finer than a hair is a soft glowing line many pixels wide. Loose threads hang from the
 * camera's hood in a sag to the edge of the view or end free, and swing in the breeze: a slow
 * pendulum (0.3 to 1 Hz) stirred by gusts, the free end furthest. An orb web strung in a corner
 * (spokes from a hub, an uneven spiral on them, some of it broken) sways as a whole, most at its
 * rim. Each is smeared along its way within the exposure (half the frame interval). The scene is
 * `scene` as an infrared camera sees it at night (infraredClip).
 */
export async function webAtLensClip(scene: string, out: string, options: WebOptions = {}): Promise<string> {
  const { threads = 2, orb = false, swing = 60, blur = 6, level = 110, moving = false, seconds = 8, width = 1280, height = 720, fps = 10, seed = 21 } = options;
  const views = await grayFrames(scene, width, height, fps, moving ? undefined : 1);
  const random = seeded(seed);
  const gauss = gaussian(random);
  const k = width / 1280;
  const hanging = Array.from({ length: threads }, () => {
    const x = width * (0.1 + 0.8 * random());
    const free = random() < 0.5;
    const end: Point = free ? [x + (random() - 0.5) * width * 0.3, height * (0.4 + 0.5 * random())] : [random() < 0.5 ? 0 : width, height * (0.3 + 0.6 * random())];
    return { from: [x, 0] as Point, end, free, sag: [(random() - 0.5) * 200 * k, (80 + 120 * random()) * k] as Point, hz: 0.3 + 0.7 * random(), phase: 2 * Math.PI * random(), level: level * (0.7 + 0.6 * random()) };
  });
  const hub: Point = [width * (random() < 0.5 ? 0.12 : 0.88), height * (random() < 0.5 ? 0.15 : 0.85)];
  const rim = height * 0.35;
  const silk: Array<[Point, Point]> = []; // the orb web about its hub
  if (orb) {
    const spokes = 14;
    for (let i = 0; i < spokes; i++) {
      const angle = (2 * Math.PI * i) / spokes + 0.1 * gauss();
      silk.push([[0, 0], [Math.cos(angle) * rim, Math.sin(angle) * rim]]);
    }
    const turns = 9;
    let last: Point | undefined;
    for (let a = 0; a < 2 * Math.PI * turns; a += 0.2) {
      const r = rim * (0.1 + (0.9 * a) / (2 * Math.PI * turns)) * (1 + 0.04 * gauss());
      const p: Point = [Math.cos(a) * r, Math.sin(a) * r];
      if (last && random() > 0.12) silk.push([last, p]);
      last = p;
    }
  }
  // Silk is drawn sharp, then blurred (out of focus): along a line of light `per` a px of its
  // length, a Gaussian of sigma s peaks at per / (sqrt(2 pi) s): `per` is set for `level` there.
  const sigma = blur * k;
  const perLevel = Math.sqrt(2 * Math.PI) * sigma;
  const steps = 4;
  const drawLine = (light: Float32Array, p: Point, q: Point, per: number) => {
    const n = Math.max(1, Math.ceil(Math.hypot(q[0] - p[0], q[1] - p[1])));
    const each = (per * Math.hypot(q[0] - p[0], q[1] - p[1])) / n;
    for (let i = 0; i < n; i++) {
      const x = Math.round(p[0] + ((q[0] - p[0]) * (i + 0.5)) / n), y = Math.round(p[1] + ((q[1] - p[1]) * (i + 0.5)) / n);
      if (x >= 0 && x < width && y >= 0 && y < height) light[y * width + x]! += each;
    }
  };
  let gust = 0;
  return encodeFrames({
    width, height, fps, frames: Math.round(seconds * fps),
    async frame(i) {
      const light = new Float32Array(width * height);
      gust = 0.9 * gust + 0.3 * gauss(); // the breeze's gusts, changing over a second or so
      for (let s = 0; s < steps; s++) {
        const t = (i + s / (2 * steps)) / fps;
        for (const h of hanging) {
          const swung = swing * k * (Math.sin(2 * Math.PI * h.hz * t + h.phase) + 0.5 * gust);
          const middle: Point = [(h.from[0] + h.end[0]) / 2 + h.sag[0] + swung, (h.from[1] + h.end[1]) / 2 + h.sag[1]];
          const end: Point = h.free ? [h.end[0] + 1.5 * swung, h.end[1]] : h.end;
          let last = h.from;
          for (let u = 1; u <= 40; u++) {
            const v = u / 40; // along the sag, a quadratic Bezier through `middle`'s pull
            const p: Point = [(1 - v) ** 2 * h.from[0] + 2 * v * (1 - v) * middle[0] + v * v * end[0], (1 - v) ** 2 * h.from[1] + 2 * v * (1 - v) * middle[1] + v * v * end[1]];
            drawLine(light, last, p, (h.level * perLevel) / steps);
            last = p;
          }
        }
        if (orb) {
          const swayed = 0.4 * swing * k * (Math.sin(2 * Math.PI * 0.5 * t) + 0.5 * gust);
          const at = (p: Point): Point => [hub[0] + p[0] + swayed * (0.3 + Math.hypot(p[0], p[1]) / rim), hub[1] + p[1] + 0.3 * swayed];
          for (const [p, q] of silk) drawLine(light, at(p), at(q), (0.6 * level * perLevel) / steps);
        }
      }
      gaussianBlur(light, width, height, sigma);
      return infraredFrame(views[moving ? i % views.length : 0]!, gauss, light);
    },
  }, out);
}

/** Blurs `light` in place by a Gaussian of `sigma` px, as three box blurs each way (within a few percent of it). */
function gaussianBlur(light: Float32Array, width: number, height: number, sigma: number): void {
  const radius = Math.max(1, Math.round((Math.sqrt(4 * sigma * sigma + 1) - 1) / 2)); // three boxes of 2r+1: variance 3((2r+1)^2-1)/12 = sigma^2
  const line = new Float32Array(Math.max(width, height));
  const pass = (count: number, length: number, index: (line: number, at: number) => number) => {
    for (let l = 0; l < count; l++) {
      for (let i = 0; i < length; i++) line[i] = light[index(l, i)]!;
      for (let box = 0; box < 3; box++) {
        let sum = 0;
        const out = new Float32Array(length);
        for (let i = -radius; i < length + radius; i++) {
          sum += i + radius < length ? line[i + radius]! : 0;
          if (i - radius - 1 >= 0) sum -= line[i - radius - 1]!;
          if (i >= 0 && i < length) out[i] = sum / (2 * radius + 1);
        }
        line.set(out);
      }
      for (let i = 0; i < length; i++) light[index(l, i)] = line[i]!;
    }
  };
  pass(height, width, (y, x) => y * width + x);
  pass(width, height, (x, y) => y * width + x);
}
