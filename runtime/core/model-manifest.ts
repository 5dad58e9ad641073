// The schema of a model pack's manifest (which models, where their files come
// from and how to check them, how their classes become the service's labels
// and risk) and its types. Kept in core so the pipeline and the inference,
// which read manifests, need not climb to models/, which loads and pulls packs.
import { z } from 'zod';
import { SERVICE_LABELS } from './analysis.js';

const serviceLabel = z.enum(SERVICE_LABELS);

export const fileSchema = z.strictObject({
  /** the file's name in the pack folder and in a mirror */
  name: z.string().regex(/^[A-Za-z0-9._-]+$/, 'a plain file name'),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, '64 lowercase hex digits'),
  bytes: z.number().int().positive(),
  /** upstream location, used when no models.source is configured */
  url: z.url(),
});
export type PackFile = z.infer<typeof fileSchema>;

/** model class name (its first name in the labels file) -> service label, or [label, weight] */
const classMapSchema = z.union([
  z.literal('identity'),
  z.record(z.string(), z.union([serviceLabel, z.tuple([serviceLabel, z.number().min(0).max(1)])])),
]);

export const modelSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9_-]+$/),
  task: z.enum(['classification', 'segmentation', 'detection']),
  /** the CPU model */
  file: fileSchema,
  /** the same model compiled for the Coral Edge TPU, when there is one */
  edgetpu_file: fileSchema.optional(),
  /** the labels file, or the name of the labels file embedded in the model's metadata */
  labels: z.union([fileSchema, z.strictObject({ embedded: z.string() })]),
  class_map: classMapSchema,
  /** class index ranges mapped to a label (ImageNet's animals are one range), overridden by class_map */
  class_ranges: z.array(z.strictObject({ from: z.number().int(), to: z.number().int(), label: serviceLabel })).default([]),
  /**
   * classification: kinds of sibling classes (each a name and its class index ranges, first to
   * last) that the network tells apart by detail a camera seldom shows (dog breeds, house cats,
   * butterflies, birds). It splits its confidence among them: with "max", a kind's classes of
   * one label add up, and the kind counts as a class.
   */
  kin: z.array(z.strictObject({ name: z.string(), ranges: z.array(z.tuple([z.number().int(), z.number().int()])).min(1) })).default([]),
  /** segmentation: the share of the frame (or crop) at which a class counts with full confidence */
  full_area: z.number().positive().max(1).default(0.05),
  /** segmentation: smaller segments are noise */
  min_area: z.number().min(0).max(1).default(0.001),
  /** detection: boxes scored under this are dropped before anything else looks at them */
  min_score: z.number().min(0).max(1).default(0.3),
  /**
   * detection: the classes of things that fly, mapped to a label or not (birds, and what the
   * detector takes small birds for: "airplane", "kite"). Their boxes, scored at min_score or
   * more, tell a flock: a person or vehicle boxed among several of its size at one moment is
   * one of them (decide.ts)
   */
  flying: z.array(z.string()).default([]),
  /**
   * detection: the classes it gives a flag or banner in wind, mapped to a label or not (COCO has
   * no flag and calls one "kite"). Their boxes are evidence for a flag only where a compact place
   * flutters on a still camera (foliage.ts), never a label by themselves: a kite in the sky, or
   * a bird taken for one, is no flag.
   */
  flags: z.array(z.string()).default([]),
  /**
   * detection: the classes it gives a vehicle seen from straight above, mapped to a label or not
   * (COCO's "cell phone": a car's roof between its windscreen and rear window is a phone's screen
   * in its frame to it). Read as a vehicle only where one moves through the view with no one
   * holding it, as the thing it names never goes anywhere by itself (decide.ts).
   */
  vehicles_from_above: z.array(z.string()).default([]),
  /**
   * detection: the side of its smallest anchor box, a share of its input's side (0.1 for SSD
   * MobileNet v2: it was made to find nothing smaller). A person boxed smaller on the longer
   * side and not upright is dropped (decoders.ts). 0: none is.
   */
  smallest_box: z.number().min(0).max(1).default(0),
  /**
   * how far apart the model's quantized scores fall (a property of the model, measured): a
   * person or vehicle seen once within a step of its threshold is looked at again (decide.ts,
   * margins), as one step of noise would flip it. 0: its scores are fine-grained.
   */
  score_step: z.number().min(0).max(0.5).default(0),
  /**
   * classification: a label's score is its most confident class ("max"), or the sum of its
   * classes ("sum": many faint classes add up, which suits only coarse maps)
   */
  aggregate: z.enum(['max', 'sum']).default('max'),
});
export type ModelEntry = z.infer<typeof modelSchema>;

export const manifestSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9_-]+$/),
  version: z.string().regex(/^\d+(\.\d+)*$/, 'dotted numbers, e.g. 1.2.0'),
  description: z.string().default(''),
  models: z.array(modelSchema).min(1),
  /** a label is reported when its score reaches its threshold */
  thresholds: z.partialRecord(serviceLabel, z.number().min(0).max(1)).default({}),
  default_threshold: z.number().min(0).max(1).default(0.5),
  risk: z.strictObject({
    /** labels that mean intrusion when found moving */
    intrusion_labels: z.array(serviceLabel).default(['person', 'vehicule']),
    /**
     * a person or vehicle found in two or more chosen frames at this score or more counts as
     * found, though under its threshold: agreement across frames stands in for one sure frame
     */
    confirm_score: z.number().min(0).max(1).default(0.4),
    /** read by packs of the 1.x runtime; ignored (confirm_score took its place) */
    uncertain_person: z.number().min(0).max(1).optional(),
  }).prefault({}),
});
export type Manifest = z.infer<typeof manifestSchema>;
