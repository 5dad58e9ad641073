// Messages between the interpreter pool and its worker threads.

export interface WorkerModel {
  id: string;
  path: string;
  threads: number;
  /** a TFLite delegate library (the Coral's libedgetpu) and its options */
  delegate?: { path: string; options: Array<[string, string]> };
}

export interface WorkerRequest {
  seq: number;
  model: string;
  input: Uint8Array;
}

export type WorkerReply =
  | { type: 'ready'; inferMs: Record<string, number> }
  | { type: 'failed'; message: string }
  | { type: 'result'; seq: number; output: Uint8Array | Float32Array | Int32Array; ms: number }
  | { type: 'error'; seq: number; message: string };
