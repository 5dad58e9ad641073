// The contract between the pipeline stages: what probing, analysis and
// highlight rendering hand to each other. Plain data only, so it can cross
// worker threads and be stored as JSON.

/** The service's label set (spec 2.1; "vehicule" is spelled as the spec spells it). */
export const SERVICE_LABELS = [
  'flag', 'plant', 'web', 'NOTHING', 'intrusion', 'person', 'rain',
  'spider', 'text', 'wind', 'animal', 'other', 'vehicule',
] as const;
export type ServiceLabel = (typeof SERVICE_LABELS)[number];

/** label -> score in [0, 1]; a label not seen is absent */
export type Scores = Partial<Record<ServiceLabel, number>>;

export const RISKS = ['safe', 'danger', 'intrusion'] as const;
export type Risk = (typeof RISKS)[number];

/** What ffprobe tells about a clip's video stream. */
export interface ClipInfo {
  path: string;
  width: number;
  height: number;
  /** seconds, as a fraction */
  duration: number;
  fps: number;
  nframes: number;
  codec: string;
  /**
   * Its container's header describes its video, and its time starts at 0 (probe.ts): ffmpeg can
   * decode it without first decoding frames to find either out (frames.ts).
   */
  headerDescribed?: boolean;
  /**
   * The size its frames are decoded at, where its pixels are not square and it is shown wider or
   * narrower (probe.ts): width and height above are the size shown.
   */
  decoded?: { width: number; height: number };
  /** Its frames are interlaced (probe.ts): two fields a field's time apart, deinterlaced as decoded (frames.ts). */
  interlaced?: boolean;
}

/** A box in normalised frame coordinates: 0..1 of width and height, origin top-left. */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Detection {
  label: ServiceLabel;
  score: number;
  box: Box;
}

/** One inferred moment of the clip, with what was found in it. */
export interface KeyFrame {
  /** seconds from the start of the clip */
  t: number;
  /** how much this frame drove the result, 0..1 */
  score: number;
  detections: Detection[];
}

export interface AnalysisStats {
  framesInferred: number;
  decodeMs: number;
  motionMs: number;
  inferenceMs: number;
  totalMs: number;
  /** inferences run per model id (frames and crops) */
  inferences?: Record<string, number>;
}

/** The outcome of classifying one clip. */
export interface Analysis {
  risk: Risk;
  labels: ServiceLabel[];
  /** label -> confidence in [0, 1] */
  scores: Scores;
  keyframes: KeyFrame[];
  model: string;
  version: string;
  backend: string;
  stats: AnalysisStats;
}

/** A polygon in normalised frame coordinates: [x, y] points, 0..1 of width and height. */
export type Polygon = Array<[number, number]>;

/** A camera's own rules, from its config entry (README, Cameras, zones and masks). */
export interface CameraRules {
  /** nothing here counts: neither motion nor detections */
  masks: Polygon[];
  /** an intrusion counts only with its box's bottom-centre inside one; empty: everywhere */
  zones: Array<{ name: string; points: Polygon }>;
  /** labels that count, each from its minimum score; empty: every label at the pack's thresholds */
  labels: Partial<Record<ServiceLabel, number>>;
  /** labels that make an intrusion; absent: the pack's */
  intrusionLabels?: ServiceLabel[];
}

/**
 * A copy of the clip's frames at another size and rate, as raw yuv420p, that a
 * classification writes from its own decode of the clip (the highlight's frames:
 * the render then need not decode the clip again). The file appears, whole,
 * only once the decode finished; a copy that could not be written is not there.
 */
export interface FrameCopy {
  path: string;
  width: number;
  height: number;
  fps: number;
  /** ffmpeg's scaling algorithm, the one the highlight's own render uses */
  scaler: string;
}

/** Turns a probed clip into an Analysis. Cancelled through the signal (kills child processes). */
export interface Classifier {
  readonly model: string;
  readonly version: string;
  /** rules: the clip's camera's, when it has any; copy: frames to write from the decode, when wanted */
  classify(clip: ClipInfo, signal: AbortSignal, rules?: CameraRules, copy?: FrameCopy): Promise<Analysis>;
}
