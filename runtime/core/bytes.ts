/**
 * A Buffer's bytes as a plain Uint8Array over the same memory (no copy). V8 compiles a loop
 * over typed arrays for the kinds of array it met there: Buffers (a subclass) mixed with plain
 * Uint8Arrays make each read polymorphic, and the pixel loops of the motion pass and the small
 * movers ran at about half speed on frames handed over as Buffers.
 */
export function bytesOf(buffer: Uint8Array): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}
