// A thermal camera measures one thing per pixel, its heat, and many show it through a colour map
// (iron, rainbow): each level of heat painted in its own saturated hue. Those colours mean
// nothing a network trained on daylight photographs knows: a far walker painted in iron came
// out an animal, a near one painted in rainbow a flag. A frame so painted is given to the
// networks by its brightness, gray, as a white-hot camera shows the same heat.

/** A pixel is coloured where its chroma (B - Y, R - Y) lies this many gray levels or more from gray. */
const COLOURED = 24;
/** Black and white are no colour's, in a colour map (its ends) as in a scene: pixels this near either are not looked at. */
const BLACK = 16;
const WHITE = 240;
/**
 * A colour map paints every level between its ends in a saturated hue, the coolest as the
 * hottest. A scene under daylight or lamps has grays and muted surfaces in every view: of the
 * real and made clips here at most 63 % of those pixels are coloured (a face close up; a warm
 * wooden floor filling half of a room 59 %), a cartoon's flat paints 80 %; of a walker and a
 * mouse painted in iron or rainbow, all of them.
 */
const PAINTED = 0.9;
/** every 7th pixel is looked at */
const STRIDE = 7;

/**
 * Whether the RGB frame is painted through a colour map (a thermal camera's false colour). A
 * scene under daylight is told after a few hundred of its pixels: once more of them are
 * uncoloured than a painted frame could have, whatever the rest are.
 */
export function falseColour(rgb: Uint8Array): boolean {
  const sampled = Math.floor(rgb.length / 3 / STRIDE);
  let coloured = 0, looked = 0;
  for (let p = 0; p + 2 < rgb.length; p += 3 * STRIDE) {
    const r = rgb[p]!, g = rgb[p + 1]!, b = rgb[p + 2]!;
    const y = 0.299 * r + 0.587 * g + 0.114 * b;
    if (y < BLACK || y > WHITE) continue;
    looked++;
    if ((b - y) ** 2 + (r - y) ** 2 >= COLOURED ** 2) coloured++;
    else if (looked - coloured > (1 - PAINTED) * sampled) return false;
  }
  return looked > 0 && coloured >= PAINTED * looked;
}

/** The RGB frame as its brightness, gray, in place. */
export function toBrightness(rgb: Uint8Array): void {
  for (let p = 0; p + 2 < rgb.length; p += 3) {
    const y = Math.round(0.299 * rgb[p]! + 0.587 * rgb[p + 1]! + 0.114 * rgb[p + 2]!);
    rgb[p] = rgb[p + 1] = rgb[p + 2] = y;
  }
}
