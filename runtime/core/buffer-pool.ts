/**
 * Buffers handed out again once given back. V8 counts the bytes of every ArrayBuffer towards
 * its next full collection: frames allocated afresh for every clip and dropped after it made
 * it mark and compact the whole heap every few clips, for memory that was free again.
 *
 * It keeps at most `maxBytes` of given-back buffers; past that, the sizes given back longest ago
 * go first (a camera's frames are all of one size; another camera's take their place).
 */
export class BufferPool {
  /** free buffers by size, the size given back most recently last */
  private readonly free = new Map<number, Buffer[]>();
  private kept = 0;

  constructor(private readonly maxBytes: number) {}

  /** A buffer of `bytes`, its contents whatever they were: the caller fills it. */
  take(bytes: number): Buffer {
    const buffer = this.free.get(bytes)?.pop();
    if (!buffer) return Buffer.allocUnsafeSlow(bytes);
    this.kept -= bytes;
    return buffer;
  }

  /**
   * Gives back the memory of `bytes` (a buffer from take(), or a view over all of it): it is
   * handed out again, so no view of it may be used after.
   */
  give(bytes: Uint8Array): void {
    const size = bytes.byteLength;
    if (size === 0 || size > this.maxBytes) return;
    const list = this.free.get(size) ?? [];
    this.free.delete(size); // re-inserted last: the most recent
    this.free.set(size, list);
    for (const [other, buffers] of this.free) {
      if (this.kept + size <= this.maxBytes) break;
      while (buffers.length && this.kept + size > this.maxBytes) {
        buffers.pop();
        this.kept -= other;
      }
      if (!buffers.length && other !== size) this.free.delete(other);
    }
    if (this.kept + size > this.maxBytes) return;
    list.push(Buffer.from(bytes.buffer, bytes.byteOffset, size));
    this.kept += size;
  }
}
