// Thermal clips made at test time from real footage: a real walker, cut out of a real clip
// against its own background (as night.ts does), carried into a view of another real scene as
// a thermal camera (long-wave infrared, white-hot) shows it. What is warm is bright and nearly
// flat: skin and clothes at body heat keep little of their visible texture. The scene is cool,
// dark and low in contrast (a narrow band of temperatures), soft (a 640x480 sensor behind
// germanium optics blurs an edge over a pixel or two), with the sensor's temporal noise.
import { bodyMask, carryWalker, type FarWalkerOptions } from './night.js';
import { encodeFrames } from './sky.js';

/** How the camera shows the heat: white-hot gray, or painted through a colour map. */
export type Palette = 'white-hot' | 'iron' | 'rainbow';

/** As a far walker at night's: the walker clip's scale and place in the view (640x480 unless said); white-hot unless a palette is said. */
export type ThermalWalkerOptions = FarWalkerOptions & { palette?: Palette };

/** Colour maps as thermal cameras offer them: stops from the coolest level (0) to the hottest (1). */
const COLOUR_MAPS: Record<Exclude<Palette, 'white-hot'>, Array<[number, [number, number, number]]>> = {
  // black through indigo, purple, red, orange and yellow to white
  iron: [[0, [0, 0, 10]], [0.2, [40, 0, 110]], [0.4, [130, 10, 150]], [0.55, [210, 40, 90]], [0.7, [245, 110, 10]], [0.85, [255, 190, 30]], [1, [255, 255, 230]]],
  // dark blue through blue, cyan, green, yellow and red to white
  rainbow: [[0, [0, 0, 80]], [0.2, [0, 0, 255]], [0.4, [0, 255, 255]], [0.55, [0, 255, 0]], [0.7, [255, 255, 0]], [0.85, [255, 0, 0]], [1, [255, 255, 255]]],
};

/** The RGB of each gray level (0..255) through `palette`, three bytes a level. */
export function colourMap(palette: Palette): Uint8Array {
  const lut = new Uint8Array(256 * 3);
  for (let v = 0; v < 256; v++) {
    if (palette === 'white-hot') {
      lut[3 * v] = lut[3 * v + 1] = lut[3 * v + 2] = v;
      continue;
    }
    const stops = COLOUR_MAPS[palette];
    const x = v / 255;
    let i = 0;
    while (i < stops.length - 2 && x > stops[i + 1]![0]) i++;
    const [x0, c0] = stops[i]!, [x1, c1] = stops[i + 1]!;
    const f = (x - x0) / (x1 - x0);
    for (let k = 0; k < 3; k++) lut[3 * v + k] = Math.round(c0[k]! + (c1[k]! - c0[k]!) * f);
  }
  return lut;
}

/** A body's brightness, white-hot, and how much of its visible texture the heat keeps. */
const WARM = 185;
const WARM_TEXTURE = 0.15;
/** The cool scene: its gray levels squeezed into a dark band. */
const COOL = 60;
const COOL_CONTRAST = 0.25;
/** The sensor's temporal noise, in gray levels (a NETD of about 50 mK over this span). */
const NOISE = 2.5;

/** Two passes of a 3x3 binomial filter: about a Gaussian of one pixel, the optics' blur. */
function soften(image: Float32Array, width: number, height: number): Float32Array {
  let a = image;
  for (let pass = 0; pass < 2; pass++) {
    const b = new Float32Array(a.length);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        let sum = 0;
        let weight = 0;
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const yy = y + dy, xx = x + dx;
            if (yy < 0 || xx < 0 || yy >= height || xx >= width) continue;
            const k = (2 - Math.abs(dx)) * (2 - Math.abs(dy));
            sum += a[yy * width + xx]! * k;
            weight += k;
          }
        }
        b[y * width + x] = sum / weight;
      }
    }
    a = b;
  }
  return a;
}

/**
 * A walker seen by a thermal camera: `walker` (a real clip of someone walking) cut out and
 * carried at `scale` into `scene`'s first frame, white-hot on the cool scene, or painted so
 * through `palette`.
 */
export async function thermalWalkerClip(walker: string, scene: string, out: string, options: ThermalWalkerOptions): Promise<string> {
  const { width = 640, height = 480, fps = 10, seed = 11, palette = 'white-hot' } = options;
  const lut = colourMap(palette);
  const { frames, bg, w, h, view, left, top, gauss } = await carryWalker(walker, scene, { ...options, width, height, fps, seed });
  const cool = new Float32Array(width * height);
  for (let k = 0; k < cool.length; k++) cool[k] = COOL + view[k]! * COOL_CONTRAST;
  return encodeFrames({
    width, height, fps, frames: frames.length,
    async frame(i) {
      const mask = bodyMask(frames[i]!, bg, w, h, options.bodyOnly);
      const heat = cool.slice();
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          const X = x + left, Y = y + top;
          if (!mask[y * w + x] || X >= width || Y >= height) continue;
          heat[Y * width + X] = WARM + (frames[i]![y * w + x]! - 128) * WARM_TEXTURE;
        }
      }
      const seen = soften(heat, width, height);
      const rgb = Buffer.alloc(width * height * 3);
      for (let k = 0; k < seen.length; k++) {
        const v = Math.max(0, Math.min(255, Math.round(seen[k]! + gauss() * NOISE)));
        rgb[3 * k] = lut[3 * v]!;
        rgb[3 * k + 1] = lut[3 * v + 1]!;
        rgb[3 * k + 2] = lut[3 * v + 2]!;
      }
      return rgb;
    },
  }, out);
}
