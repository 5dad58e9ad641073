// Turns an installed pack into running interpreters: reads each model's
// quantization and labels from its files, builds the label maps, and starts
// the worker pool (which loads every model and runs it once).
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../core/log.js';
import { explainLoadError, type Backend } from '../inference/backends.js';
import { InterpreterPool } from '../inference/pool.js';
import type { Warmup } from '../inference/protocol.js';
import { embeddedFiles, readModelTensors } from '../inference/tflite-file.js';
import type { LoadedModel } from '../pipeline/loaded-model.js';
import { buildLabelMap, classIndexes, parseLabels } from '../pipeline/label-map.js';
import type { Manifest } from '../core/model-manifest.js';

export interface PackRuntime {
  models: LoadedModel[];
  pool: InterpreterPool;
}

export interface LoadOptions {
  backend: Backend;
  workers: number;
  threads: number;
  timeoutMs: number;
  /** what the workers run once loaded (see Warmup); `none` for one-shot runs */
  warmup?: Warmup;
  log: Logger;
}

export function describeModels(dir: string, manifest: Manifest, backend: Backend): LoadedModel[] {
  return manifest.models.map((entry) => {
    const file = fs.readFileSync(path.join(dir, backend.fileOf(entry).name));
    const tensors = readModelTensors(file);
    const labelsText = 'embedded' in entry.labels
      ? embeddedFiles(file).get(entry.labels.embedded)?.toString('utf8')
      : fs.readFileSync(path.join(dir, entry.labels.name), 'utf8');
    if (labelsText === undefined) throw new Error(`model ${entry.id}: no labels file "${(entry.labels as { embedded: string }).embedded}" is embedded in ${entry.file.name}`);
    const input = tensors.inputs[0];
    const output = tensors.outputs[0];
    if (!input || !output) throw new Error(`model ${entry.id} has no input or output tensor`);
    if (input.shape.length !== 4 || input.shape[3] !== 3 || input.type !== 'uint8') {
      throw new Error(`model ${entry.id} takes ${input.type} ${input.shape.join('x')}; this runtime feeds uint8 RGB images (1xHxWx3)`);
    }
    const classNames = parseLabels(labelsText);
    return { entry, labelMap: buildLabelMap(entry, classNames), flying: classIndexes(entry.flying, classNames, `model ${entry.id}: flying`), flags: classIndexes(entry.flags, classNames, `model ${entry.id}: flags`), fromAbove: classIndexes(entry.vehicles_from_above, classNames, `model ${entry.id}: vehicles_from_above`), input, output };
  });
}

export async function loadPack(dir: string, manifest: Manifest, options: LoadOptions): Promise<PackRuntime> {
  const packName = `model pack ${manifest.name}@${manifest.version}`;
  let pool: InterpreterPool;
  try {
    pool = await InterpreterPool.open(
      manifest.models.map((m) => ({
        id: m.id,
        path: path.join(dir, options.backend.fileOf(m).name),
        threads: options.threads,
        ...(options.backend.delegate ? { delegate: options.backend.delegate } : {}),
      })),
      { workers: options.workers, timeoutMs: options.timeoutMs, warmup: options.warmup, log: options.log },
    );
  } catch (err) {
    throw new Error(`${packName} does not load: ${explainLoadError((err as Error).message, options.backend)}`);
  }
  try {
    return { models: describeModels(dir, manifest, options.backend), pool };
  } catch (err) {
    await pool.close();
    throw new Error(`${packName}: ${(err as Error).message}`);
  }
}
