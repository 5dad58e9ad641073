// The active model pack, loaded and lent to jobs. At start it pulls the
// configured pack when none is active; it notices when another pack becomes
// active (the updater, or `vigil models activate` in another process) and
// swaps: new clips get the new pack, clips already running finish on the one
// they started with, which is unloaded when its last lease is returned.
import os from 'node:os';
import path from 'node:path';
import type { EventBus } from '../core/bus.js';
import { ErrorCode, PipelineError } from '../core/errors.js';
import type { Feature } from '../core/feature.js';
import type { Logger } from '../core/log.js';
import { chooseBackend, cpuBackend, type Backend } from '../inference/backends.js';
import type { ClassifierLease, ClassifierSource } from '../jobs/stages.js';
import type { ClipClassifier } from '../pipeline/clip-classifier.js';
import type { InferenceConfig, ModelsConfig } from './config.js';
import { loadPack, type PackRuntime } from './load-pack.js';
import { bundledManifest } from './manifest.js';
import { PackStore, type InstalledPack } from './pack-store.js';
import { pullPack } from './pull.js';

interface Loaded {
  pack: InstalledPack;
  backend: Backend;
  /** why this backend was chosen (auto, configured, fallback) */
  reason: string;
  runtime: PackRuntime;
  classifier: ClipClassifier;
  leases: number;
  retired: boolean;
}

export interface ModelStatus {
  /** the active pack's id, and its manifest's name and version */
  pack: string | null;
  name: string | null;
  version: string | null;
  backend: string | null;
  /** why the backend was chosen */
  reason: string | null;
  error: string | null;
}

/** How long after a failed load the next clip tries again. */
const RETRY_MS = 10_000;

export class ModelService implements Feature, ClassifierSource {
  readonly name = 'models';
  private store!: PackStore;
  private current: Loaded | undefined;
  private loadedStamp = '';
  private loading: Promise<void> | undefined;
  private lastError: string | null = null;
  private lastAttempt = 0;
  private initialPull: Promise<void> | undefined;
  private initialPending = true;

  constructor(
    private readonly config: { models: ModelsConfig; inference: InferenceConfig; dataDir: string; oneShot?: boolean },
    private readonly bus: EventBus,
    private readonly log: Logger,
  ) {}

  get status(): ModelStatus {
    return {
      pack: this.current ? this.current.pack.id : null,
      name: this.current ? this.current.pack.manifest.name : null,
      version: this.current ? this.current.pack.manifest.version : null,
      backend: this.current ? this.current.backend.name : null,
      reason: this.current ? this.current.reason : null,
      error: this.current ? null : this.lastError,
    };
  }

  /** A pack is being pulled or loaded for the first time (readiness says so). */
  get starting(): boolean {
    return this.initialPending;
  }

  get packStore(): PackStore {
    return this.store;
  }

  async start(): Promise<void> {
    this.store = new PackStore(path.join(this.config.dataDir, 'models'));
    this.store.prepare();
    // The first pull runs in the background: the API comes up at once, and
    // clips wait for the pack (acquire) rather than failing while it arrives.
    // The pack loads in the background too (its interpreters take a second or two): the API
    // answers at once, /readyz says the model is loading, and clips wait in acquire().
    if (!this.store.activeId() && this.config.models.auto_pull) this.initialPull = this.pullConfiguredPack();
    else this.initialPull = this.refresh().catch((err: unknown) => void (this.lastError = (err as Error).message));
    void this.initialPull.finally(() => (this.initialPending = false));
  }

  private async pullConfiguredPack(): Promise<void> {
    try {
      const id = await pullPack(bundledManifest(this.config.models.pack), {
        source: this.config.models.source, store: this.store, timeoutMs: this.config.models.fetch_timeout_s * 1000, log: this.log,
      });
      this.store.activate(id);
    } catch (err) {
      this.lastError = (err as Error).message;
      this.log.error('no model pack could be pulled: classifications fail with 2004 until one is (vigil models pull)', { err: this.lastError });
    }
    await this.refresh();
  }

  /** Resolves once the first pull (if any) is over: for tools that need the pack in place. */
  async ready(): Promise<void> {
    await this.initialPull;
  }

  async stop(): Promise<void> {
    await this.initialPull;
    const loaded = this.current;
    this.current = undefined;
    if (loaded) await loaded.runtime.pool.close();
  }

