import { expect } from 'chai';
import { BufferPool } from '../../runtime/core/buffer-pool.js';

describe('BufferPool', () => {
  it('hands a given-back buffer out again for the same size, a new one for another size', () => {
    const pool = new BufferPool(1024);
    const first = pool.take(100);
    first.fill(7);
    pool.give(new Uint8Array(first.buffer, first.byteOffset, first.byteLength)); // a view over all of it, as the pipeline keeps frames
    const again = pool.take(100);
    expect(again.buffer).to.equal(first.buffer);
    expect(again.length).to.equal(100);
    expect(pool.take(100).buffer).to.not.equal(first.buffer); // handed out once only
    expect(pool.take(50).length).to.equal(50);
  });

  it('keeps at most maxBytes, dropping the sizes given back longest ago first', () => {
    const pool = new BufferPool(300);
    const small = [pool.take(100), pool.take(100)];
    const large = pool.take(200);
    for (const b of small) pool.give(b);
    pool.give(large); // 400 bytes would be kept: the smaller size, given back before, makes room
    expect(pool.take(200).buffer).to.equal(large.buffer);
    const kept = [pool.take(100), pool.take(100)].filter((b) => small.some((s) => s.buffer === b.buffer));
    expect(kept).to.have.length(1);
  });

  it('keeps nothing larger than its whole room', () => {
    const pool = new BufferPool(100);
    const big = pool.take(200);
    pool.give(big);
    expect(pool.take(200).buffer).to.not.equal(big.buffer);
  });
});
