// Messages between the interpreter pool and its worker processes.

/** One output tensor, copied out of the interpreter. */
export type InferenceOutput = Uint8Array | Float32Array | Int32Array;

export interface WorkerModel {
  id: string;
  path: string;
  threads: number;
  /** a TFLite delegate library (the Coral's libedgetpu) and its options */
  delegate?: { path: string; options: Array<[string, string]> };
}

/**
 * What a worker runs when its interpreters are built: `timed`, one run per model
 * on a blank input to prove it executes and a second one timed (for the log);
 * `proved`, the first only; `none`, nothing (a one-shot command's first clip
 * proves the models, and a load failure still fails the load).
 */
export type Warmup = 'timed' | 'proved' | 'none';

export interface WorkerRequest {
  seq: number;
  model: string;
  input: Uint8Array;
}

export type WorkerReply =
  | { type: 'ready'; inferMs: Record<string, number> }
  | { type: 'failed'; message: string }
  /** every output tensor of the model, in the model's order (a detector has four) */
  | { type: 'result'; seq: number; outputs: InferenceOutput[]; ms: number }
  | { type: 'error'; seq: number; message: string };
