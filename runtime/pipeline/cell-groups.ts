// Flood fill: groups of neighbouring cells on a grid. The motion pass's moving
// regions and its specks, foliage's places of persistent motion and the
// segments of a segmentation mask all find their groups here.

/** A grid of cells, row-major. */
export interface CellGrid {
  x: number;
  y: number;
}

/** dx, dy pairs of the four cells beside a cell, and of the eight around it (flat: the fill runs per pixel) */
const BESIDE = Int8Array.of(-1, 0, 1, 0, 0, -1, 0, 1);
const AROUND = Int8Array.of(-1, -1, 0, -1, 1, -1, -1, 0, 1, 0, -1, 1, 0, 1, 1, 1);

/**
 * The connected groups of a grid, each as a list of cell indexes, its seed (the first cell
 * of the group in row order) first. A cell seeds a group when `joins(cell, cell)`; a neighbour
 * joins the group of `seed` when `joins(neighbour, seed)`. Neighbours are the four cells
 * beside a cell, or the eight around it with `diagonal`.
 */
export function connectedGroups(grid: CellGrid, joins: (cell: number, seed: number) => boolean, diagonal = false): number[][] {
  const cells = grid.x * grid.y;
  const seen = new Uint8Array(cells);
  const groups: number[][] = [];
  const stack: number[] = [];
  const neighbours = diagonal ? AROUND : BESIDE;
  for (let seed = 0; seed < cells; seed++) {
    if (seen[seed] || !joins(seed, seed)) continue;
    const group: number[] = [];
    stack.push(seed);
    seen[seed] = 1;
    while (stack.length) {
      const c = stack.pop()!;
      group.push(c);
      const x = c % grid.x;
      const y = (c - x) / grid.x;
      for (let k = 0; k < neighbours.length; k += 2) {
        const nx = x + neighbours[k]!;
        const ny = y + neighbours[k + 1]!;
        if (nx < 0 || ny < 0 || nx >= grid.x || ny >= grid.y) continue;
        const n = ny * grid.x + nx;
        if (!seen[n] && joins(n, seed)) {
          seen[n] = 1;
          stack.push(n);
        }
      }
    }
    groups.push(group);
  }
  return groups;
}

/** 4-connected groups of the set cells, as lists of cell indexes. */
export function cellGroups(set: Uint8Array, grid: CellGrid): number[][] {
  return connectedGroups(grid, (cell) => set[cell] !== 0);
}

/** Scratch of smallGroups, kept between calls: it runs on every sample of every clip. */
let scratch = { seen: new Uint8Array(0), stack: new Int32Array(0) };

/**
 * The set pixels of `mask` (width x height) in 8-connected groups of at most `maxSize` pixels,
 * marked 1 in the answer: the motion pass's specks. A flood fill over typed arrays, with no
 * list per group, as a sample's changes can be thousands of pixels.
 */
export function smallGroups(mask: Uint8Array, width: number, height: number, maxSize: number): Uint8Array {
  const n = width * height;
  if (scratch.seen.length !== n) scratch = { seen: new Uint8Array(n), stack: new Int32Array(n) };
  const { seen, stack } = scratch;
  seen.fill(0);
  const small = new Uint8Array(n);
  const members = new Int32Array(maxSize);
  for (let seed = 0; seed < n; seed++) {
    if (!mask[seed] || seen[seed]) continue;
    let top = 0;
    let size = 0;
    stack[top++] = seed;
    seen[seed] = 1;
    while (top > 0) {
      const c = stack[--top]!;
      if (size < maxSize) members[size] = c;
      size++;
      const x = c % width;
      const y = (c - x) / width;
      for (let k = 0; k < AROUND.length; k += 2) {
        const nx = x + AROUND[k]!;
        const ny = y + AROUND[k + 1]!;
        if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
        const i = ny * width + nx;
        if (mask[i] && !seen[i]) {
          seen[i] = 1;
          stack[top++] = i;
        }
      }
    }
    if (size <= maxSize) for (let k = 0; k < size; k++) small[members[k]!] = 1;
  }
  return small;
}
