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
