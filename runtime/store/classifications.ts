// The classification rows and their job queue: every state change of a
// classification is one statement or one transaction here.
import type { Database, Queryable } from './db.js';
import { isoNow } from './time.js';

export type ProcessingState = 'queued' | 'processing' | 'done' | 'error';

export interface VideoSpecs {
  width: number;
  height: number;
  duration: number;
  fps: number;
  nframes: number;
}

export interface ClassificationRow {
  id: string;
  tenant: string;
  flow: string;
  parent_id: string;
  camera_id: string;
  analyse_id: number | null;
  metadata: string;
  videoname: string;
  filename: string;
  filesize: number;
  original_specs: string;
  processed_specs: string | null;
  status_classify: ProcessingState;
  status_video: ProcessingState;
  error_code: number;
  error_msg: string;
  video_error: string;
  risk: string;
  labels: string;
  scores: string;
  result: string;
  model: string;
  version: string;
  backend: string;
  analysis: string | null;
  duration_ms: number;
  clip_bytes: number;
  highlight_bytes: number;
  clip_deleted: number;
  /** the highlight file vanished (found at start); retention marks it */
  highlight_deleted: number;
  deleting: number;
  created_at: string;
  created_ms: number;
  started_at: string | null;
  finished_at: string | null;
  final: number;
}

export interface NewClassification {
  id: string;
  tenant: string;
  flow: string;
  parentId: string;
  cameraId: string;
  analyseId: number | null;
  metadata: Record<string, unknown>;
  videoname: string;
  filename: string;
  filesize: number;
  originalSpecs: VideoSpecs;
}

export interface ClassificationOutcome {
  errorCode: number;
  errorMsg: string;
  risk: string;
  labels: string[];
  scores: Record<string, number>;
  result: string;
  model: string;
  version: string;
  backend: string;
  /** keyframes and stats, kept for the highlight renderer and diagnostics */
  analysis: unknown;
}

export interface VideoOutcome {
  state: 'done' | 'error';
  error: string;
  processedSpecs: VideoSpecs | null;
  highlightBytes: number;
}

/** A tenant's oldest queued job, a candidate for the next free slot. */
export interface QueuedJob {
  tenant: string;
  id: string;
  attempts: number;
  enqueuedMs: number;
}

const oldestJob = (candidates: QueuedJob[]): QueuedJob => candidates.reduce((a, b) => (b.enqueuedMs < a.enqueuedMs ? b : a));

export interface OutboxPolicy {
  /** also queue each final result for MQTT publication */
  mqtt: boolean;
}

/**
 * Inserts a new classification row: the columns every row takes from what was accepted, and
 * `state`'s (its times, and for one final at once its statuses). Column names are the code's own, never input.
 */
function insertClassification(tx: Queryable, c: NewClassification, state: Record<string, string | number>): Promise<unknown> {
  const columns: Record<string, string | number | null> = {
    id: c.id, tenant: c.tenant, flow: c.flow, parent_id: c.parentId, camera_id: c.cameraId, analyse_id: c.analyseId,
    metadata: JSON.stringify(c.metadata), videoname: c.videoname, filename: c.filename,
    filesize: c.filesize, clip_bytes: c.filesize, original_specs: JSON.stringify(c.originalSpecs),
    ...state,
  };
  const names = Object.keys(columns);
  return tx.run(`INSERT INTO classifications (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`, Object.values(columns));
}

export class ClassificationStore {
  constructor(
    private readonly db: Database,
    private readonly outbox: OutboxPolicy = { mqtt: false },
  ) {}

  /** Inserts an accepted classification and its queued job in one transaction. */
  async accept(c: NewClassification): Promise<string> {
    const now = new Date();
    const createdAt = isoNow(now);
    await this.db.transaction(async (tx) => {
      await insertClassification(tx, c, { created_at: createdAt, created_ms: now.getTime() });
      await tx.run('INSERT INTO jobs (classification_id, enqueued_ms) VALUES (?, ?)', [c.id, now.getTime()]);
    });
    return createdAt;
  }

  get(id: string): Promise<ClassificationRow | undefined> {
    return this.db.get<ClassificationRow>('SELECT * FROM classifications WHERE id = ? AND deleting = 0', [id]);
  }

