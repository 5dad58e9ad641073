// The segment ring: which segments it keeps (the pre-roll, everything a pinned
// event still needs), which cover a clip, and how segments are dated.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { SegmentRing, parseSegmentLine } from '../../runtime/capture/segments.js';
import { tempDir } from '../support/clips.js';

describe('segment ring', () => {
  let dir: string;
  let ring: SegmentRing;
  const T0 = 1_800_000_000_000;

  /** Writes segment n (as the muxer would have) and adds it as closed at T0 + n * 2 s. */
  function closeSegment(n: number): void {
    const name = `seg-${String(n).padStart(9, '0')}.ts`;
    fs.writeFileSync(path.join(ring.dir, name), Buffer.alloc(1000));
    ring.add(name, 2, T0 + (n + 1) * 2000);
  }
  /** the files left once the ring's removals (not awaited by it) are done */
  const files = async () => {
    await new Promise((r) => setTimeout(r, 100));
    return fs.readdirSync(ring.dir).sort();
  };

  beforeEach(async () => {
    dir = tempDir('vigil-ring-');
    ring = new SegmentRing(path.join(dir, 'cam'), 5000);
    await ring.prepare();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the segment list lines of the muxer', () => {
    expect(parseSegmentLine('seg-000000004.ts,8.200000,10.200000\n')).to.deep.equal({ name: 'seg-000000004.ts', seconds: 2 });
    expect(parseSegmentLine('garbage')).to.equal(undefined);
  });

  it('keeps only the pre-roll when nothing is pinned, and numbers the next run on', async () => {
    for (let n = 0; n < 10; n++) closeSegment(n);
    // kept: what ends within 5 s of the newest end (T0 + 20 s)
    expect(await files()).to.deep.equal(['seg-000000007.ts', 'seg-000000008.ts', 'seg-000000009.ts']);
    expect(ring.count).to.equal(3);
    expect(ring.bytes).to.equal(3000);
    expect(ring.nextNumber).to.equal(10);
  });

  it('keeps everything from a pin on until it is released, and gives the segments covering a clip', async () => {
    closeSegment(0);
    closeSegment(1);
    const unpin = ring.pin(T0 + 1000);
    for (let n = 2; n < 12; n++) closeSegment(n);
    expect(ring.count).to.equal(12);
    const clip = ring.covering(T0 + 1000, T0 + 7000);
    expect(clip.map((s) => path.basename(s.file))).to.deep.equal(['seg-000000000.ts', 'seg-000000001.ts', 'seg-000000002.ts', 'seg-000000003.ts']);
    expect(clip[0]!.start).to.equal(T0);
    unpin();
    expect(ring.count).to.equal(3);
    expect(await files()).to.have.length(3);
  });

  it('dates segments of one run back to back, whatever the jitter of the lines', () => {
    closeSegment(0);
    fs.writeFileSync(path.join(ring.dir, 'seg-000000001.ts'), '');
    ring.add('seg-000000001.ts', 2, T0 + 4000 + 300); // its line came 0.3 s late
    const [first, second] = ring.covering(T0, T0 + 10_000);
    expect(second!.start).to.equal(first!.end);
    // after a reconnection (a gap), a segment starts where its own length says
    fs.writeFileSync(path.join(ring.dir, 'seg-000000002.ts'), '');
    ring.add('seg-000000002.ts', 2, T0 + 20_000);
    expect(ring.covering(T0 + 17_000, T0 + 19_000)[0]!.start).to.equal(T0 + 18_000);
  });

  it('removes its folder, and the parent when asked and empty', async () => {
    closeSegment(0);
    await ring.remove(true);
    expect(fs.existsSync(dir)).to.equal(false);
  });
});
