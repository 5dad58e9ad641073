// Retention figures: the time the real pruner takes to prune 100,000 results
// (through the real deletion path, in a temp SQLite store built with SQL), and
// how long a result read (the store's GET) takes while that prune runs.
import fs from 'node:fs';
import path from 'node:path';
import { EventBus } from '../../runtime/core/bus.js';
import { silentLogger } from '../../runtime/core/log.js';
import { Deleter } from '../../runtime/jobs/deletion.js';
import { retentionLimits, retentionSchema } from '../../runtime/retention/config.js';
import { diskSpace } from '../../runtime/core/disk-space.js';
import { Pruner } from '../../runtime/retention/pruner.js';
import { RetentionQueries } from '../../runtime/retention/retention-queries.js';
import { ClassificationStore } from '../../runtime/store/classifications.js';
import { Database } from '../../runtime/store/db.js';
import { MediaFiles } from '../../runtime/store/media-files.js';
import { tempDir } from '../support/clips.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const SPECS = JSON.stringify({ width: 640, height: 360, duration: 10, fps: 10, nframes: 100 });

/** n final classifications created `ageMs` ago, with uuid-shaped ids, in one statement. */
export async function insertRows(db: Database, n: number, ageMs: number, prefix: string): Promise<void> {
  const created = Date.now() - ageMs;
  await db.run(
    `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
     INSERT INTO classifications (id, tenant, flow, videoname, filename, filesize, original_specs, status_classify, status_video,
       risk, labels, scores, result, clip_bytes, created_at, created_ms, final)
     SELECT printf('${prefix}%04x-4000-8000-%012x', i / 65536, i) AS id, 'tenant-a', 'default', 'clip.mp4', 'clip.mp4', 2000000, ?,
       'done', 'done', 'safe', '["person"]', '{"person":0.91}', 'classified', 2000000, ?, ? + i, 1 FROM seq`,
    [n, SPECS, new Date(created).toISOString(), created],
  );
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;
}

export async function benchRetention(count = 100_000): Promise<Array<Record<string, string | number>>> {
  const dir = tempDir('vigil-retention-bench-');
  const db = await Database.open(path.join(dir, 'vigil.db'));
  try {
    const files = new MediaFiles(dir);
    await files.prepare();
    const store = new ClassificationStore(db);
    await insertRows(db, count, 60 * DAY_MS, 'aaaaaaaa-');
    await insertRows(db, 10, 0, 'bbbbbbbb-');
    const fresh = 'bbbbbbbb-0000-4000-8000-000000000005';
    if (!(await store.get(fresh))) throw new Error('bench setup: the fresh row is missing');

    const deleter = new Deleter(store, files, { cancel: async () => {} }, new EventBus(silentLogger), silentLogger);
    const pruner = new Pruner({
      queries: new RetentionQueries(db),
      deleter,
      files,
      disk: () => diskSpace(dir),
      limits: retentionLimits(retentionSchema.parse({ max_age_days: 30, max_count: 0, max_media_bytes: 0, min_free_bytes: 0 })),
      log: silentLogger,
    });

    const started = performance.now();
    let done = false;
    const pruning = pruner.prune().finally(() => (done = true));
    const latencies: number[] = [];
    while (!done) {
      const t = performance.now();
      const row = await store.get(fresh);
      latencies.push(performance.now() - t);
      if (!row) throw new Error('bench: the fresh result vanished during the prune');
      await new Promise((r) => setTimeout(r, 5));
    }
    const report = await pruning;
    const seconds = (performance.now() - started) / 1000;
    if (report.pruned !== count) throw new Error(`bench: pruned ${report.pruned}, expected ${count}`);
    latencies.sort((a, b) => a - b);
    return [
      { measure: `prune ${count} results (age bound, deletion path, incremental vacuum)`, value: Number(seconds.toFixed(2)), unit: 's' },
      { measure: 'prune rate', value: Math.round(count / seconds), unit: 'results/s' },
      { measure: 'GET result during the prune, p50', value: Number(percentile(latencies, 50).toFixed(2)), unit: 'ms' },
      { measure: 'GET result during the prune, p95', value: Number(percentile(latencies, 95).toFixed(2)), unit: 'ms' },
      { measure: 'GET result during the prune, max', value: Number(latencies[latencies.length - 1].toFixed(2)), unit: 'ms' },
    ];
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
