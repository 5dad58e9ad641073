// The highlight's frames prepared by the classification's decode (the motion
// pass), against the real ffmpeg: written whole or not at all, the motion
// analysis unchanged by them, and a highlight and snapshot rendered from them
// showing what those rendered from the clip show.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { Box, ClipInfo } from '../../runtime/core/analysis.js';
import { ffmpegPath } from '../../runtime/core/tools.js';
import { geometryOf } from '../../runtime/highlight/filters.js';
import { frameBytes, framesFor, framesWithRoom, MAX_COPY_BYTES, preparedFrames } from '../../runtime/highlight/prepared-frames.js';
import { renderHighlight } from '../../runtime/highlight/render.js';
import { analyseMotion } from '../../runtime/pipeline/motion.js';
import { probeClip } from '../../runtime/pipeline/probe.js';
import { CLEAN_SNAPSHOT_FILE, SNAPSHOT_FILE } from '../../runtime/store/media-files.js';
import { panClip, tempDir } from '../support/clips.js';
import { analysisOf, personKeyframes, probe } from './support.js';

const run = promisify(execFile);

/** PSNR (dB, luma and chroma averaged) of b against a, frame by frame, by ffmpeg's psnr filter. */
async function psnr(a: string, b: string): Promise<number> {
  const { stderr } = await run(ffmpegPath, ['-hide_banner', '-i', a, '-i', b, '-lavfi', '[0:v][1:v]psnr', '-f', 'null', '-'], { maxBuffer: 1 << 24 });
  const average = /PSNR .*average:([0-9.]+|inf)/.exec(stderr)?.[1];
  if (!average) throw new Error(`no PSNR in ffmpeg's output: ${stderr.slice(-300)}`);
  return average === 'inf' ? Infinity : Number(average);
}

const signal = () => new AbortController().signal;

