// Inference backends, like detector plugins: each says whether it can run
// here, which file of a model it runs, and what the interpreter needs (the
// Coral's delegate). inference.device picks one; "auto" prefers the Edge TPU
// when its library is installed and the pack has Edge TPU models, and says why
// it chose what it chose.
import fs from 'node:fs';
import path from 'node:path';
import type { Manifest, ModelEntry, PackFile } from '../core/model-manifest.js';

export type Device = 'auto' | 'cpu' | 'edgetpu';

export interface Backend {
  readonly name: 'cpu' | 'edgetpu';
  /** the model file this backend runs */
  fileOf(model: ModelEntry): PackFile;
  delegate: { path: string; options: Array<[string, string]> } | undefined;
}

export interface BackendChoice {
  backend: Backend;
  reason: string;
}

export class BackendError extends Error {}

const EDGETPU_LIBRARY = 'libedgetpu.so.1';

/** Where the dynamic loader would find libedgetpu, if anywhere. */
export function findEdgeTpuLibrary(): string | undefined {
  const dirs = [
    ...(process.env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean),
    '/usr/lib/aarch64-linux-gnu', '/usr/lib/x86_64-linux-gnu', '/usr/lib/arm-linux-gnueabihf', '/usr/lib', '/usr/local/lib',
  ];
  return dirs.map((d) => path.join(d, EDGETPU_LIBRARY)).find((f) => fs.existsSync(f));
}

export const cpuBackend: Backend = {
  name: 'cpu',
  delegate: undefined,
  fileOf(model) {
    return model.file;
  },
};

function edgeTpuBackend(library: string): Backend {
  return {
    name: 'edgetpu',
    delegate: { path: library, options: [] },
    fileOf(model) {
      return model.edgetpu_file ?? model.file;
    },
  };
}

export function chooseBackend(device: Device, manifest: Manifest, library: string | null = findEdgeTpuLibrary() ?? null): BackendChoice {
  const hasTpuModels = manifest.models.some((m) => m.edgetpu_file);
  if (device === 'edgetpu') {
    if (!library) throw new BackendError(`No Edge TPU found (${EDGETPU_LIBRARY} is not installed): set inference.device to cpu or plug in the Coral and install libedgetpu1-std`);
    if (!hasTpuModels) throw new BackendError(`model pack ${manifest.name} has no Edge TPU models: set inference.device to cpu or auto, or use a pack with edgetpu_file entries`);
    return { backend: edgeTpuBackend(library), reason: 'inference.device is edgetpu' };
  }
  if (device === 'auto' && library && hasTpuModels) {
    return { backend: edgeTpuBackend(library), reason: `${EDGETPU_LIBRARY} found at ${library} and the pack has Edge TPU models` };
  }
  const reason = device === 'cpu'
    ? 'inference.device is cpu'
    : !library ? `auto: no Edge TPU (${EDGETPU_LIBRARY} not found), running on the CPU` : `auto: pack ${manifest.name} has no Edge TPU models, running on the CPU`;
  return { backend: cpuBackend, reason };
}

/** Turns a loader message into one that says what to do. */
export function explainLoadError(message: string, backend: Backend): string {
  if (/edgetpu-custom-op/.test(message) && backend.name === 'cpu') {
    return `the model is compiled for the Edge TPU and cannot run on the CPU: set inference.device to auto or edgetpu with a Coral plugged in, or use a pack with a CPU model (${message})`;
  }
  if (backend.name === 'edgetpu' && /delegate|edgetpu|device/i.test(message)) {
    return `No Edge TPU found: set inference.device to cpu or plug in the Coral (${message})`;
  }
  return message;
}
