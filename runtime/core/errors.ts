// error_code values of a final result (spec 7 leaves the set to us; the README
// documents this table). Grouped by stage: 1xxx input, 2xxx model, 3xxx capture,
// 9xxx runtime.
export const ErrorCode = {
  OK: 0,
  /** no decodable video stream, not a video, or a container ffprobe cannot read */
  INVALID_VIDEO: 1001,
  /** the clip probed but decoding failed part way (truncated or corrupt data) */
  DECODE_FAILED: 1002,
  /** the active model could not be loaded or does not fit the pack */
  MODEL_LOAD_FAILED: 2001,
  /** the model failed while running on a frame */
  INFERENCE_FAILED: 2002,
  /** an inference did not return in time (hung accelerator); the interpreter was rebuilt */
  INFERENCE_TIMEOUT: 2003,
  /** no model pack is active */
  NO_MODEL: 2004,
  /** a camera could not be recorded from */
  CAPTURE_FAILED: 3001,
  /** the job crashed the runtime too many times and was given up */
  GAVE_UP: 9001,
  /** an unexpected internal error */
  INTERNAL: 9999,
} as const;
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** An error that ends a classification with a known error_code. */
export class PipelineError extends Error {
  constructor(
    readonly code: ErrorCodeValue,
    message: string,
  ) {
    super(message);
    this.name = 'PipelineError';
  }
}

/** Thrown by stages that notice their AbortSignal fired (the job was deleted or the daemon stops). */
export class CancelledError extends Error {
  constructor(message = 'cancelled') {
    super(message);
    this.name = 'CancelledError';
  }
}

/**
 * Why an input or a request was refused, in the domain's words. Rooms below the
 * HTTP edge throw it and never speak HTTP: api/errors.ts turns each kind into
 * its status at the edge, as Koa keeps errors there.
 */
export type RefusalKind =
  /** the input is malformed or breaks a rule */
  | 'invalid'
  /** no such thing (a camera, a classification) */
  | 'not_found'
  /** it existed and was deleted meanwhile */
  | 'gone'
  /** the sender stopped sending before the input was complete */
  | 'timeout'
  /** larger than a configured limit */
  | 'too_large'
  /** a content type that is not accepted */
  | 'unsupported_type'
  /** well-formed, but not usable (not a video) */
  | 'unprocessable'
  /** the data volume has no room for it */
  | 'no_storage';

/** A refusal with the code and message the caller is answered with. */
export class Refusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'Refusal';
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
