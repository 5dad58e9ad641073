// A clip's background: what stays in place outvotes what passes. Both the motion pass
// (96 px) and the small movers (192 px) take theirs this way. Over three frames in a row, the
// median takes out what is in one of them only (raindrops).

/**
 * The per-pixel median of up to `count` evenly spaced frames. Each pixel's median is selected
 * in place (Wirth's selection: about three comparisons per value, against a sort's dozens for a
 * few dozen values).
 */
export function medianFrame(frames: Uint8Array[], count: number): Uint8Array {
  const step = Math.max(1, frames.length / count);
  const picked: Uint8Array[] = [];
  for (let i = 0; i < frames.length; i += step) picked.push(frames[Math.floor(i)]!);
  const pixels = picked[0]!.length;
  const n = picked.length;
  const middle = n >> 1;
  const median = new Uint8Array(pixels);
  const values = new Uint8Array(n);
  for (let p = 0; p < pixels; p++) {
    for (let k = 0; k < n; k++) values[k] = picked[k]![p]!;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const pivot = values[middle]!;
      let i = low;
      let j = high;
      do {
        while (values[i]! < pivot) i++;
        while (pivot < values[j]!) j--;
        if (i <= j) {
          const v = values[i]!;
          values[i++] = values[j]!;
          values[j--] = v;
        }
      } while (i <= j);
      if (j < middle) low = i;
      if (middle < i) high = j;
    }
    median[p] = values[middle]!;
  }
  return median;
}

/** The per-pixel median of three frames of the same size (gray or RGB alike). */
export function medianOfThree(a: Uint8Array, b: Uint8Array, c: Uint8Array): Uint8Array {
  const out = new Uint8Array(b.length);
  for (let p = 0; p < b.length; p++) {
    const x = a[p]!, y = b[p]!, z = c[p]!;
    out[p] = x > y ? (y > z ? y : x > z ? z : x) : x > z ? x : y > z ? z : y;
  }
  return out;
}
