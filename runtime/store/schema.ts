// Database migrations, applied in order and recorded in PRAGMA user_version.
// Never edit a released migration: append a new one.
export const MIGRATIONS: string[][] = [
  [
    // One row per classification: what was submitted, its state, and its result.
    `CREATE TABLE classifications (
      id              TEXT PRIMARY KEY,
      tenant          TEXT NOT NULL,
      flow            TEXT NOT NULL,
      parent_id       TEXT NOT NULL DEFAULT '',
      camera_id       TEXT NOT NULL DEFAULT '',
      analyse_id      INTEGER,
      metadata        TEXT NOT NULL DEFAULT '{}',
      videoname       TEXT NOT NULL,
      filename        TEXT NOT NULL,
      filesize        INTEGER NOT NULL,
      original_specs  TEXT NOT NULL,
      processed_specs TEXT,
      status_classify TEXT NOT NULL DEFAULT 'queued',
      status_video    TEXT NOT NULL DEFAULT 'queued',
      error_code      INTEGER NOT NULL DEFAULT 0,
      error_msg       TEXT NOT NULL DEFAULT '',
      video_error     TEXT NOT NULL DEFAULT '',
      risk            TEXT NOT NULL DEFAULT '',
      labels          TEXT NOT NULL DEFAULT '[]',
      scores          TEXT NOT NULL DEFAULT '{}',
      result          TEXT NOT NULL DEFAULT '',
      model           TEXT NOT NULL DEFAULT '',
      version         TEXT NOT NULL DEFAULT '',
      backend         TEXT NOT NULL DEFAULT '',
      analysis        TEXT,
      duration_ms     INTEGER NOT NULL DEFAULT 0,
      clip_bytes      INTEGER NOT NULL DEFAULT 0,
      highlight_bytes INTEGER NOT NULL DEFAULT 0,
      clip_deleted    INTEGER NOT NULL DEFAULT 0,
      deleting        INTEGER NOT NULL DEFAULT 0,
      created_at      TEXT NOT NULL,
      created_ms      INTEGER NOT NULL,
      started_at      TEXT,
      finished_at     TEXT,
      final           INTEGER NOT NULL DEFAULT 0
    )`,
    `CREATE INDEX classifications_tenant ON classifications (tenant, created_ms)`,
    `CREATE INDEX classifications_age ON classifications (created_ms)`,
    // The durable job queue: a row exists from acceptance until the result is final.
    `CREATE TABLE jobs (
      classification_id TEXT PRIMARY KEY REFERENCES classifications (id) ON DELETE CASCADE,
      state             TEXT NOT NULL DEFAULT 'queued',
      attempts          INTEGER NOT NULL DEFAULT 0,
      enqueued_ms       INTEGER NOT NULL
    )`,
    `CREATE INDEX jobs_state ON jobs (state, enqueued_ms)`,
    // Webhook integrations (spec 6.1): from config (source 'config') and the admin API (source 'api').
    `CREATE TABLE integrations (
      id         TEXT PRIMARY KEY,
      tenant     TEXT NOT NULL,
      flow       TEXT NOT NULL,
      type       TEXT NOT NULL DEFAULT 'webhook',
      url        TEXT NOT NULL,
      source     TEXT NOT NULL DEFAULT 'api',
      created_at TEXT NOT NULL
    )`,
    `CREATE INDEX integrations_flow ON integrations (tenant, flow)`,
    // Store-and-forward outbox: one row per result per destination, written in the
    // transaction that makes the result final.
    `CREATE TABLE outbox (
      id                INTEGER PRIMARY KEY AUTOINCREMENT,
      classification_id TEXT NOT NULL REFERENCES classifications (id) ON DELETE CASCADE,
      tenant            TEXT NOT NULL,
      target            TEXT NOT NULL,
      integration_id    TEXT,
      url               TEXT,
      state             TEXT NOT NULL DEFAULT 'pending',
      attempts          INTEGER NOT NULL DEFAULT 0,
      next_attempt_ms   INTEGER NOT NULL,
      status_code       INTEGER,
      last_error        TEXT NOT NULL DEFAULT '',
      created_ms        INTEGER NOT NULL,
      finished_ms       INTEGER
    )`,
    `CREATE INDEX outbox_pending ON outbox (state, next_attempt_ms)`,
    `CREATE INDEX outbox_classification ON outbox (classification_id)`,
  ],
  [
    // Retention: running totals kept by triggers, so the bounds are checked on
    // every upload without scanning the table.
    `CREATE TABLE media_totals (
      id              INTEGER PRIMARY KEY CHECK (id = 1),
      classifications INTEGER NOT NULL,
      media_bytes     INTEGER NOT NULL
    )`,
    `INSERT INTO media_totals (id, classifications, media_bytes)
       SELECT 1, COUNT(*), COALESCE(SUM(clip_bytes + highlight_bytes), 0) FROM classifications`,
    `CREATE TRIGGER media_totals_insert AFTER INSERT ON classifications BEGIN
       UPDATE media_totals SET classifications = classifications + 1,
         media_bytes = media_bytes + NEW.clip_bytes + NEW.highlight_bytes WHERE id = 1;
     END`,
    `CREATE TRIGGER media_totals_delete AFTER DELETE ON classifications BEGIN
       UPDATE media_totals SET classifications = classifications - 1,
         media_bytes = media_bytes - OLD.clip_bytes - OLD.highlight_bytes WHERE id = 1;
     END`,
    `CREATE TRIGGER media_totals_update AFTER UPDATE OF clip_bytes, highlight_bytes ON classifications BEGIN
       UPDATE media_totals SET media_bytes = media_bytes - OLD.clip_bytes - OLD.highlight_bytes
         + NEW.clip_bytes + NEW.highlight_bytes WHERE id = 1;
     END`,
    // a highlight whose file vanished (found at start); clip_deleted is its clip twin
    `ALTER TABLE classifications ADD COLUMN highlight_deleted INTEGER NOT NULL DEFAULT 0`,
  ],
];
