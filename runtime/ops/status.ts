// The gateway's state in numbers, read from where it lives (the database, the
// data volume, /proc) whenever asked, so it is right after a restart too. The
// metrics gauges are set from it at each scrape; anything else that shows the
// gateway's state (a dashboard) reads the same object.
import type { Queryable } from '../store/db.js';
import { ChildrenSampler, type ChildKind } from './children.js';
import { diskSpace } from '../core/disk-space.js';
import { databaseBytes as databaseFileBytes, mediaBytes as storedMediaBytes } from './store-size.js';

export interface StatusDeps {
  db: Queryable;
  dataDir: string;
  /** the SQLite file (its -wal and -shm companions are counted too) */
  databaseFile: string;
}

export interface GatewayStatus {
  /** jobs in the durable queue by state; queued and running are always present */
  jobs: Record<string, number>;
  /** deliveries waiting in the outbox by target; webhook and mqtt are always present */
  outboxPending: Record<string, number>;
  /** bytes of stored clips and highlights */
  mediaBytes: number;
  /** bytes of the SQLite file with its WAL */
  databaseBytes: number;
  disk: { freeBytes: number; totalBytes: number };
  /** running child processes: interpreter workers, ffmpeg/ffprobe, other */
  children: Record<ChildKind, { count: number; residentBytes: number }>;
  /** CPU seconds of the children by kind since the daemon started (grows only) */
  childrenCpuSeconds: Record<ChildKind, number>;
}

export const JOB_STATES = ['queued', 'running'];
export const DELIVERY_TARGETS = ['webhook', 'mqtt'];

export class StatusReader {
  private readonly children = new ChildrenSampler();

  constructor(private readonly deps: StatusDeps) {}

  async read(): Promise<GatewayStatus> {
    const [jobs, outboxPending, mediaBytes, databaseBytes, disk] = await Promise.all([
      this.countBy('SELECT state AS k, COUNT(*) AS n FROM jobs GROUP BY state', JOB_STATES),
      this.countBy(`SELECT target AS k, COUNT(*) AS n FROM outbox WHERE state = 'pending' GROUP BY target`, DELIVERY_TARGETS),
      storedMediaBytes(this.deps.db),
      databaseFileBytes(this.deps.databaseFile),
      diskSpace(this.deps.dataDir),
    ]);
    const children = this.children.sample();
    return {
      jobs,
      outboxPending,
      mediaBytes,
      databaseBytes,
      disk: { freeBytes: disk.freeBytes, totalBytes: disk.totalBytes },
      children: children.running,
      childrenCpuSeconds: children.cpuSeconds,
    };
  }

  private async countBy(sql: string, always: string[]): Promise<Record<string, number>> {
    const out: Record<string, number> = Object.fromEntries(always.map((k) => [k, 0]));
    for (const row of await this.deps.db.all<{ k: string; n: number }>(sql)) out[row.k] = row.n;
    return out;
  }
}
