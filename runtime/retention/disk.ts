// Free space on the data volume, as an unprivileged process may use it
// (bavail, not bfree: the blocks reserved for root are not ours).
import fs from 'node:fs';

export interface DiskSpace {
  freeBytes: number;
  totalBytes: number;
}

export type DiskReader = () => Promise<DiskSpace>;

export async function diskSpace(dir: string): Promise<DiskSpace> {
  const s = await fs.promises.statfs(dir);
  return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
}

/** For readiness checks and metrics: free bytes, the configured minimum, and whether uploads are accepted. */
export async function diskStatus(dir: string, minFreeBytes: number): Promise<DiskSpace & { minFreeBytes: number; ok: boolean }> {
  const space = await diskSpace(dir);
  return { ...space, minFreeBytes, ok: space.freeBytes >= minFreeBytes };
}
