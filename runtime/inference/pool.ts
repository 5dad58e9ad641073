// A pool of interpreter worker processes (see worker.ts for why processes),
// each holding one interpreter per model of a pack.
// Frames queue here and go to the first idle worker. An inference that does
// not return in time (a hung accelerator) fails with INFERENCE_TIMEOUT and its
// worker is replaced by a fresh one, so the daemon never hangs with it.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CancelledError, ErrorCode, PipelineError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { InferenceOutput, Warmup, WorkerModel, WorkerReply } from './protocol.js';

export type { InferenceOutput };

/** What one inference gives: every output tensor, and the time the interpreter took. */
export interface InferenceResult {
  outputs: InferenceOutput[];
  ms: number;
}

export interface PoolOptions {
  workers: number;
  /** an inference slower than this counts as hung */
  timeoutMs: number;
  /** what the workers run once their interpreters are built (default `timed`: proved and timed, for the log) */
  warmup?: Warmup;
  log: Logger;
}

interface Job {
  seq: number;
  model: string;
  input: Uint8Array;
  resolve(out: InferenceResult): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
}

const WORKER_PATH = fileURLToPath(new URL('./worker.js', import.meta.url));

type Worker = ChildProcess;

function kill(worker: Worker): void {
  if (worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
}

// A worker holds little JavaScript: a young generation of 1 MB semi-spaces (V8's
// default grows to 16 MB each) and two malloc arenas (glibc's default is 8 per
// core) keep it near the size of its interpreters; it collects its garbage
// when idle (see worker.ts), hence gc exposed. Settings in the environment win.
const WORKER_EXEC_ARGV = ['--max-semi-space-size=1', '--expose-gc'];
const WORKER_ENV = { MALLOC_ARENA_MAX: '2' };

function forkWorker(): Worker {
  // "advanced" serialization carries typed arrays as binary, not JSON.
  return fork(WORKER_PATH, [], {
    serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: WORKER_EXEC_ARGV, env: { ...WORKER_ENV, ...process.env },
  });
}

/** A worker forked before its models were known (prestartWorker), for the first pool to take. */
let spare: Worker | undefined;

/**
 * Forks the worker the first pool will take, before anything else is loaded: a one-shot
 * command's fixed cost is mostly two Node.js start-ups, its own (imports, config) and the
 * worker's (Node.js, the TFLite addon), and this runs them side by side. Never used, it
 * holds nothing open and ends with the process.
 */
export function prestartWorker(): void {
  if (spare) return;
  const worker = forkWorker();
  spare = worker;
  worker.unref();
  worker.channel?.unref();
  worker.once('exit', () => {
    if (spare === worker) spare = undefined;
  });
  process.once('exit', () => kill(worker));
}

/** Starts a worker (or takes the spare) and waits until its interpreters are loaded (and warmed up as asked). */
function startWorker(models: WorkerModel[], warmup: Warmup): Promise<{ worker: Worker; inferMs: Record<string, number> }> {
  return new Promise((resolve, reject) => {
    const worker = spare ?? forkWorker();
    if (worker === spare) {
      spare = undefined;
      worker.ref();
      worker.channel?.ref();
    }
    const onExit = (code: number | null, signal: string | null) =>
      reject(new Error(`the inference worker died while loading the models (${signal ?? `exit ${code}`})`));
    worker.once('error', reject);
    worker.once('exit', onExit);
    worker.once('message', (message: WorkerReply) => {
      worker.off('error', reject);
      worker.off('exit', onExit);
      if (message.type === 'ready') resolve({ worker, inferMs: message.inferMs });
      else {
        kill(worker);
        reject(new Error(message.type === 'failed' ? message.message : 'unexpected worker message'));
      }
    });
    worker.send({ type: 'load', models, warmup });
  });
}

export class InterpreterPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private seq = 0;
  private closed = false;

  private constructor(
    private readonly models: WorkerModel[],
    private readonly options: PoolOptions,
    /** single-inference time per model, measured when the interpreters were built */
    readonly inferMs: Record<string, number>,
  ) {}

  /** Loads every model in every worker; rejects with the loader's message if a model does not load or run. */
  static async open(models: WorkerModel[], options: PoolOptions): Promise<InterpreterPool> {
    const started = await Promise.allSettled(Array.from({ length: options.workers }, () => startWorker(models, options.warmup ?? 'timed')));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    const ready = started.filter((s) => s.status === 'fulfilled').map((s) => s.value);
    if (failed) {
      for (const r of ready) kill(r.worker);
      throw new PipelineError(ErrorCode.MODEL_LOAD_FAILED, (failed.reason as Error).message);
    }
    const pool = new InterpreterPool(models, options, ready[0]!.inferMs);
    for (const r of ready) pool.adopt(r.worker);
    return pool;
  }

  get size(): number {
    return this.slots.length;
  }

  infer(model: string, input: Uint8Array, signal?: AbortSignal): Promise<InferenceResult> {
    if (this.closed) return Promise.reject(new PipelineError(ErrorCode.MODEL_LOAD_FAILED, 'the model pack was unloaded'));
    if (signal?.aborted) return Promise.reject(new CancelledError());
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const queued = this.queue.indexOf(job);
        if (queued >= 0) this.queue.splice(queued, 1);
        reject(new CancelledError());
      };
      const settle = () => signal?.removeEventListener('abort', onAbort);
      const job: Job = {
        seq: ++this.seq, model, input,
        resolve: (out) => (settle(), resolve(out)),
        reject: (err) => (settle(), reject(err)),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** Median single-inference time per model over `runs` runs one at a time on a blank input (for the benchmark). */
  async measure(inputBytes: Record<string, number>, runs = 10): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const [model, bytes] of Object.entries(inputBytes)) {
      const times: number[] = [];
      for (let i = 0; i < runs; i++) times.push((await this.infer(model, new Uint8Array(bytes))).ms);
      out[model] = times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
    }
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new PipelineError(ErrorCode.MODEL_LOAD_FAILED, 'the model pack was unloaded'));
    for (const slot of this.slots.splice(0)) {
      clearTimeout(slot.timer);
      slot.worker.removeAllListeners('exit');
      kill(slot.worker);
    }
  }

  private adopt(worker: Worker): void {
    const slot: Slot = { worker, job: undefined, timer: undefined };
    worker.on('message', (message: WorkerReply) => this.onReply(slot, message));
    // An IPC send to a worker that just died reports here; its 'exit' does the cleanup.
    worker.on('error', (err) => this.options.log.warn('inference worker error', { err: err.message }));
    worker.on('exit', (code, signal) => this.replace(slot, new PipelineError(
      ErrorCode.INFERENCE_FAILED, `the inference worker died (${signal ?? `exit ${code}`}) while running ${slot.job?.model ?? 'nothing'}`,
    )));
    this.slots.push(slot);
    this.dispatch();
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.job || this.queue.length === 0) continue;
      const job = this.queue.shift()!;
      slot.job = job;
      slot.timer = setTimeout(() => {
        this.options.log.error('inference timed out: rebuilding the interpreter', { model: job.model, timeout_ms: this.options.timeoutMs });
        this.replace(slot, new PipelineError(
          ErrorCode.INFERENCE_TIMEOUT,
          `inference on ${job.model} did not return within ${this.options.timeoutMs} ms; the interpreter was rebuilt`,
        ));
      }, this.options.timeoutMs);
      slot.worker.send({ type: 'infer', seq: job.seq, model: job.model, input: job.input });
    }
  }

  private onReply(slot: Slot, message: WorkerReply): void {
    const job = slot.job;
    if (!job || (message.type !== 'result' && message.type !== 'error') || message.seq !== job.seq) return;
    clearTimeout(slot.timer);
    slot.job = undefined;
    if (message.type === 'result') job.resolve({ outputs: message.outputs, ms: message.ms });
    else job.reject(new PipelineError(ErrorCode.INFERENCE_FAILED, `inference on ${job.model} failed: ${message.message}`));
    this.dispatch();
  }

  /** Drops a hung or crashed worker (failing its job) and starts a fresh one in its place. */
  private replace(slot: Slot, reason: PipelineError): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    clearTimeout(slot.timer);
    slot.job?.reject(reason);
    slot.worker.removeAllListeners('message');
    slot.worker.removeAllListeners('exit');
    slot.worker.on('error', () => undefined);
    kill(slot.worker);
    if (this.closed) return;
    startWorker(this.models, 'proved').then(
      ({ worker }) => (this.closed ? kill(worker) : this.adopt(worker)),
      (err: Error) => {
        this.options.log.error('could not rebuild an inference worker', { err: err.message });
        if (this.slots.length === 0) {
          for (const job of this.queue.splice(0)) job.reject(new PipelineError(ErrorCode.MODEL_LOAD_FAILED, err.message));
        }
      },
    );
  }
}
