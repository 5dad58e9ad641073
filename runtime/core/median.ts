// The median of a list of numbers: the middle one, or the mean of the two middle ones (0 for
// none). Sorts a copy: for the handful of votes and maps a clip gives, not for per-pixel work.
export function median(values: number[]): number {
  return sortedMedian([...values].sort(ascending), values.length);
}

/** The median of the first `n` values of an ascending list (0 for none): the middle one, or the mean of the two middle ones. */
export function sortedMedian(sorted: ArrayLike<number>, n: number): number {
  if (n === 0) return 0;
  const mid = n >> 1;
  return n % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Numbers in ascending order, for sort(): one comparator for every call (a closure made per call is compiled again per call). */
export function ascending(a: number, b: number): number {
  return a - b;
}

/**
 * The level (0..255) under which more than `share` of a 256-bin histogram's `count` values lie:
 * the first whose running sum passes `share` x `count` (255 at most). A percentile of 8-bit
 * levels or differences in one pass over 256 bins, with no sort.
 */
export function histogramLevel(histogram: Uint32Array, count: number, share: number): number {
  let level = 0;
  for (let seen = histogram[0]!; level < 255 && seen <= count * share; ) seen += histogram[++level]!;
  return level;
}

/**
 * The lower quartile of the absolute value of Gaussian noise, in its sigmas: a noise read off the
 * lower quartile of differences holds while up to three quarters of a view change for good
 * reason (drops, a body), where a median would take them for noise.
 */
export const ABS_GAUSSIAN_QUARTILE = 0.3186;
