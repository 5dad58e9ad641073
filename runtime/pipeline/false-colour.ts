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
 * hottest: 90 % or more of those pixels coloured. Many scenes never come near (of the real and
 * made clips here at most 63 %, a face close up; a warm wooden floor filling half of a room
 * 59 %), but a close view of bright flowers or a cat's fur does (98 %, 93 %).
 */
const PAINTED = 0.9;
/**
 * What tells them apart: a colour map gives each colour one brightness, its level of heat, so
 * among pixels of one colour (hue, and chroma for its brightness) the brightness spreads only by
 * the sensor's grain and the colour's width; a surface keeps its colour in light and in shade
 * (shade scales its RGB: its hue and its chroma over brightness hold), and its brightness spreads
 * by tens of levels. Rms within each colour: the walker and the mouse painted in iron or rainbow
 * 2 to 5 levels; the sunflowers 22, the cat 24.
 */
const ONE_BRIGHTNESS = 10;
/** hues told apart in steps of 7.5 degrees */
const HUES = 48;
/** chroma over brightness told apart in steps of half an octave, up to 8 of them */
const SATURATIONS = 8;
/** every 7th pixel is looked at */
const STRIDE = 7;

/**
 * Whether the RGB frame is painted through a colour map (a thermal camera's false colour). A
 * scene under daylight is told after a few hundred of its pixels: once more of them are
 * uncoloured than a painted frame could have, whatever the rest are.
 */
export function falseColour(rgb: Uint8Array): boolean {
  const sampled = Math.floor(rgb.length / 3 / STRIDE);
  const colours = HUES * SATURATIONS;
  const n = new Float64Array(colours), sum = new Float64Array(colours), squares = new Float64Array(colours);
  let coloured = 0, looked = 0;
  for (let p = 0; p + 2 < rgb.length; p += 3 * STRIDE) {
    const r = rgb[p]!, g = rgb[p + 1]!, b = rgb[p + 2]!;
    const y = 0.299 * r + 0.587 * g + 0.114 * b;
    if (y < BLACK || y > WHITE) continue;
    looked++;
    const cb = b - y, cr = r - y;
    const chroma = Math.sqrt(cb * cb + cr * cr);
    if (chroma < COLOURED) {
      if (looked - coloured > (1 - PAINTED) * sampled) return false;
      continue;
    }
    coloured++;
    const hue = Math.min(HUES - 1, Math.floor(((Math.atan2(cr, cb) + Math.PI) / (2 * Math.PI)) * HUES));
    const saturation = Math.max(0, Math.min(SATURATIONS - 1, Math.floor(2 * Math.log2(chroma / y) + SATURATIONS / 2)));
    const colour = hue * SATURATIONS + saturation;
    n[colour]++;
    sum[colour] += y;
    squares[colour] += y * y;
  }
  if (looked === 0 || coloured < PAINTED * looked) return false;
  let spread = 0;
  for (let c = 0; c < colours; c++) if (n[c]) spread += squares[c]! - sum[c]! ** 2 / n[c]!;
  return Math.sqrt(spread / coloured) <= ONE_BRIGHTNESS;
}

/** The RGB frame as its brightness, gray, in place. */
export function toBrightness(rgb: Uint8Array): void {
  for (let p = 0; p + 2 < rgb.length; p += 3) {
    const y = Math.round(0.299 * rgb[p]! + 0.587 * rgb[p + 1]! + 0.114 * rgb[p + 2]!);
    rgb[p] = rgb[p + 1] = rgb[p + 2] = y;
  }
}
