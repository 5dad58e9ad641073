// A small promise wrapper over one sqlite3 connection in WAL mode. Statements
// and transactions go through one queue, so a transaction's statements never
// interleave with anyone else's on the shared connection.
import sqlite3 from 'sqlite3';
import { MIGRATIONS } from './schema.js';

export type Params = Record<string, unknown> | unknown[];

export interface Queryable {
  run(sql: string, params?: Params): Promise<{ changes: number; lastID: number }>;
  get<T>(sql: string, params?: Params): Promise<T | undefined>;
  all<T>(sql: string, params?: Params): Promise<T[]>;
}

export class Database implements Queryable {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly db: sqlite3.Database) {}

  static async open(file: string): Promise<Database> {
    const raw = await new Promise<sqlite3.Database>((resolve, reject) => {
      const db = new sqlite3.Database(file, (err) => (err ? reject(err) : resolve(db)));
    });
    const db = new Database(raw);
    raw.configure('busyTimeout', 5000);
    // WAL: readers never block the writer; synchronous=NORMAL is durable across
    // process crashes (kill -9), which is what the job queue relies on.
    // auto_vacuum only takes on a new file (before the first table): it lets
    // retention give freed pages back to the disk with PRAGMA incremental_vacuum.
    await db.exec('PRAGMA auto_vacuum = INCREMENTAL; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;');
    await db.migrate();
    return db;
  }

  run(sql: string, params: Params = []) {
    return this.enqueue(() => this.rawRun(sql, params));
  }
  get<T>(sql: string, params: Params = []) {
    return this.enqueue(() => this.rawGet<T>(sql, params));
  }
  all<T>(sql: string, params: Params = []) {
    return this.enqueue(() => this.rawAll<T>(sql, params));
  }
  exec(sql: string): Promise<void> {
    return this.enqueue(() => new Promise<void>((res, rej) => this.db.exec(sql, (err) => (err ? rej(err) : res()))));
  }

  /** Runs fn inside BEGIN IMMEDIATE … COMMIT; rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.enqueue(async () => {
      const tx: Queryable = {
        run: (sql, params = []) => this.rawRun(sql, params),
        get: (sql, params = []) => this.rawGet(sql, params),
        all: (sql, params = []) => this.rawAll(sql, params),
      };
      await this.rawRun('BEGIN IMMEDIATE');
      try {
        const out = await fn(tx);
        await this.rawRun('COMMIT');
        return out;
      } catch (err) {
        await this.rawRun('ROLLBACK').catch(() => {});
        throw err;
      }
    });
  }

  close(): Promise<void> {
    return this.enqueue(() => new Promise<void>((res, rej) => this.db.close((err) => (err ? rej(err) : res()))));
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const next = this.queue.then(task, task);
    this.queue = next.catch(() => {});
    return next;
  }

  private rawRun(sql: string, params: Params = []): Promise<{ changes: number; lastID: number }> {
    return new Promise((resolve, reject) =>
      this.db.run(sql, params, function (err) {
        if (err) reject(err);
        else resolve({ changes: this.changes, lastID: this.lastID });
      }),
    );
  }
  private rawGet<T>(sql: string, params: Params = []): Promise<T | undefined> {
    return new Promise((resolve, reject) => this.db.get(sql, params, (err, row) => (err ? reject(err) : resolve(row as T))));
  }
  private rawAll<T>(sql: string, params: Params = []): Promise<T[]> {
    return new Promise((resolve, reject) => this.db.all(sql, params, (err, rows) => (err ? reject(err) : resolve(rows as T[]))));
  }

  private async migrate(): Promise<void> {
    const row = await this.get<{ user_version: number }>('PRAGMA user_version');
    for (let v = row?.user_version ?? 0; v < MIGRATIONS.length; v++) {
      await this.transaction(async (tx) => {
        for (const statement of MIGRATIONS[v]) await tx.run(statement);
        await tx.run(`PRAGMA user_version = ${v + 1}`);
      });
    }
  }
}
