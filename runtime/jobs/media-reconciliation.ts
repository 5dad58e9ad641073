// The start-up reconciliation of the media folders with the store, once the
// interrupted deletions are finished (Deleter.finishInterrupted): removes the
// folders that no row owns, and in the others every file that is neither the
// clip, the highlight nor a snapshot (what a render killed mid-way leaves:
// highlight.mp4.part, highlight.mp4.filters).
// It reads every folder, so with a large store it takes seconds: it starts
// once the API listens and runs in the background. Uploads arrive meanwhile,
// so it never touches what they make: a folder without a row is an orphan only
// if it is older than this start (an upload makes its folder just before its
// row), and the files of a result whose job is queued or running are swept
// only while no job runs. Jobs wait for that first part only.
import fs from 'node:fs';
import type { Feature } from '../core/feature.js';
import type { Logger } from '../core/log.js';
import type { ClassificationStore } from '../store/classifications.js';
import type { MediaFiles } from '../store/media-files.js';

export interface ReconciliationDeps {
  files: MediaFiles;
  store: ClassificationStore;
  /** the clip file name of each id that has a row */
  knownClips(ids: string[]): Promise<Map<string, string>>;
  log: Logger;
}

/** Folders read at once: the file system answers several reads together. */
const BATCH = 32;

export class MediaReconciliation implements Feature {
  readonly name = 'reconciliation';
  private running: Promise<void> = Promise.resolve();
  private pendingSwept: { promise: Promise<void>; resolve(): void } | undefined;
  private readonly abort = new AbortController();
  private folders: number | undefined;
  private swept = 0;
  private jobsReleased = false;
  private done = false;

  constructor(private readonly deps: ReconciliationDeps) {}

  async start(): Promise<void> {
    const startedMs = Date.now();
    this.running = this.reconcile(startedMs).then(
      () => undefined,
      (err: unknown) => this.deps.log.error('could not reconcile the media folders with the store', { err }),
    ).finally(() => {
      this.release();
      this.done = true;
    });
  }

  /** Resolves once jobs may run: no folder they write into is still to be swept (or the sweep failed). */
  jobsMayRun(): Promise<void> {
    return this.gate().promise;
  }

  /** For /readyz: not ready while jobs wait; then ready, saying what still runs in the background. */
  status(): { ok: boolean; detail: string } {
    if (this.done) return { ok: true, detail: `${this.folders ?? 0} media folders reconciled at start` };
    const of = this.folders === undefined ? 'listing the media folders' : `${this.swept} of ${this.folders} media folders`;
    if (this.jobsReleased) return { ok: true, detail: `reconciling in the background: ${of}` };
    return { ok: false, detail: `starting: reconciling the folders of unfinished results, jobs wait (${of})` };
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running; // the store is closed after this: nothing may still be writing to it
  }

  private gate(): { promise: Promise<void>; resolve(): void } {
    if (!this.pendingSwept) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.pendingSwept = { promise, resolve };
    }
    return this.pendingSwept;
  }

  private release(): void {
    this.jobsReleased = true;
    this.gate().resolve();
  }

  private async reconcile(startedMs: number): Promise<void> {
    const { files, store, log } = this.deps;
    const started = performance.now();
    // jobs wait, so the folders of the unfinished results can be swept (a few)
    const pendingLeftovers = await this.sweep(await this.deps.knownClips(await store.pendingIds()));
    if (pendingLeftovers) log.warn('start-up reconciliation', { leftover_files_removed: pendingLeftovers });
    this.release();

    const folders = await files.listIds();
    this.folders = folders.length;
    const owned = await this.deps.knownClips(folders);
    // queried after `owned`: a result accepted since is either here or has no row in `owned`
    for (const id of await store.pendingIds()) owned.delete(id);
    let orphans = 0;
    for (const id of folders) {
      if (owned.has(id) || this.abort.signal.aborted) continue;
      const stat = await fs.promises.stat(files.folder(id)).catch(() => undefined);
      if (!stat || stat.mtimeMs >= startedMs) continue; // gone, or an upload's since the start
      await files.remove(id);
      orphans++;
    }
    const leftovers = await this.sweep(owned);
    if (orphans || leftovers) {
      log.warn('start-up reconciliation', { orphan_folders_removed: orphans, leftover_files_removed: leftovers });
    }
    log.info('media folders reconciled', { folders: folders.length, ms: Math.round(performance.now() - started), complete: !this.abort.signal.aborted });
  }
  /** Removes the stray files of these folders (id to clip file name); returns how many. */
  private async sweep(owned: Map<string, string>): Promise<number> {
    const entries = [...owned];
    let leftovers = 0;
    for (let i = 0; i < entries.length && !this.abort.signal.aborted; i += BATCH) {
      const counts = await Promise.all(entries.slice(i, i + BATCH).map(([id, filename]) => this.deps.files.removeStrays(id, filename)));
      leftovers += counts.reduce((a, b) => a + b, 0);
      this.swept += counts.length;
    }
    return leftovers;
  }
}
