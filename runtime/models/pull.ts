// Fetching a pack from a model source: an http(s) URL, a local mirror folder,
// or (no source) each file's upstream URL from the manifest. Every file is
// checked for size and sha256 while it streams to a partial folder; the pack
// is then loaded and run once before it is installed. Nothing half-fetched,
// corrupt or unrunnable ever replaces what is installed, and the error says why.
import { redactedUrl, redactSecrets } from '../core/redact.js';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from '../core/log.js';
import { cpuBackend } from '../inference/backends.js';
import { loadPack } from './load-pack.js';
import type { Manifest, PackFile } from '../core/model-manifest.js';
import { packFiles, parseManifest } from './manifest.js';
import { packId, type PackStore } from './pack-store.js';

export interface PullOptions {
  source: string;
  store: PackStore;
  timeoutMs: number;
  log: Logger;
}

const isUrl = (s: string) => /^https?:\/\//i.test(s);

/** Where a file of the pack comes from. */
export function locate(source: string, name: string, upstream?: string): string {
  if (!source) {
    if (!upstream) throw new Error(`no models.source is set and ${name} has no upstream URL`);
    return upstream;
  }
  if (isUrl(source)) return new URL(name, source.endsWith('/') ? source : `${source}/`).toString();
  const folder = source.startsWith('file://') ? new URL(source).pathname : source;
  return path.resolve(folder, name);
}

async function openSource(location: string, timeoutMs: number): Promise<Readable> {
  if (!isUrl(location)) {
    if (!fs.existsSync(location)) throw new Error(`${location} does not exist in the model source folder`);
    return fs.createReadStream(location);
  }
  let response: Response;
  try {
    response = await fetch(location, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`the model source is unreachable: ${redactedUrl(location)}: ${redactSecrets(String(cause?.code ?? cause?.message ?? (err as Error).message))}`);
  }
  if (!response.ok || !response.body) throw new Error(`${redactedUrl(location)} answered HTTP ${response.status}`);
  return Readable.fromWeb(response.body as import('node:stream/web').ReadableStream);
}

/** Streams one file to `dest`, checking its size and sha256 on the way. */
export async function fetchFile(source: string, file: PackFile, dest: string, timeoutMs: number): Promise<void> {
  const location = locate(source, file.name, file.url);
  const input = await openSource(location, timeoutMs);
  const hash = crypto.createHash('sha256');
  let bytes = 0;
  await pipeline(
    input,
    async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        bytes += chunk.length;
        if (bytes > file.bytes) throw new Error(`${file.name} is larger than the manifest says (${file.bytes} bytes): wrong file`);
        hash.update(chunk);
        yield chunk;
      }
    },
    fs.createWriteStream(dest),
  );
  if (bytes !== file.bytes) throw new Error(`${file.name} is truncated: got ${bytes} of ${file.bytes} bytes from ${location}`);
  const digest = hash.digest('hex');
  if (digest !== file.sha256) throw new Error(`${file.name} fails its checksum: sha256 ${digest}, the manifest says ${file.sha256} (corrupt download or another file at ${location})`);
}

/** A newer manifest the source publishes at <source>/<pack>/manifest.json, if any. */
export async function publishedManifest(source: string, pack: string, timeoutMs: number): Promise<Manifest | undefined> {
  if (!source) return undefined;
  const location = locate(source, `${pack}/manifest.json`);
  if (!isUrl(location)) {
    return fs.existsSync(location) ? parseManifest(JSON.parse(fs.readFileSync(location, 'utf8')), location) : undefined;
  }
  const response = await fetch(location, { signal: AbortSignal.timeout(timeoutMs) }).catch((err: Error) => {
    throw new Error(`the model source is unreachable: ${redactedUrl(location)}: ${redactSecrets(String((err as { cause?: { code?: string } }).cause?.code ?? err.message))}`);
  });
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`${redactedUrl(location)} answered HTTP ${response.status}`);
  return parseManifest(await response.json(), location);
}

/** Fetches, verifies, test-runs and installs a pack (not activating it); returns its id. */
export async function pullPack(manifest: Manifest, options: PullOptions): Promise<string> {
  const id = packId(manifest);
  const partial = fs.mkdtempSync(path.join(options.store.partialDir, `${id}-`));
  try {
    for (const file of packFiles(manifest)) {
      options.log.info('fetching model file', { pack: id, file: file.name, bytes: file.bytes });
      await fetchFile(options.source, file, path.join(partial, file.name), options.timeoutMs);
    }
    fs.writeFileSync(path.join(partial, 'manifest.json'), JSON.stringify(manifest, null, 2));
    // Loaded and run once on the CPU before it may become active (Edge TPU builds are checked when a TPU loads them).
    const runtime = await loadPack(partial, manifest, { backend: cpuBackend, workers: 1, threads: 1, timeoutMs: options.timeoutMs, log: options.log });
    await runtime.pool.close();
    const dir = options.store.install(partial, id);
    options.log.info('model pack installed', { pack: id, dir });
    return id;
  } catch (err) {
    fs.rmSync(partial, { recursive: true, force: true });
    throw new Error(`model pack ${id} was not installed: ${(err as Error).message}`);
  }
}
