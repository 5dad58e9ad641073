// A dim view (a night, an infrared illuminator) as a camera would show it. The detector learnt on
// photographs with little grain, exposed for what they show. A camera in the dim raises its gain,
// and the grain with it (grain.ts): its own noise reduction takes that out. Zoomed on one small
// thing, it also meters for that thing: a far walker at night at a low bitrate differs from the
// ground by a few levels, a person at the detector's threshold at one moment of 24 in the view as
// it is, at 16 with its levels stretched over the range as an exposure for him would. Only a view
// framed on one small mover is metered so: stretched, a whole dark view shows the detector shapes
// the dark hid (the mouse arena filmed in infrared: its floor a person 0.66).
import sharp from 'sharp';
import { withoutGrain } from './grain.js';

/** Of a view's pixels, this percentage at either end of its levels is clipped when they are stretched (a lamp in view, a black shadow). */
const CLIPPED_PERCENT = 1;

/**
 * A detector's input cut from a dim frame (light.ts, underexposed: the camera's gain is up) as
 * the camera would show it: its grain taken out, and where it is framed on one small mover
 * (`meteredOnOne`), its levels stretched. Nothing (undefined) where the camera would show it as
 * it is. Whether the frame is dim is the caller's to tell: a crop can be dark for what it holds
 * in a frame exposed as by day (a dark flag against a bright sky: stretched, the detector
 * called its folds a vehicle), and nothing there is the camera's gain.
 */
export async function asCameraShows(rgb: Uint8Array, width: number, height: number, meteredOnOne: boolean): Promise<Uint8Array | undefined> {
  const clean = await withoutGrain(rgb, width, height);
  if (!meteredOnOne) return clean === rgb ? undefined : clean;
  const stretched = sharp(clean, { raw: { width, height, channels: 3 } }).normalise({ lower: CLIPPED_PERCENT, upper: 100 - CLIPPED_PERCENT });
  return new Uint8Array(await stretched.raw().toBuffer());
}
