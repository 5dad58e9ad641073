// What the job runner needs from the stages it drives. The daemon wires the
// real ones in: the active model pack's classifier and the highlight renderer.
import type { Analysis, Classifier, ClipInfo, FrameCopy } from '../core/analysis.js';

/** A classifier borrowed from the active model pack; the pack stays loaded until released. */
export interface ClassifierLease {
  classifier: Classifier;
  backend: string;
  release(): void;
}

export interface ClassifierSource {
  /** Throws PipelineError(NO_MODEL or MODEL_LOAD_FAILED) when no pack can classify. */
  acquire(): Promise<ClassifierLease>;
}

export interface HighlightRequest {
  clip: ClipInfo;
  analysis: Analysis;
  outPath: string;
  signal: AbortSignal;
}

/** Renders the highlight; answers what was written (probed), so the caller need not probe it again. */
export type HighlightRenderer = (request: HighlightRequest) => Promise<ClipInfo>;

export interface HighlightStage {
  /**
   * The frames the render would take from the classification's decode of the
   * clip (written beside outPath, removed by the job once it is final);
   * undefined when the render decodes the clip itself.
   */
  framesFor(clip: ClipInfo, outPath: string): FrameCopy | undefined;
  /** Removes the frames framesFor may have had written beside outPath. */
  discardFrames(outPath: string): Promise<void>;
  render: HighlightRenderer;
}
