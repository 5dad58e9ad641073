// A deadline for a request that can also be cancelled. AbortSignal.timeout() reached only
// through AbortSignal.any() can be garbage-collected before it fires (Node issue 57736): the
// request then waits for good. Here the timer holds the deadline until it fires or is cleared.

export interface Deadline {
  /** aborts when `cancelled` does, or with a TimeoutError (as AbortSignal.timeout's) once the time is up */
  signal: AbortSignal;
  /** the request settled: the timer is dropped */
  clear(): void;
}

export function deadline(cancelled: AbortSignal, ms: number): Deadline {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new DOMException('no response in time', 'TimeoutError')), ms);
  return { signal: AbortSignal.any([cancelled, timeout.signal]), clear: () => clearTimeout(timer) };
}
