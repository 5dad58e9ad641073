// Interpreter worker process: owns one TFLite interpreter per model of a pack,
// so inference runs off the daemon's event loop and in parallel across cores.
// A process rather than a worker thread: the TFLite addon works in one
// JavaScript environment per process only, and a call hung in native code
// (a stuck accelerator) can be ended by killing a process, not a thread.
// Frames arrive over IPC and are written straight into the input tensor.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { TFLiteNodeModelRunner as RunnerClass } from 'tfjs-tflite-node';
import { collectThenTrim } from '../core/memory.js';
import type { InferenceOutput, Warmup, WorkerModel, WorkerReply, WorkerRequest } from './protocol.js';

/**
 * The interpreter is the native binding's own class (what the package exports as
 * TFLiteNodeModelRunner), loaded the way the package loads it. Its entry point would also load
 * tfjs-core and node-fetch for APIs never used here: 40 to 80 ms of a worker's start, which is
 * on the critical path of `vigil classify` and of a worker replaced after a hang.
 */
const packageJson = createRequire(import.meta.url).resolve('tfjs-tflite-node/package.json');
const bindings = createRequire(packageJson)('bindings') as (options: { bindings: string; module_root: string }) => { Interpreter: typeof RunnerClass };
const TFLiteNodeModelRunner = bindings({ bindings: 'node_tflite_binding', module_root: path.dirname(packageJson) }).Interpreter;

type Runner = InstanceType<typeof RunnerClass>;

const runners = new Map<string, Runner>();

function load(model: WorkerModel): Runner {
  const file = fs.readFileSync(model.path);
  const bytes = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
  const options = model.delegate ? { threads: model.threads, delegate: model.delegate } : { threads: model.threads };
  return new TFLiteNodeModelRunner(bytes, options);
}

/** Copies an output tensor out of the interpreter; class-index maps (int64) shrink to bytes. */
function copyOutput(data: unknown): InferenceOutput {
  if (data instanceof BigInt64Array) {
    const out = new Uint8Array(data.length);
    for (let i = 0; i < data.length; i++) out[i] = Number(data[i]);
    return out;
  }
  if (data instanceof Uint8Array) return Uint8Array.from(data);
  if (data instanceof Float32Array) return Float32Array.from(data);
  if (data instanceof Int32Array) return Int32Array.from(data);
  throw new Error(`unsupported output tensor type ${(data as object).constructor.name}`);
}

const reply = (message: WorkerReply) => process.send!(message);

// Typed arrays (every frame in, every tensor out) live outside V8's heap, and
// with so little JavaScript allocation V8 collects them late: an idle worker
// would hold the buffers of its last few hundred inferences. One collection
// once idle (a few milliseconds on this small heap) gives them back, and
// glibc then returns what the interpreter and IPC freed (core/memory.ts).
const IDLE_GC_MS = 1000;
let idleTimer: NodeJS.Timeout | undefined;
function collectWhenIdle(): void {
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => (idleTimer = collectThenTrim()), IDLE_GC_MS);
}
const failure = (err: unknown) => (err instanceof Error ? err.message : String(err));

function loadAll(models: WorkerModel[], warmup: Warmup): void {
  try {
    const timings: Record<string, number> = {};
    for (const model of models) {
      const runner = load(model);
      // One run on a blank input proves the model executes; a second one, when asked, measures it.
      if (warmup !== 'none') {
        (runner.getInputs()[0]!.data() as Uint8Array).fill(0);
        runner.infer();
      }
      if (warmup === 'timed') {
        const started = performance.now();
        runner.infer();
        timings[model.id] = performance.now() - started;
      }
      runners.set(model.id, runner);
    }
    reply({ type: 'ready', inferMs: timings });
  } catch (err) {
    reply({ type: 'failed', message: failure(err) });
  }
  collectWhenIdle(); // the model files read in
}

function infer(request: WorkerRequest): void {
  try {
    const runner = runners.get(request.model);
    if (!runner) throw new Error(`model ${request.model} is not loaded`);
    const input = runner.getInputs()[0]!.data() as Uint8Array;
    if (input.length !== request.input.length) {
      throw new Error(`input has ${request.input.length} bytes, the model takes ${input.length}`);
    }
    input.set(request.input);
    const started = performance.now();
    runner.infer();
    const ms = performance.now() - started;
    reply({ type: 'result', seq: request.seq, outputs: runner.getOutputs().map((t) => copyOutput(t.data())), ms });
  } catch (err) {
    reply({ type: 'error', seq: request.seq, message: failure(err) });
  }
  collectWhenIdle();
}

process.on('message', (message: { type: 'load'; models: WorkerModel[]; warmup: Warmup } | ({ type: 'infer' } & WorkerRequest)) => {
  if (message.type === 'load') loadAll(message.models, message.warmup);
  else infer(message);
});
// The daemon went away (even by kill -9): nothing left to serve.
process.on('disconnect', () => process.exit(0));
