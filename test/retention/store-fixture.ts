// A real store in a temp folder (SQLite with the daemon's migrations, the media
// folder, the real deletion path and pruner) and fast ways to fill it with
// final classifications of known age and size.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { EventBus } from '../../runtime/core/bus.js';
import { createLogger, type Logger } from '../../runtime/core/log.js';
import { Deleter } from '../../runtime/jobs/deletion.js';
import { retentionSchema, retentionLimits, type RetentionConfig } from '../../runtime/retention/config.js';
import { diskSpace } from '../../runtime/core/disk-space.js';
import { Pruner } from '../../runtime/retention/pruner.js';
import { RetentionQueries } from '../../runtime/retention/retention-queries.js';
import { ClassificationStore } from '../../runtime/store/classifications.js';
import { Database } from '../../runtime/store/db.js';
import { MediaFiles } from '../../runtime/store/media-files.js';
import { tempDir } from '../support/clips.js';

export interface LogLine {
  level: string;
  msg: string;
  [key: string]: unknown;
}

const SPECS = JSON.stringify({ width: 320, height: 240, duration: 3, fps: 10, nframes: 30 });

export class StoreFixture {
  readonly logs: LogLine[] = [];
  readonly log: Logger;
  readonly bus: EventBus;
  readonly files: MediaFiles;
  readonly store: ClassificationStore;
  readonly deleter: Deleter;
  readonly queries: RetentionQueries;
  private seq = 0;

  private constructor(readonly dir: string, readonly db: Database) {
    this.log = createLogger('debug', (line) => this.logs.push(JSON.parse(line) as LogLine));
    this.bus = new EventBus(this.log);
    this.files = new MediaFiles(dir);
    this.store = new ClassificationStore(db);
    // final classifications have no running job to cancel
    this.deleter = new Deleter(this.store, this.files, { cancel: async () => {} }, this.bus, this.log.child('delete'));
    this.queries = new RetentionQueries(db);
  }

  static async create(dir = tempDir('vigil-retention-')): Promise<StoreFixture> {
    const db = await Database.open(path.join(dir, 'vigil.db'));
    const fixture = new StoreFixture(dir, db);
    await fixture.files.prepare();
    return fixture;
  }

  get dbFile(): string {
    return path.join(this.dir, 'vigil.db');
  }

  pruner(config: Partial<RetentionConfig>, now?: () => number): Pruner {
    return new Pruner({
      queries: this.queries,
      deleter: this.deleter,
      files: this.files,
      disk: () => diskSpace(this.dir),
      limits: retentionLimits(retentionSchema.parse({ min_free_bytes: 0, max_media_bytes: 0, max_count: 0, max_age_days: 0, ...config })),
      log: this.log.child('retention'),
      bus: this.bus,
      now,
    });
  }

  /**
   * Adds a final classification with a clip (and optionally a highlight) of the
   * given sizes on disk; created `ageMs` ago. Returns its id.
   */
  async add(opts: { ageMs: number; clipBytes?: number; highlightBytes?: number; tenant?: string; metadataBytes?: number }): Promise<string> {
    const id = crypto.randomUUID();
    const clipBytes = opts.clipBytes ?? 1000;
    const highlightBytes = opts.highlightBytes ?? 0;
    const filename = `${id}.mp4`;
    fs.mkdirSync(this.files.folder(id), { recursive: true });
    fs.writeFileSync(this.files.clipPath(id, filename), Buffer.alloc(clipBytes, 1));
    if (highlightBytes) fs.writeFileSync(this.files.highlightPath(id), Buffer.alloc(highlightBytes, 2));
    const created = Date.now() - opts.ageMs;
    await this.db.run(
      `INSERT INTO classifications (id, tenant, flow, videoname, filename, filesize, original_specs, status_classify, status_video,
         clip_bytes, highlight_bytes, metadata, created_at, created_ms, final)
       VALUES (?, ?, 'default', ?, ?, ?, ?, 'error', ?, ?, ?, ?, ?, ?, 1)`,
      [id, opts.tenant ?? 'tenant-a', filename, filename, clipBytes, SPECS, highlightBytes ? 'done' : 'error', clipBytes, highlightBytes,
        JSON.stringify({ pad: 'x'.repeat(opts.metadataBytes ?? 0), seq: this.seq++ }), new Date(created).toISOString(), created],
    );
    return id;
  }

  /** An outbox row for the classification in the given state. */
  async addDelivery(id: string, state: 'pending' | 'delivered' | 'dropped'): Promise<void> {
    await this.db.run(
      `INSERT INTO outbox (classification_id, tenant, target, url, state, next_attempt_ms, created_ms)
       VALUES (?, 'tenant-a', 'webhook', 'http://127.0.0.1:9/hook', ?, ?, ?)`,
      [id, state, Date.now(), Date.now()],
    );
  }

  async ids(): Promise<string[]> {
    const rows = await this.db.all<{ id: string }>('SELECT id FROM classifications ORDER BY created_ms, rowid');
    return rows.map((r) => r.id);
  }

  /** Rows and media folders must name the same ids; totals must equal what the rows and the files hold. */
  async consistency(): Promise<{ rowIds: string[]; folderIds: string[]; totals: { count: number; mediaBytes: number }; rowBytes: number; fileBytes: number }> {
    const rowIds = (await this.ids()).sort();
    const folderIds = (await this.files.listIds()).sort();
    const totals = await this.queries.totals();
    const sum = await this.db.get<{ n: number }>('SELECT COALESCE(SUM(clip_bytes + highlight_bytes), 0) AS n FROM classifications');
    let fileBytes = 0;
    for (const id of folderIds) {
      for (const name of fs.readdirSync(this.files.folder(id))) fileBytes += fs.statSync(path.join(this.files.folder(id), name)).size;
    }
    return { rowIds, folderIds, totals, rowBytes: sum?.n ?? 0, fileBytes };
  }

  async close(): Promise<void> {
    await this.db.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

export const DAY_MS = 24 * 60 * 60 * 1000;
