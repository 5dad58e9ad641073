// A watch folder: NVRs and cameras upload alarm clips into it (FTP or SMB).
// Polled, not watched with inotify, because inotify does not see writes made
// over SMB or NFS mounts. A file is taken once its size and mtime have not
// changed for settle_s; it is copied into the data folder (a snapshot, even if
// a stalled writer resumes), accepted like an upload, then removed. A file
// that is not a video is moved to the rejected folder with a .reason.txt.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { errorMessage, Refusal } from '../core/errors.js';
import type { Feature } from '../core/feature.js';
import type { Logger } from '../core/log.js';
import type { Intake } from '../ingest/intake.js';
import type { MediaFiles } from '../store/media-files.js';
import type { WatchFolder } from './resolve.js';

export interface WatchFolderDeps {
  folder: WatchFolder;
  intake: Intake;
  files: MediaFiles;
  log: Logger;
}

interface Seen {
  size: number;
  mtimeMs: number;
  /** when size and mtime were last seen changing (or a failed attempt, to wait again) */
  changedAt: number;
}

/** Names upload tools use while a transfer is in progress, and hidden files. */
function inProgressName(name: string): boolean {
  return name.startsWith('.') || name.endsWith('~') || /\.(part|partial|tmp|filepart|crdownload)$/i.test(name);
}

const RETRY_AFTER_FAILURE_MS = 30_000;

export class WatchFolderFeature implements Feature {
  readonly name: string;
  private readonly seen = new Map<string, Seen>();
  private timer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> = Promise.resolve();
  private stopped = true;
  private missingLogged = false;

  constructor(private readonly deps: WatchFolderDeps) {
    this.name = `watch-folder ${deps.folder.path}`;
  }

  private get pollMs(): number {
    return Math.max(100, Math.min(1000, (this.deps.folder.settleS * 1000) / 4));
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.deps.log.info('watching', { folder: this.deps.folder.path, tenant: this.deps.folder.tenant, settle_s: this.deps.folder.settleS });
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.scanning;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.scanning = this.scan()
        .catch((err) => this.deps.log.error('watch folder scan failed', { folder: this.deps.folder.path, err }))
        .finally(() => this.schedule(this.pollMs));
    }, ms);
  }

  /** One pass: note changes, take the files that have settled, one at a time. */
  private async scan(): Promise<void> {
    const { folder, log } = this.deps;
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(folder.path, { withFileTypes: true });
      this.missingLogged = false;
    } catch (err) {
      // A share that is not mounted yet: keep polling, say so once.
      if (!this.missingLogged) log.warn('watch folder is not readable; still polling', { folder: folder.path, error: errorMessage(err) });
      this.missingLogged = true;
      return;
    }
    const now = Date.now();
    const present = new Set<string>();
    for (const entry of entries) {
      if (this.stopped) return;
      if (!entry.isFile() || inProgressName(entry.name)) continue;
      present.add(entry.name);
      const file = path.join(folder.path, entry.name);
      const st = await fs.promises.stat(file).catch(() => undefined);
      if (!st) continue;
      const before = this.seen.get(entry.name);
      if (!before || before.size !== st.size || before.mtimeMs !== st.mtimeMs) {
        this.seen.set(entry.name, { size: st.size, mtimeMs: st.mtimeMs, changedAt: now });
        continue;
      }
      if (now - before.changedAt < folder.settleS * 1000) continue;
      await this.take(entry.name, before);
    }
    for (const name of this.seen.keys()) if (!present.has(name)) this.seen.delete(name);
  }

  /** Ingests one settled file; on failure it stays and is tried again later. */
  private async take(name: string, seen: Seen): Promise<void> {
    const { folder, files, intake, log } = this.deps;
    const source = path.join(folder.path, name);
    const workDir = path.join(files.incomingDir, `watch-${crypto.randomUUID()}`);
    try {
      await fs.promises.mkdir(workDir, { recursive: true });
      const copy = path.join(workDir, name);
      await fs.promises.copyFile(source, copy);
      const after = await fs.promises.stat(source);
      if (after.size !== seen.size || after.mtimeMs !== seen.mtimeMs) {
        // written to while we copied: not finished after all
        this.seen.set(name, { size: after.size, mtimeMs: after.mtimeMs, changedAt: Date.now() });
        return;
      }
      const fields: Record<string, string> = { camera_id: folder.cameraId };
      if (folder.flow) fields.flow = folder.flow;
      try {
        const accepted = await intake.accept(folder.tenant, { file: copy, originalName: name, contentType: '', size: after.size, fields });
        log.info('watch folder clip accepted', { folder: folder.path, file: name, id: accepted.id });
      } catch (err) {
        if (!(err instanceof Refusal && err.kind === 'unprocessable')) throw err;
        await this.reject(source, name, err.message);
        this.seen.delete(name);
        return;
      }
      await fs.promises.rm(source, { force: true });
      this.seen.delete(name);
    } catch (err) {
      log.error('watch folder file not taken; will try again', { folder: folder.path, file: name, err });
      this.seen.set(name, { ...seen, changedAt: Date.now() + RETRY_AFTER_FAILURE_MS });
    } finally {
      await fs.promises.rm(workDir, { recursive: true, force: true });
    }
  }

  /** Moves a file that is not a video aside, with a note saying why. */
  private async reject(source: string, name: string, reason: string): Promise<void> {
    const dir = this.deps.folder.rejectedDir;
    await fs.promises.mkdir(dir, { recursive: true });
    let target = path.join(dir, name);
    if (await exists(target)) target = path.join(dir, `${Date.now()}-${name}`);
    await moveFile(source, target);
    await fs.promises.writeFile(`${target}.reason.txt`, `${new Date().toISOString()} ${name} was not ingested: ${reason}\n`);
    this.deps.log.warn('watch folder file rejected', { folder: this.deps.folder.path, file: name, moved_to: target, reason });
  }
}

async function exists(file: string): Promise<boolean> {
  return fs.promises.access(file).then(() => true, () => false);
}

/** rename, or copy and remove across file systems (a rejected_dir on another mount). */
async function moveFile(from: string, to: string): Promise<void> {
  try {
    await fs.promises.rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await fs.promises.copyFile(from, to);
    await fs.promises.rm(from, { force: true });
  }
}
