// The readiness checks ops owns: the database answers, and the data volume has
// room. (The model check is plugged in by the inference side.)
import type { Config } from '../config/schema.js';
import { diskSpace } from '../core/disk-space.js';
import type { Queryable } from '../store/db.js';
import type { CheckResult } from './readiness.js';

/** Used when the config has no retention minimum: enough for a few clips and the WAL. */
export const FALLBACK_MIN_FREE_BYTES = 256 * 1024 * 1024;

/** The free-space minimum: retention's (uploads are refused below it), else the fallback. */
export function minFreeBytes(config: Config): number {
  const retention = (config as { retention?: { min_free_bytes?: unknown } }).retention;
  return typeof retention?.min_free_bytes === 'number' ? retention.min_free_bytes : FALLBACK_MIN_FREE_BYTES;
}

export function databaseCheck(db: Queryable): () => Promise<CheckResult> {
  return async () => {
    const row = await db.get<{ ok: number }>('SELECT 1 AS ok');
    return row?.ok === 1 ? { ok: true, detail: 'open' } : { ok: false, detail: 'the database did not answer' };
  };
}

export function diskCheck(dataDir: string, minFree: number): () => Promise<CheckResult> {
  const mib = (n: number) => `${Math.floor(n / (1024 * 1024))} MiB`;
  return async () => {
    const { freeBytes } = await diskSpace(dataDir);
    const ok = freeBytes >= minFree;
    return { ok, detail: `${mib(freeBytes)} free, minimum ${mib(minFree)}` };
  };
}
