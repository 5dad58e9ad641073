// What a model's output tensors mean, one decoder per model task (like an
// NVR's detector plugins, each returns the same shape whatever the model):
// label scores for the view, and boxed findings in frame coordinates.
import type { Box, Detection, Scores, ServiceLabel } from '../core/analysis.js';
import type { InferenceOutput } from '../inference/protocol.js';
import type { ModelEntry } from '../core/model-manifest.js';
import { fromCrop } from './boxes.js';
import type { LoadedModel } from './loaded-model.js';
import { segmentDetections } from './segments.js';

export type { Scores };

export interface ViewFindings {
  /** label -> best score in this view */
  scores: Scores;
  /** boxed findings, in frame coordinates */
  detections: Detection[];
  /** detection: the boxes of things that fly (the manifest's `flying`, a label or not), in frame coordinates */
  flyers?: Box[];
  /** detection: what it called a flag (the manifest's `flags`, a label or not), boxed in frame coordinates, with its score */
  flags?: Sighting[];
  /** detection: what it calls a vehicle seen from above (the manifest's `vehicles_from_above`, a label or not), boxed in frame coordinates, with its score */
  fromAbove?: Sighting[];
}

/** A box and how sure the model was of it: a finding without a label of the pack. */
export type Sighting = Pick<Detection, 'box' | 'score'>;

/** The view a model ran on: a crop of the frame, or the whole frame (undefined). */
export type Decoder = (outputs: InferenceOutput[], model: LoadedModel, view: Box | undefined) => ViewFindings;

function bestOf(detections: Detection[]): Scores {
  const scores: Scores = {};
  for (const d of detections) if (d.score > (scores[d.label] ?? 0)) scores[d.label] = d.score;
  return scores;
}

/**
 * Classification: probabilities per class, turned into one score per label. "max" takes the
 * label's most confident class (a label needs one class the network is sure of), a kind of
 * sibling classes counting as one (`kin`: the network sure of a dog, unsure of the breed);
 * "sum" adds the classes up (many faint classes make a score, which made trees into animals).
 */
function classification(outputs: InferenceOutput[], model: LoadedModel, view: Box | undefined): ViewFindings {
  const output = outputs[0]!;
  const { scale, zeroPoint } = model.output;
  const sum = model.entry.aggregate === 'sum';
  const scores: Scores = {};
  const kinds = new Map<string, { label: ServiceLabel; p: number }>();
  for (let i = 0; i < output.length; i++) {
    const target = model.labelMap[i];
    if (!target) continue;
    const p = (scale ? scale * (output[i]! - zeroPoint) : output[i]!) * target.weight;
    if (p <= 0) continue;
    scores[target.label] = Math.min(1, sum ? (scores[target.label] ?? 0) + p : Math.max(scores[target.label] ?? 0, p));
    if (target.kin === undefined || sum) continue;
    const key = `${target.kin}:${target.label}`;
    const kind = kinds.get(key) ?? { label: target.label, p: 0 };
    kind.p += p;
    kinds.set(key, kind);
  }
  for (const { label, p } of kinds.values()) scores[label] = Math.min(1, Math.max(scores[label] ?? 0, p));
  // On a crop, what the classifier names is boxed by the crop (drawn in the highlight).
  const detections = view
    ? (Object.entries(scores) as Array<[ServiceLabel, number]>).filter(([, s]) => s >= 0.3).map(([label, score]) => ({ label, score, box: view }))
    : [];
  return { scores, detections };
}

/** Segmentation: a class per pixel, grouped into segments scored by their area. */
function segmentation(outputs: InferenceOutput[], model: LoadedModel, view: Box | undefined): ViewFindings {
  const size = model.input.shape[2]!;
  const found = segmentDetections(outputs[0] as Uint8Array, size, model.labelMap, { fullArea: model.entry.full_area, minArea: model.entry.min_area });
  const detections = found.map((d) => ({ ...d, box: fromCrop(d.box, view) }));
  return { scores: bestOf(detections), detections };
}

/** A box at least this many times taller than wide is upright: a person standing or walking. */
const UPRIGHT = 1.5;

/**
 * A person boxed smaller on the longer side than the detector's smallest anchor (`smallest_box`,
 * in its input) is below what the detector was made to find, and so small only its shape tells a
 * person: upright. The smallest person the tests' far walkers were boxed as was 10 px by 31
 * (0.79); a spider on a wall under heavy snow was 23 by 25 ("person" 0.58). In the input's
 * pixels: a whole frame squeezed into a square input stands taller than it is, so it is kept the
 * more.
 */
const tooSmallForAPerson = (label: ServiceLabel, w: number, h: number, smallest: number) =>
  label === 'person' && Math.max(w, h) < smallest && h < UPRIGHT * w;

/**
 * Detection (SSD post-processed): four outputs, boxes (ymin, xmin, ymax, xmax in 0..1 of the
 * view), class indexes into the labels file, scores, and the count of valid rows.
 */
function detection(outputs: InferenceOutput[], model: LoadedModel, view: Box | undefined): ViewFindings {
  const [boxes, classes, scores, count] = outputs as Float32Array[];
  if (!boxes || !classes || !scores || !count) throw new Error(`model ${model.entry.id} is not a post-processed detector: it has ${outputs.length} outputs, a detector has four (boxes, classes, scores, count)`);
  const detections: Detection[] = [];
  const flyers: Box[] = [];
  const flags: Sighting[] = [];
  const fromAbove: Sighting[] = [];
  const n = Math.min(Math.round(count[0]!), scores.length);
  for (let i = 0; i < n; i++) {
    const index = Math.round(classes[i]!);
    const target = model.labelMap[index];
    const flying = model.flying.has(index) && scores[i]! >= model.entry.min_score;
    const flag = model.flags.has(index) && scores[i]! >= model.entry.min_score;
    const above = model.fromAbove.has(index) && scores[i]! >= model.entry.min_score;
    const score = scores[i]! * (target?.weight ?? 0);
    if (!flying && !flag && !above && (!target || score < model.entry.min_score)) continue;
    const clamp = (v: number) => Math.min(1, Math.max(0, v));
    const y0 = clamp(boxes[i * 4]!), x0 = clamp(boxes[i * 4 + 1]!), y1 = clamp(boxes[i * 4 + 2]!), x1 = clamp(boxes[i * 4 + 3]!);
    if (x1 <= x0 || y1 <= y0) continue;
    const box = fromCrop({ x: x0, y: y0, w: x1 - x0, h: y1 - y0 }, view);
    if (flying) flyers.push(box);
    if (flag) flags.push({ box, score: scores[i]! });
    if (above) fromAbove.push({ box, score: scores[i]! });
    if (target && score >= model.entry.min_score && !tooSmallForAPerson(target.label, x1 - x0, y1 - y0, model.entry.smallest_box)) {
      detections.push({ label: target.label, score, box });
    }
  }
  return { scores: bestOf(detections), detections, flyers, flags, fromAbove };
}

/** The compiler asks for a decoder for every task a manifest can name. */
export const DECODERS: Record<ModelEntry['task'], Decoder> = { classification, segmentation, detection };
