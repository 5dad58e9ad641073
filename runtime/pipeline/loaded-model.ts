// A model of the loaded pack as the pipeline runs it: shared by the clip
// classifier, which runs it, and the decoders, which read its outputs.
import type { ModelEntry } from '../core/model-manifest.js';
import type { TensorQuant } from '../inference/tflite-file.js';
import type { LabelMap } from './label-map.js';

/** A model of the loaded pack, ready to run. */
export interface LoadedModel {
  entry: ModelEntry;
  labelMap: LabelMap;
  /** detection: the indexes of the classes that fly (the manifest's `flying`) */
  flying: Set<number>;
  /** detection: the indexes of the classes it gives flags (the manifest's `flags`) */
  flags: Set<number>;
  /** detection: the indexes of the classes it gives a vehicle seen from above (the manifest's `vehicles_from_above`) */
  fromAbove: Set<number>;
  input: TensorQuant;
  output: TensorQuant;
}
