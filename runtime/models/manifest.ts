// Reading and checking a model pack's manifest (its schema is core/model-manifest.ts),
// the packs shipped with the runtime, and the files a pack needs.
import fs from 'node:fs';
import path from 'node:path';
import { manifestSchema, type Manifest, type PackFile } from '../core/model-manifest.js';

/** Checks a manifest; the error lists every bad key. */
export function parseManifest(json: unknown, origin: string): Manifest {
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new Error(`invalid model manifest ${origin}: ${issues.join('; ')}`);
  }
  return parsed.data;
}

export function readManifest(file: string): Manifest {
  return parseManifest(JSON.parse(fs.readFileSync(file, 'utf8')), file);
}

/** The manifests shipped with the runtime, in models/<pack>/manifest.json. */
export const BUNDLED_PACKS = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../models');

export function bundledManifest(pack: string): Manifest {
  const file = path.join(BUNDLED_PACKS, pack, 'manifest.json');
  if (!fs.existsSync(file)) throw new Error(`no model pack named "${pack}" ships with this runtime (looked for models/${pack}/manifest.json)`);
  return readManifest(file);
}

/** Compares dotted versions numerically. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** Every file the pack needs for the given device choice. */
export function packFiles(manifest: Manifest): PackFile[] {
  const files = new Map<string, PackFile>();
  for (const model of manifest.models) {
    files.set(model.file.name, model.file);
    if (model.edgetpu_file) files.set(model.edgetpu_file.name, model.edgetpu_file);
    if ('sha256' in model.labels) files.set(model.labels.name, model.labels);
  }
  return [...files.values()];
}
