// Groups of neighbouring set cells on a coarse grid: the motion pass's moving
// regions and foliage's places of persistent motion both read the grid so.

/** A grid of cells, row-major. */
export interface CellGrid {
  x: number;
  y: number;
}

/** 4-connected groups of the set cells, as lists of cell indexes. */
export function cellGroups(set: Uint8Array, grid: CellGrid): number[][] {
  const seen = new Uint8Array(set.length);
  const groups: number[][] = [];
  for (let start = 0; start < set.length; start++) {
    if (!set[start] || seen[start]) continue;
    const group: number[] = [];
    const stack = [start];
    seen[start] = 1;
    while (stack.length) {
      const c = stack.pop()!;
      group.push(c);
      const x = c % grid.x, y = Math.floor(c / grid.x);
      for (const [nx, ny] of [[x - 1, y], [x + 1, y], [x, y - 1], [x, y + 1]] as const) {
        const n = ny * grid.x + nx;
        if (nx >= 0 && ny >= 0 && nx < grid.x && ny < grid.y && set[n] && !seen[n]) {
          seen[n] = 1;
          stack.push(n);
        }
      }
    }
    groups.push(group);
  }
  return groups;
}