  /** The row as its tenant sees it: another tenant's id is as good as unknown. */
  async getForTenant(id: string, tenant: string): Promise<ClassificationRow | undefined> {
    const row = await this.get(id);
    return row && row.tenant === tenant ? row : undefined;
  }

  // ---- the job queue -------------------------------------------------------

  /** Jobs left running by a process that died go back to the queue (their attempt stays counted). */
  /** Ids whose result is not final yet (queued or running jobs). */
  async pendingIds(): Promise<string[]> {
    const rows = await this.db.all<{ id: string }>('SELECT classification_id AS id FROM jobs');
    return rows.map((r) => r.id);
  }

  async requeueInterrupted(): Promise<number> {
    const { changes } = await this.db.run(`UPDATE jobs SET state = 'queued' WHERE state = 'running'`);
    return changes;
  }

  /**
   * Takes a queued job, marks it running and counts the attempt. Candidates are
   * each tenant's oldest queued job; `choose` picks one (fairness between
   * tenants), by default the oldest of all.
   */
  claimNext(choose: (candidates: QueuedJob[]) => QueuedJob = oldestJob): Promise<{ id: string; attempts: number; tenant: string } | undefined> {
    return this.db.transaction(async (tx) => {
      // SQLite takes the bare columns from the row holding MIN(): each tenant's oldest queued job
      const candidates = await tx.all<QueuedJob>(
        `SELECT c.tenant AS tenant, j.classification_id AS id, j.attempts AS attempts, MIN(j.enqueued_ms) AS enqueuedMs
         FROM jobs j JOIN classifications c ON c.id = j.classification_id
         WHERE j.state = 'queued' AND c.deleting = 0 GROUP BY c.tenant`,
      );
      if (candidates.length === 0) return undefined;
      const job = choose(candidates);
      await tx.run(`UPDATE jobs SET state = 'running', attempts = attempts + 1 WHERE classification_id = ?`, [job.id]);
      return { id: job.id, attempts: job.attempts + 1, tenant: job.tenant };
    });
  }

  /** Puts a running job back (shutdown, a full volume), without counting the attempt against it unless told to. */
  async requeue(id: string, countAttempt = false): Promise<void> {
    await this.db.run(`UPDATE jobs SET state = 'queued', attempts = MAX(attempts - ?, 0) WHERE classification_id = ?`, [countAttempt ? 0 : 1, id]);
  }

  async jobCounts(): Promise<{ queued: number; running: number }> {
    const rows = await this.db.all<{ state: string; n: number }>('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state');
    const count = (s: string) => rows.find((r) => r.state === s)?.n ?? 0;
    return { queued: count('queued'), running: count('running') };
  }

  // ---- processing states ---------------------------------------------------

  async markStarted(id: string): Promise<void> {
    await this.db.run(
      `UPDATE classifications SET status_classify = 'processing', started_at = COALESCE(started_at, ?) WHERE id = ?`,
      [isoNow(), id],
    );
  }

  /** Stores the classification outcome; the video is rendered next (or skipped when the clip cannot be decoded). */
  async saveOutcome(id: string, o: ClassificationOutcome, durationMs: number, videoState: ProcessingState): Promise<void> {
    await this.db.run(
      `UPDATE classifications SET status_classify = ?, status_video = ?, error_code = ?, error_msg = ?, risk = ?, labels = ?,
         scores = ?, result = ?, model = ?, version = ?, backend = ?, analysis = ?, duration_ms = ? WHERE id = ?`,
      [o.errorCode === 0 ? 'done' : 'error', videoState, o.errorCode, o.errorMsg, o.risk, JSON.stringify(o.labels),
        JSON.stringify(o.scores), o.result, o.model, o.version, o.backend, JSON.stringify(o.analysis ?? null), durationMs, id],
    );
  }

  async markVideoProcessing(id: string): Promise<void> {
    await this.db.run(`UPDATE classifications SET status_video = 'processing' WHERE id = ?`, [id]);
  }

