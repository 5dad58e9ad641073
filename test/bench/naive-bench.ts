// The naive pipeline the runtime must never be slower than: one frame per
// second of clip, every model of the pack on every whole frame, no motion
// pass, no regions. Same pack, same interpreters (one worker, one thread),
// same decoder, so the comparison is of the choices alone.
import path from 'node:path';
import { silentLogger } from '../../runtime/core/log.js';
import { cpuBackend } from '../../runtime/inference/backends.js';
import { bundledManifest } from '../../runtime/models/manifest.js';
import { loadPack, type PackRuntime } from '../../runtime/models/load-pack.js';
import { PackStore } from '../../runtime/models/pack-store.js';
import { pullPack } from '../../runtime/models/pull.js';
import { readFrameSets } from '../../runtime/pipeline/frames.js';
import { tempDir } from '../support/clips.js';
import { SHARED_MODELS } from '../support/paths.js';
import { cpuSeconds } from './quality-bench.js';

export interface NaiveRun {
  wallMs: number;
  cpuMs: number;
  inferences: number;
}

export class NaivePipeline {
  private constructor(private readonly runtime: PackRuntime) {}

  static async open(pack: string): Promise<NaivePipeline> {
    const store = new PackStore(path.join(tempDir('vigil-naive-'), 'models'));
    store.prepare();
    const id = await pullPack(bundledManifest(pack), { source: SHARED_MODELS, store, timeoutMs: 60_000, log: silentLogger });
    const installed = store.get(id)!;
    const runtime = await loadPack(installed.dir, installed.manifest, { backend: cpuBackend, workers: 1, threads: 1, timeoutMs: 20_000, log: silentLogger });
    return new NaivePipeline(runtime);
  }

  async run(file: string): Promise<NaiveRun> {
    const { models, pool } = this.runtime;
    const sizes = models.map((m) => ({ width: m.input.shape[2]!, height: m.input.shape[1]! }));
    const cpu0 = cpuSeconds();
    const started = performance.now();
    let inferences = 0;
    const signal = new AbortController().signal;
    for await (const views of readFrameSets({ input: file, filters: 'fps=1', sizes, signal })) {
      await Promise.all(models.map((m, i) => pool.infer(m.entry.id, new Uint8Array(views[i]!), signal)));
      inferences += models.length;
    }
    return { wallMs: performance.now() - started, cpuMs: (cpuSeconds() - cpu0) * 1000, inferences };
  }

  async close(): Promise<void> {
    await this.runtime.pool.close();
  }
}
