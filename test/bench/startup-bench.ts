// Start-up on a large store: the real daemon started on a data folder seeded
// with 100,000 final results (rows written with SQL, each with its media
// folder and an empty clip file), timed from the spawn to the first answer of
// /healthz, to /readyz ready, and to the end of the background checks of the
// stored media.
import fs from 'node:fs';
import path from 'node:path';
import { Database } from '../../runtime/store/db.js';
import { tempDir } from '../support/clips.js';
import { freePort, TestDaemon } from '../support/daemon.js';
import { insertRows } from './retention-bench.js';

const PREFIX = 'aaaaaaaa-';

/** The ids insertRows gives (see its printf). */
const idOf = (i: number) => `${PREFIX}${Math.floor(i / 65536).toString(16).padStart(4, '0')}-4000-8000-${i.toString(16).padStart(12, '0')}`;

export async function seed(dataDir: string, count: number): Promise<void> {
  const db = await Database.open(path.join(dataDir, 'vigil.db'));
  try {
    await insertRows(db, count, 60 * 60 * 1000, PREFIX);
  } finally {
    await db.close();
  }
  for (let i = 1; i <= count; i++) {
    const folder = path.join(dataDir, 'media', idOf(i));
    fs.mkdirSync(folder, { recursive: true });
    fs.closeSync(fs.openSync(path.join(folder, 'clip.mp4'), 'w'));
  }
}

async function answers(url: string): Promise<number> {
  try {
    const res = await fetch(url);
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

export interface StartupBench {
  healthzMs: number;
  readyzMs: number;
  /** until the log says the background checks of the stored media are over */
  checksMs: number;
  count: number;
}

export async function benchStartup(count = 100_000): Promise<StartupBench> {
  const dataDir = tempDir('vigil-startup-bench-');
  await seed(dataDir, count);
  // limits above the seeded store: the time measured is the start-up's, not a prune's
  const daemon = new TestDaemon({ dataDir, config: { log: { level: 'info' }, retention: { max_count: 0, max_media_bytes: 0, min_free_bytes: 0 } } });
  daemon.port = await freePort();
  try {
    const spawned = performance.now();
    const starting = daemon.start();
    starting.catch(() => undefined);
    while ((await answers(`${daemon.url}/healthz`)) !== 200) await new Promise((r) => setTimeout(r, 10));
    const healthzMs = performance.now() - spawned;
    await starting;
    while ((await answers(`${daemon.url}/readyz`)) !== 200) await new Promise((r) => setTimeout(r, 200));
    const readyzMs = performance.now() - spawned;
    await daemon.waitForLog((r) => r.msg === 'media folders reconciled', 600_000);
    const checksMs = performance.now() - spawned;
    return { healthzMs, readyzMs, checksMs, count };
  } finally {
    await daemon.cleanup();
  }
}

export function startupRows(s: StartupBench): Array<Record<string, string | number>> {
  const seconds = (ms: number) => Math.round(ms / 10) / 100;
  return [
    { figure: `start to the first /healthz answer, ${s.count} stored results`, value: seconds(s.healthzMs), unit: 's', target: '<= 1' },
    { figure: 'start to /readyz ready (models loaded)', value: seconds(s.readyzMs), unit: 's', target: '' },
    { figure: 'start to the end of the media folders\' reconciliation (in the background)', value: seconds(s.checksMs), unit: 's', target: '' },
  ];
}