describe('highlight frames prepared by the classification', function () {
  let dir: string;
  let pan: string;
  let clip: ClipInfo;

  before(async () => {
    dir = tempDir('vigil-prepared-');
    // a pan at 25 fps (the copy keeps 10 of them a second) of a real 720p-sized picture
    pan = await panClip('grace_hopper.png', path.join(dir, 'pan.mp4'), 4, 25, 1280);
    clip = await probeClip(pan);
  });
  after(() => process.env.KEEP_TEST_DIR || fs.rmSync(dir, { recursive: true, force: true }));

  it('are the whole clip at the highlight\'s size and rate, written whole, and change nothing in the motion analysis', async () => {
    const folder = fs.mkdtempSync(path.join(dir, 'job-'));
    const copy = framesFor(clip, path.join(folder, 'highlight.mp4'))!;
    const { width, height, fps } = geometryOf(clip);
    expect(copy).to.include({ width, height, fps });
    expect(fps).to.equal(10);

    const [alone, withCopy] = [await analyseMotion(clip, signal()), await analyseMotion(clip, signal(), { copy })];
    expect(withCopy.samples.map((s) => s.energy)).to.deep.equal(alone.samples.map((s) => s.energy));
    expect(withCopy.pattern).to.deep.equal(alone.pattern);

    const size = fs.statSync(copy.path).size;
    expect(size % frameBytes(copy)).to.equal(0);
    expect(size / frameBytes(copy)).to.be.within(Math.round(clip.duration * fps) - 1, Math.round(clip.duration * fps) + 1);
    expect(await preparedFrames(clip, path.join(folder, 'highlight.mp4'))).to.deep.equal(copy);
    expect(fs.readdirSync(folder), 'no partial file left').to.deep.equal([path.basename(copy.path)]);
  });

  it('are not asked of a clip too long to copy whole, nor where the volume would keep less than its floor', () => {
    const long = { ...clip, duration: 600 };
    expect(framesFor(long, path.join(dir, 'highlight.mp4'))).to.equal(undefined);
    const free = fs.statfsSync(dir).bavail * fs.statfsSync(dir).bsize;
    expect(framesWithRoom(clip, path.join(dir, 'highlight.mp4'), 0)).to.deep.equal(framesFor(clip, path.join(dir, 'highlight.mp4')));
    expect(framesWithRoom(clip, path.join(dir, 'highlight.mp4'), free), 'the copy would eat into the floor').to.equal(undefined);
    const copyBytes = Math.ceil(clip.duration * 10) * frameBytes(geometryOf(clip));
    expect(framesWithRoom(clip, path.join(dir, 'highlight.mp4'), free - 2 * copyBytes), 'a copy taking half the room above the floor').to.equal(undefined);
    expect(framesWithRoom(clip, path.join(dir, 'gone', 'highlight.mp4'), 0), 'a folder deleted meanwhile').to.equal(undefined);
    const { width, height, fps } = geometryOf(clip);
    expect(Math.ceil(clip.duration * fps) * frameBytes({ width, height })).to.be.below(MAX_COPY_BYTES);
  });

  it('give the highlight and snapshots that the clip gives: same stream, same picture, boxes included', async () => {
    const box = (t: number): Box => ({ x: 0.1 + 0.1 * t, y: 0.2, w: 0.3, h: 0.5 });
    const analysis = analysisOf(personKeyframes(0, 3.5, 0.5, box));
    const fromClip = fs.mkdtempSync(path.join(dir, 'clip-'));
    const fromCopy = fs.mkdtempSync(path.join(dir, 'copy-'));
    const copy = framesFor(clip, path.join(fromCopy, 'highlight.mp4'))!;
    await analyseMotion(clip, signal(), { copy });

    const [a, b] = [path.join(fromClip, 'highlight.mp4'), path.join(fromCopy, 'highlight.mp4')];
    const [written, prepared] = [await renderHighlight({ clip, analysis, outPath: a, signal: signal() }), await renderHighlight({ clip, analysis, outPath: b, signal: signal() })];
    expect({ ...prepared, path: '' }).to.deep.equal({ ...written, path: '' });
    const [factsA, factsB] = await Promise.all([probe(a), probe(b)]);
    expect(factsB.streams[0]).to.deep.include({ codec_name: 'h264', pix_fmt: 'yuv420p', width: factsA.streams[0]!.width, height: factsA.streams[0]!.height });
    // The copy's decode skips deblocking, as the motion pass does, and its frames are scaled
    // before the boxes are drawn: close to, not exactly, the render from the clip.
    expect(await psnr(a, b), 'highlight PSNR, dB').to.be.above(35);
    // A snapshot is one frame: from the copy it is the 10 fps frame at the keyframe, from the
    // clip the 25 fps one, up to 0.04 s of the pan apart (the next test compares them on one grid).
    for (const name of [SNAPSHOT_FILE, CLEAN_SNAPSHOT_FILE]) {
      expect(await psnr(path.join(fromClip, name), path.join(fromCopy, name)), `${name} PSNR, dB`).to.be.above(20);
    }
  });

  it('are given up on a full volume while the motion pass goes on (root: a tiny tmpfs)', async function () {
    if (process.getuid?.() !== 0) {
      console.log('      skipped: mounting a tiny tmpfs volume needs root');
      this.skip();
    }
    const point = fs.mkdtempSync(path.join(dir, 'volume-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', point], { stdio: 'pipe' });
    } catch (err) {
      console.log(`      skipped: could not mount a tmpfs volume (${(err as Error).message.split('\n')[0]})`);
      this.skip();
    }
    try {
      const copy = framesFor(clip, path.join(point, 'highlight.mp4'))!;
      expect(Math.ceil(clip.duration * copy.fps) * frameBytes(copy), 'the copy does not fit').to.be.above(2 * 1024 * 1024);
      const alone = await analyseMotion(clip, signal());
      const withCopy = await analyseMotion(clip, signal(), { copy });
      expect(withCopy.samples.map((s) => s.energy)).to.deep.equal(alone.samples.map((s) => s.energy));
      expect(fs.readdirSync(point), 'neither the copy nor a part of it is left').to.deep.equal([]);
      expect(await preparedFrames(clip, path.join(point, 'highlight.mp4'))).to.equal(undefined);
    } finally {
      execFileSync('umount', ['-l', point]);
    }
  });

  it('of a clip longer than the highlight give the cut the classification chose', async () => {
    const long = await probeClip(await panClip('grace_hopper.png', path.join(dir, 'long.mp4'), 14, 10, 640));
    const analysis = analysisOf(personKeyframes(9, 13, 0.5, (t) => ({ x: 0.05 * t, y: 0.2, w: 0.3, h: 0.5 })));
    const fromClip = fs.mkdtempSync(path.join(dir, 'long-clip-'));
    const fromCopy = fs.mkdtempSync(path.join(dir, 'long-copy-'));
    const copy = framesFor(long, path.join(fromCopy, 'highlight.mp4'))!;
    await analyseMotion(long, signal(), { copy });
    const [a, b] = [path.join(fromClip, 'highlight.mp4'), path.join(fromCopy, 'highlight.mp4')];
    const written = await renderHighlight({ clip: long, analysis, outPath: a, signal: signal() });
    const prepared = await renderHighlight({ clip: long, analysis, outPath: b, signal: signal() });
    expect(written.duration).to.be.closeTo(10, 0.2);
    expect({ ...prepared, path: '' }).to.deep.equal({ ...written, path: '' });
    // the same seconds of the clip: a cut taken elsewhere would show the pan at another place
    expect(await psnr(a, b), 'highlight PSNR, dB').to.be.above(35);
    for (const name of [SNAPSHOT_FILE, CLEAN_SNAPSHOT_FILE]) {
      expect(await psnr(path.join(fromClip, name), path.join(fromCopy, name)), `${name} PSNR, dB`).to.be.above(30);
    }
  });
});
