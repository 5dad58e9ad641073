// A sensor's grain: in a dim view (a night, an infrared illuminator) the camera raises its gain,
// and the noise of each pixel with it, anew in every frame. The detector learned on photos with
// little of it; grain of two levels at its input hides from it a car in plain view (the overhead
// lot filmed in infrared: nothing, where a Gaussian of 0.8 px over its input brings the car
// back, 0.73). A camera's own noise reduction does as much: the grain is measured and taken out
// as far as a well-lit camera shows it, no further (dim-view.ts).
import sharp from 'sharp';

/** A well-lit camera's H.264 leaves about this much noise per pixel (measured at the detector's input: 0.1 to 0.7 on the real day clips). */
const CLEAN_GRAIN = 1;
/** Gaussian blurs tried in turn, in px at the detector's input: the least that leaves the grain clean is used (sharp leaves a picture as it is below about 0.6). */
const BLURS = [0.7, 1, 1.4, 2];
/** Of the view's pixels, this share with the strongest gradients are edges and texture, not grain (Tai & Yang, 2008). */
const EDGE_SHARE = 0.1;

/**
 * The noise of an RGB picture's luma, in gray levels (a standard deviation): Immerkaer's
 * estimator (1996: the mean absolute response of a Laplacian difference that cancels any
 * smooth shading, over that of a Gaussian noise), over the pixels outside the strongest
 * gradients, where edges and texture would count as noise.
 */
export function grainOf(rgb: Uint8Array, width: number, height: number): number {
  if (width < 3 || height < 3) return 0;
  const luma = new Float32Array(width * height);
  for (let p = 0; p < luma.length; p++) luma[p] = 0.299 * rgb[3 * p]! + 0.587 * rgb[3 * p + 1]! + 0.114 * rgb[3 * p + 2]!;
  const inner = (width - 2) * (height - 2);
  const laplacian = new Float32Array(inner);
  const gradient = new Uint16Array(inner); // |gx| + |gy| of a Sobel operator, at most 2040
  const histogram = new Uint32Array(2041);
  let k = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++, k++) {
      const i = y * width + x;
      const nw = luma[i - width - 1]!, n = luma[i - width]!, ne = luma[i - width + 1]!;
      const w = luma[i - 1]!, c = luma[i]!, e = luma[i + 1]!;
      const sw = luma[i + width - 1]!, s = luma[i + width]!, se = luma[i + width + 1]!;
      laplacian[k] = Math.abs(nw - 2 * n + ne - 2 * w + 4 * c - 2 * e + sw - 2 * s + se);
      const g = Math.min(2040, Math.round(Math.abs(ne + 2 * e + se - nw - 2 * w - sw) + Math.abs(sw + 2 * s + se - nw - 2 * n - ne)));
      gradient[k] = g;
      histogram[g]++;
    }
  }
  let edge = 0;
  for (let seen = histogram[0]!; edge < 2040 && seen < inner * (1 - EDGE_SHARE); ) seen += histogram[++edge]!;
  let sum = 0;
  let counted = 0;
  for (let j = 0; j < inner; j++) {
    if (gradient[j]! > edge) continue;
    sum += laplacian[j]!;
    counted++;
  }
  // a Gaussian noise of sigma gives the kernel's response a sigma of 6 sigma, its mean absolute value sqrt(2/pi) of that
  return counted ? (Math.sqrt(Math.PI / 2) * sum) / (6 * counted) : 0;
}

/**
 * A picture with its grain taken out as far as a well-lit camera shows it, no further: blurred
 * by the least Gaussian that leaves its noise no more than such a camera's; the picture itself
 * where it is already as clean.
 */
export async function withoutGrain(rgb: Uint8Array, width: number, height: number): Promise<Uint8Array> {
  if (grainOf(rgb, width, height) <= CLEAN_GRAIN) return rgb;
  let blurred = rgb;
  for (const sigma of BLURS) {
    blurred = new Uint8Array(await sharp(rgb, { raw: { width, height, channels: 3 } }).blur(sigma).raw().toBuffer());
    if (grainOf(blurred, width, height) <= CLEAN_GRAIN) break;
  }
  return blurred;
}
