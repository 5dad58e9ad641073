// Free space on a volume, as an unprivileged process may use it (bavail, not
// bfree: the blocks reserved for root are not ours). The one reading behind
// retention's pruning, the readiness check, the status views, the doctor and
// the full-volume tests of writers.
import fs from 'node:fs';

export interface DiskSpace {
  freeBytes: number;
  totalBytes: number;
}

export type DiskReader = () => Promise<DiskSpace>;

const spaceOf = (s: fs.StatsFs): DiskSpace => ({ freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize });

/** Space on the volume holding dir. */
export async function diskSpace(dir: string): Promise<DiskSpace> {
  return spaceOf(await fs.promises.statfs(dir));
}

/** The same, for a decision taken in synchronous code. */
export function diskSpaceSync(dir: string): DiskSpace {
  return spaceOf(fs.statfsSync(dir));
}
