// The median of a list of numbers: the middle one, or the mean of the two middle ones (0 for
// none). Sorts a copy: for the handful of votes and maps a clip gives, not for per-pixel work.
export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort(ascending);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Numbers in ascending order, for sort(): one comparator for every call (a closure made per call is compiled again per call). */
export function ascending(a: number, b: number): number {
  return a - b;
}
