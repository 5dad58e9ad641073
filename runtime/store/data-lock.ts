// One daemon per data folder. Two would empty each other's incoming uploads and
// reconcile each other's media away, so `vigil serve` takes an exclusive lock on
// <data_dir>/vigil.lock before it touches anything there. The lock is SQLite's
// own (a POSIX advisory lock, held by an exclusive-mode connection): the kernel
// releases it when the process ends, kill -9 included, so there is never a
// stale lock to clean up.
import path from 'node:path';
import sqlite3 from 'sqlite3';

export const LOCK_FILE = 'vigil.lock';

export class DataDirLocked extends Error {
  constructor(readonly dataDir: string) {
    super(`the data folder ${dataDir} is in use by another vigil daemon (${LOCK_FILE} is locked); stop it first, or give this one its own storage.data_dir`);
    this.name = 'DataDirLocked';
  }
}

export class DataLock {
  private constructor(private readonly db: sqlite3.Database) {}

  /** Takes the lock or throws DataDirLocked at once (no waiting). */
  static async acquire(dataDir: string): Promise<DataLock> {
    const db = await new Promise<sqlite3.Database>((resolve, reject) => {
      const handle = new sqlite3.Database(path.join(dataDir, LOCK_FILE), (err) => (err ? reject(err) : resolve(handle)));
    });
    const exec = (sql: string) => new Promise<void>((resolve, reject) => db.exec(sql, (err) => (err ? reject(err) : resolve())));
    try {
      // In exclusive locking mode the lock of the first write is kept until the connection closes.
      await exec(`PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;
        CREATE TABLE IF NOT EXISTS holder (pid INTEGER); DELETE FROM holder; INSERT INTO holder VALUES (${process.pid}); COMMIT;`);
    } catch (err) {
      await new Promise<void>((resolve) => db.close(() => resolve()));
      if ((err as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirLocked(dataDir);
      throw err;
    }
    return new DataLock(db);
  }

  release(): Promise<void> {
    return new Promise((resolve) => this.db.close(() => resolve()));
  }
}