  /**
   * Makes the result final: records the video outcome, removes the job and
   * writes the outbox rows for every destination, all in one transaction.
   * Returns false when the classification was deleted meanwhile.
   */
  finalize(id: string, video: VideoOutcome, durationMs: number): Promise<{ tenant: string; flow: string; errorCode: number } | undefined> {
    return this.db.transaction(async (tx) => {
      const row = await tx.get<ClassificationRow>('SELECT * FROM classifications WHERE id = ? AND deleting = 0', [id]);
      if (!row) return undefined;
      await tx.run(
        `UPDATE classifications SET status_video = ?, video_error = ?, processed_specs = ?, highlight_bytes = ?,
           duration_ms = ?, finished_at = ?, final = 1 WHERE id = ?`,
        [video.state, video.error, video.processedSpecs ? JSON.stringify(video.processedSpecs) : null, video.highlightBytes,
          durationMs, isoNow(), id],
      );
      await tx.run('DELETE FROM jobs WHERE classification_id = ?', [id]);
      await this.queueDeliveries(tx, row);
      return { tenant: row.tenant, flow: row.flow, errorCode: row.error_code };
    });
  }

  private async queueDeliveries(tx: Queryable, row: ClassificationRow): Promise<void> {
    const now = Date.now();
    await tx.run(
      `INSERT INTO outbox (classification_id, tenant, target, integration_id, url, next_attempt_ms, created_ms)
       SELECT ?, tenant, 'webhook', id, url, ?, ? FROM integrations WHERE tenant = ? AND flow = ? AND type = 'webhook'`,
      [row.id, now, now, row.tenant, row.flow],
    );
    if (this.outbox.mqtt) {
      await tx.run(
        `INSERT INTO outbox (classification_id, tenant, target, next_attempt_ms, created_ms) VALUES (?, ?, 'mqtt', ?, ?)`,
        [row.id, row.tenant, now, now],
      );
    }
  }

  // ---- deletion --------------------------------------------------------------

  /** First step of a deletion: hides the row at once, so no job, read or delivery touches it again. */
  async markDeleting(id: string): Promise<void> {
    await this.db.run('UPDATE classifications SET deleting = 1 WHERE id = ?', [id]);
  }

  /** Last step of a deletion, once the files are gone: the row, its job and its outbox rows. */
  async removeRows(id: string): Promise<void> {
    await this.removeRowsOf([id]);
  }

  /** removeRows for many at once: one transaction (retention prunes in batches). */
  async removeRowsOf(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.transaction(async (tx) => {
      for (let i = 0; i < ids.length; i += 500) {
        const chunk = ids.slice(i, i + 500);
        const list = chunk.map(() => '?').join(',');
        await tx.run(`DELETE FROM outbox WHERE classification_id IN (${list})`, chunk);
        await tx.run(`DELETE FROM jobs WHERE classification_id IN (${list})`, chunk);
        await tx.run(`DELETE FROM classifications WHERE id IN (${list})`, chunk);
      }
    });
  }

  /** Deletions a crash interrupted, to finish at start. */
  async listDeleting(): Promise<string[]> {
    const rows = await this.db.all<{ id: string }>('SELECT id FROM classifications WHERE deleting = 1');
    return rows.map((r) => r.id);
  }

  // ---- failures before there is a clip ---------------------------------------

  /**
   * Stores a classification that failed before it had a clip (a camera that
   * could not be recorded from): final at once, no job, its deliveries queued,
   * all in one transaction. Returns created_at.
   */
  async recordFailure(c: NewClassification, errorCode: number, errorMsg: string): Promise<string> {
    const now = new Date();
    const at = isoNow(now);
    await this.db.transaction(async (tx) => {
      await insertClassification(tx, c, {
        status_classify: 'error', status_video: 'error', error_code: errorCode, error_msg: errorMsg, video_error: 'no clip was recorded', result: 'error',
        created_at: at, created_ms: now.getTime(), started_at: at, finished_at: at, final: 1,
      });
      const row = await tx.get<ClassificationRow>('SELECT * FROM classifications WHERE id = ?', [c.id]);
      await this.queueDeliveries(tx, row!);
    });
    return at;
  }
}

/** Which of these ids have a row (deleting or not), with the stored clip's file name. */
export async function existingClips(db: Database, ids: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await db.all<{ id: string; filename: string }>(`SELECT id, filename FROM classifications WHERE id IN (${chunk.map(() => '?').join(',')})`, chunk);
    for (const r of rows) found.set(r.id, r.filename);
  }
  return found;
}
