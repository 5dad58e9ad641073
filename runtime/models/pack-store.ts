// Installed model packs on disk, and which one is active.
//   <data>/models/packs/<name>@<version>/   manifest.json and the pack's files
//   <data>/models/state.json                { active, history }: replaced atomically
//   <data>/models/.partial/                 downloads in progress (never read)
// Activation is one rename of state.json, so a crash leaves either the old
// pack active or the new one; the previously active packs stay for rollback.
import fs from 'node:fs';
import path from 'node:path';
import type { Manifest } from '../core/model-manifest.js';
import { readManifest } from './manifest.js';

export interface InstalledPack {
  id: string;
  dir: string;
  manifest: Manifest;
}

interface State {
  active: string | null;
  /** previously active packs, most recent first */
  history: string[];
}

export const packId = (m: Pick<Manifest, 'name' | 'version'>) => `${m.name}@${m.version}`;

export class PackStore {
  readonly packsDir: string;
  readonly partialDir: string;
  private readonly stateFile: string;

  constructor(readonly root: string) {
    this.packsDir = path.join(root, 'packs');
    this.partialDir = path.join(root, '.partial');
    this.stateFile = path.join(root, 'state.json');
  }

  prepare(): void {
    fs.mkdirSync(this.packsDir, { recursive: true });
    fs.rmSync(this.partialDir, { recursive: true, force: true });
    fs.mkdirSync(this.partialDir, { recursive: true });
  }

  private readState(): State {
    try {
      return JSON.parse(fs.readFileSync(this.stateFile, 'utf8')) as State;
    } catch {
      return { active: null, history: [] };
    }
  }

  private writeState(state: State): void {
    const tmp = `${this.stateFile}.${process.pid}.tmp`;
    const fd = fs.openSync(tmp, 'w');
    fs.writeSync(fd, JSON.stringify(state, null, 2));
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(tmp, this.stateFile);
  }

  /** Changes whenever another pack becomes active (also by another process: the CLI). */
  stateStamp(): string {
    try {
      const st = fs.statSync(this.stateFile);
      return `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      return 'none';
    }
  }

  installed(): InstalledPack[] {
    if (!fs.existsSync(this.packsDir)) return [];
    return fs.readdirSync(this.packsDir).flatMap((id) => {
      const dir = path.join(this.packsDir, id);
      try {
        return [{ id, dir, manifest: readManifest(path.join(dir, 'manifest.json')) }];
      } catch {
        return [];
      }
    });
  }

  get(id: string): InstalledPack | undefined {
    return this.installed().find((p) => p.id === id);
  }

  activeId(): string | null {
    return this.readState().active;
  }

  active(): InstalledPack | undefined {
    const id = this.activeId();
    return id ? this.get(id) : undefined;
  }

  history(): string[] {
    return this.readState().history;
  }

  activate(id: string): void {
    if (!this.get(id)) throw new Error(`model pack ${id} is not installed (installed: ${this.installed().map((p) => p.id).join(', ') || 'none'})`);
    const state = this.readState();
    if (state.active === id) return;
    const history = [state.active, ...state.history].filter((h): h is string => !!h && h !== id).slice(0, 10);
    this.writeState({ active: id, history });
  }

  /** Makes the previously active pack active again; returns its id. */
  rollback(): string {
    const state = this.readState();
    const previous = state.history.find((id) => this.get(id));
    if (!previous) throw new Error('there is no previous model pack to roll back to');
    this.writeState({ active: previous, history: [state.active, ...state.history].filter((h): h is string => !!h && h !== previous) });
    return previous;
  }

  /** Moves a verified download into place. */
  install(partial: string, id: string): string {
    const dir = path.join(this.packsDir, id);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(partial, dir);
    return dir;
  }

  /** Removes installed packs beyond the newest `keep` that are neither active nor the last rollback target. */
  prune(keep: number): string[] {
    const state = this.readState();
    const protectedIds = new Set([state.active, state.history[0]].filter(Boolean));
    const removable = this.installed()
      .filter((p) => !protectedIds.has(p.id))
      .sort((a, b) => fs.statSync(b.dir).mtimeMs - fs.statSync(a.dir).mtimeMs)
      .slice(Math.max(0, keep - protectedIds.size));
    for (const p of removable) fs.rmSync(p.dir, { recursive: true, force: true });
    return removable.map((p) => p.id);
  }
}