  async acquire(): Promise<ClassifierLease> {
    await this.initialPull;
    await this.refresh();
    const loaded = this.current;
    if (!loaded) {
      throw this.store.activeId()
        ? new PipelineError(ErrorCode.MODEL_LOAD_FAILED, this.lastError ?? 'the active model pack could not be loaded')
        : new PipelineError(ErrorCode.NO_MODEL, `no model pack is active: run \`vigil models pull\`${this.lastError ? ` (${this.lastError})` : ''}`);
    }
    loaded.leases++;
    let released = false;
    return {
      classifier: loaded.classifier,
      backend: loaded.backend.name,
      release: () => {
        if (released) return;
        released = true;
        loaded.leases--;
        if (loaded.retired && loaded.leases === 0) void loaded.runtime.pool.close();
      },
    };
  }

  /** Loads the active pack if it changed since the last look (or a failed load is due a retry). */
  private async refresh(): Promise<void> {
    while (this.loading) await this.loading;
    const stamp = this.store.stateStamp();
    const failedRecently = !this.current && Date.now() - this.lastAttempt < RETRY_MS;
    if (stamp === this.loadedStamp && (this.current || failedRecently)) return;
    this.loading = this.load(stamp).finally(() => (this.loading = undefined));
    await this.loading;
  }

  private async load(stamp: string): Promise<void> {
    this.lastAttempt = Date.now();
    this.loadedStamp = stamp;
    const pack = this.store.active();
    if (!pack) {
      this.retire();
      if (this.store.activeId()) this.lastError = `the active model pack ${this.store.activeId()} is not installed`;
      return;
    }
    if (this.current?.pack.id === pack.id) return;
    try {
      // The pipeline (sharp and libvips) loads while the interpreter workers start.
      const pipeline = import('../pipeline/clip-classifier.js');
      const { inference } = this.config;
      const workers = inference.workers === 'auto' ? Math.max(1, os.availableParallelism()) : inference.workers;
      let choice = chooseBackend(inference.device, pack.manifest);
      let backend = choice.backend;
      const options = { workers, threads: inference.threads, timeoutMs: inference.timeout_ms, warmup: this.config.oneShot ? 'none' as const : 'timed' as const, log: this.log.child('inference') };
      let runtime: PackRuntime;
      try {
        runtime = await loadPack(pack.dir, pack.manifest, { ...options, backend });
      } catch (err) {
        if (inference.device !== 'auto' || backend.name === 'cpu') throw err;
        this.log.warn('the Edge TPU did not load the pack: falling back to the CPU', { err: (err as Error).message });
        backend = cpuBackend;
        choice = { backend, reason: `auto: the Edge TPU failed to load (${(err as Error).message}), running on the CPU` };
        runtime = await loadPack(pack.dir, pack.manifest, { ...options, backend });
      }
      const { ClipClassifier } = await pipeline;
      const classifier = new ClipClassifier({
        manifest: pack.manifest, models: runtime.models, pool: runtime.pool, backend: backend.name, maxFrames: inference.max_frames,
      });
      this.retire();
      this.current = { pack, backend, reason: choice.reason, runtime, classifier, leases: 0, retired: false };
      this.lastError = null;
      this.log.info('model pack active', {
        pack: pack.id, backend: backend.name, reason: choice.reason, workers, threads: inference.threads,
        single_inference_ms: Object.fromEntries(Object.entries(runtime.pool.inferMs).map(([k, v]) => [k, Math.round(v * 10) / 10])),
      });
      this.bus.emit('model.activated', { name: pack.manifest.name, version: pack.manifest.version, backend: backend.name });
    } catch (err) {
      this.retire();
      this.lastError = (err as Error).message;
      this.log.error('the active model pack could not be loaded', { pack: pack.id, err: this.lastError });
    }
  }

  /** Unloads the current pack once the clips running on it are done. */
  private retire(): void {
    const old = this.current;
    this.current = undefined;
    if (!old) return;
    old.retired = true;
    if (old.leases === 0) void old.runtime.pool.close();
  }

  /** Median single-inference time of each model of the loaded pack, run one at a time (for the benchmark). */
  async measureInference(runs = 10): Promise<Record<string, number>> {
    const loaded = this.current;
    if (!loaded) return {};
    const sizes = Object.fromEntries(loaded.runtime.models.map((m) => [m.entry.id, m.input.shape.reduce((a, b) => a * b, 1)]));
    return loaded.runtime.pool.measure(sizes, runs);
  }
}
