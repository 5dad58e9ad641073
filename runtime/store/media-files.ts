// The data folder's media layout. Each classification owns one folder,
// media/<id>/, holding its clip, its highlight and its snapshots, so deleting a
// classification's files is one recursive removal and an orphan is a folder.
import fs from 'node:fs';
import path from 'node:path';
import { CLASSIFICATION_ID } from '../core/ids.js';

export const SNAPSHOT_FILE = 'snapshot.jpg';
export const CLEAN_SNAPSHOT_FILE = 'snapshot-clean.jpg';

export class MediaFiles {
  constructor(readonly dataDir: string) {}

  get mediaDir(): string {
    return path.join(this.dataDir, 'media');
  }
  /** uploads being received; emptied at start (nothing there was ever accepted) */
  get incomingDir(): string {
    return path.join(this.dataDir, 'incoming');
  }
  folder(id: string): string {
    if (!CLASSIFICATION_ID.test(id)) throw new Error(`not a classification id: ${id}`);
    return path.join(this.mediaDir, id);
  }
  clipPath(id: string, filename: string): string {
    return path.join(this.folder(id), filename);
  }
  highlightPath(id: string): string {
    return path.join(this.folder(id), 'highlight.mp4');
  }
  /** the best frame as JPEG, with its boxes or clean; rendered with the highlight */
  snapshotPath(id: string, clean = false): string {
    return path.join(this.folder(id), clean ? CLEAN_SNAPSHOT_FILE : SNAPSHOT_FILE);
  }

  async prepare(): Promise<void> {
    await fs.promises.mkdir(this.mediaDir, { recursive: true });
    await fs.promises.rm(this.incomingDir, { recursive: true, force: true });
    await fs.promises.mkdir(this.incomingDir, { recursive: true });
  }

  /** Moves an accepted upload into the classification's folder. */
  async adopt(id: string, tempFile: string, filename: string): Promise<string> {
    await fs.promises.mkdir(this.folder(id), { recursive: true });
    const target = this.clipPath(id, filename);
    await fs.promises.rename(tempFile, target);
    return target;
  }

  async remove(id: string): Promise<void> {
    await fs.promises.rm(this.folder(id), { recursive: true, force: true });
  }

  /** Removes every file of a classification's folder but its clip, its highlight and its snapshots; returns how many. */
  async removeStrays(id: string, clipFilename: string): Promise<number> {
    const keep = new Set([clipFilename, path.basename(this.highlightPath(id)), SNAPSHOT_FILE, CLEAN_SNAPSHOT_FILE]);
    const names = await fs.promises.readdir(this.folder(id)).catch(() => [] as string[]);
    const strays = names.filter((n) => !keep.has(n));
    for (const name of strays) await fs.promises.rm(path.join(this.folder(id), name), { recursive: true, force: true });
    return strays.length;
  }

  /** Ids that have a media folder. */
  async listIds(): Promise<string[]> {
    const names = await fs.promises.readdir(this.mediaDir).catch(() => [] as string[]);
    return names.filter((n) => CLASSIFICATION_ID.test(n));
  }
}
