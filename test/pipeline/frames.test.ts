// Raw frames on pipes from the real ffmpeg: one decode split to several sizes.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { PipelineError } from '../../runtime/core/errors.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ffmpegPath } from '../../runtime/core/tools.js';
import { exactScale, readFrameSets, readSamples, readSparseGrays } from '../../runtime/pipeline/frames.js';
import { analyseMotion, SAMPLE_FPS } from '../../runtime/pipeline/motion.js';
import { probeClip } from '../../runtime/pipeline/probe.js';
import { media } from '../support/paths.js';
import { ffmpeg, tempDir } from '../support/clips.js';

/** The reference: one decode at one size, the filters given whole, its RGB frames. */
async function decodeAlone(input: string, filters: string, width: number, height: number): Promise<Buffer[]> {
  const { stdout } = await promisify(execFile)(ffmpegPath, [
    '-hide_banner', '-loglevel', 'error', '-nostdin', '-i', input, '-an', '-sn', '-dn', '-vf', filters, '-vsync', '0', '-pix_fmt', 'rgb24', '-f', 'rawvideo', 'pipe:1',
  ], { encoding: 'buffer', maxBuffer: 1 << 28 });
  const frameBytes = width * height * 3;
  return Array.from({ length: Math.floor(stdout.length / frameBytes) }, (_, i) => stdout.subarray(i * frameBytes, (i + 1) * frameBytes));
}

const meanAbsDiff = (a: Buffer, b: Buffer): number => {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
};

describe('frames decoded once at several sizes', () => {
  const select = `fps=2,select='eq(n\\,1)+eq(n\\,4)+eq(n\\,9)'`;

  it('yields each selected frame at every size, the same pixels as a decode at that size alone', async () => {
    const signal = new AbortController().signal;
    const sizes = [{ width: 640, height: 360 }, { width: 224, height: 224 }, { width: 257, height: 257 }];
    const sets: Buffer[][] = [];
    for await (const set of readFrameSets({ input: media('hand_ball.mp4'), filters: select, sizes, signal })) sets.push(set);
    expect(sets).to.have.length(3);
    for (const set of sets) expect(set.map((b) => b.length)).to.deep.equal(sizes.map((s) => s.width * s.height * 3));

    const alone = await decodeAlone(media('hand_ball.mp4'), `${select},scale=224:224`, 224, 224);
    expect(alone).to.have.length(3);
    alone.forEach((frame, i) => expect(meanAbsDiff(frame, sets[i]![1]!)).to.be.below(1));
    // Different moments of a moving clip really are different frames.
    expect(meanAbsDiff(sets[0]![1]!, sets[2]![1]!)).to.be.above(1);
  });

  it('scales a resized output on the exact path, and only converts an output at the clip\'s size', async () => {
    // hand_ball.mp4 is 720x576; the same filters alone give the same bytes
    const signal = new AbortController().signal;
    const source = { width: 720, height: 576 };
    const sizes = [source, { width: 300, height: 300 }];
    const sets: Buffer[][] = [];
    for await (const set of readFrameSets({ input: media('hand_ball.mp4'), source, filters: select, sizes, signal })) sets.push(set.map((b) => Buffer.from(b)));
    expect(sets).to.have.length(3);
    for (const [i, scale] of [[0, 'scale=720:576:flags=bilinear'], [1, exactScale(300, 300, 'bilinear')]] as const) {
      const { width, height } = sizes[i]!;
      const alone = await decodeAlone(media('hand_ball.mp4'), `${select},${scale}`, width, height);
      expect(alone.map((f, j) => f.equals(sets[j]![i]!)), scale).to.deep.equal([true, true, true]);
    }
  });

  it('a small clip\'s samples kept by the motion pass are the bytes the chosen frames\' own decode gives', async () => {
    const signal = new AbortController().signal;
    const clip = await probeClip(media('indoor_plants.mp4'));
    const sizes = [{ width: clip.width, height: clip.height }, { width: 300, height: 300 }, { width: 224, height: 224 }];
    const motion = await analyseMotion(clip, signal, { keep: { sizes, source: clip, maxBytes: 64 * 1024 * 1024 } });
    const alone = await analyseMotion(clip, signal);
    expect(motion.frames).to.have.length(motion.samples.length);
    expect(alone.frames).to.equal(undefined);
    // a clip longer than its header said stops being kept at the bound: its chosen frames are decoded again
    const bounded = await analyseMotion(clip, signal, { keep: { sizes, source: clip, maxBytes: 3 * 650_000 } });
    expect(bounded.frames).to.equal(undefined);
    expect(bounded.samples.map((s) => s.energy)).to.deep.equal(motion.samples.map((s) => s.energy));
    expect(motion.samples.length).to.equal(alone.samples.length);
    // the chosen frames' decode (the pipeline's, for a larger clip): samples 3 and 9 at the same sizes
    const chosen: Buffer[][] = [];
    for await (const set of readFrameSets({ input: clip.path, source: clip, filters: `fps=${SAMPLE_FPS},select='eq(n\\,3)+eq(n\\,9)'`, sizes, signal })) chosen.push(set.map((b) => Buffer.from(b)));
    expect(chosen).to.have.length(2);
    for (const [j, index] of [3, 9].entries()) {
      expect(motion.frames![index]!.map((b, i) => b.equals(chosen[j]![i]!)), `sample ${index}`).to.deep.equal([true, true, true]);
    }
  });

  it('the motion pass\'s finer frames, given back after a clip, serve the next clip\'s pass unchanged', async () => {
    const signal = new AbortController().signal;
    const mouse = await probeClip(media('nuisance/mouse_arena_topdown.mp4'));
    const plants = await probeClip(media('indoor_plants.mp4'));
    const outcome = (m: Awaited<ReturnType<typeof analyseMotion>>) => JSON.stringify({ pattern: m.pattern, movers: m.smallMovers() });
    const first = await analyseMotion(mouse, signal);
    const seen = outcome(first);
    expect(first.smallMovers().creatures.length).to.be.above(0);
    first.release();
    expect(() => first.smallMovers()).to.throw(/released/);
    // the plants' pass takes the mouse's frames, gives them back; the mouse's next pass takes them again
    const between = await analyseMotion(plants, signal);
    outcome(between);
    between.release();
    const again = await analyseMotion(mouse, signal);
    expect(outcome(again)).to.equal(seen);
    again.release();
  });

  /** Samples of a clip, decoded from its start as the motion pass samples it, at one size. */
  async function fromStart(input: string, indices: number[], size: { width: number; height: number }): Promise<Buffer[]> {
    const sets: Buffer[] = [];
    const select = indices.map((i) => `eq(n\\,${i})`).join('+');
    for await (const [frame] of readFrameSets({ input, filters: `fps=${SAMPLE_FPS},select='${select}'`, sizes: [size], signal: new AbortController().signal })) sets.push(frame!);
    return sets;
  }

  async function sampled(input: string, indices: number[], size: { width: number; height: number }, headerDescribed = false) {
    const got: Array<{ index: number; frame: Buffer }> = [];
    for await (const { index, views } of readSamples({ input, headerDescribed, sizes: [size], fps: SAMPLE_FPS, indices, signal: new AbortController().signal })) got.push({ index, frame: views[0]! });
    return got;
  }

  it('samples late in a clip, decoded from the keyframe before them, are the frames a decode from the start gives', async () => {
    // a camera's keyframe every second, at 12 fps: half its frames fall half way between two samples
    const clip = path.join(tempDir(), 'gop-12fps.mp4');
    await ffmpeg(['-i', media('real/worker_hardhat_walking.mp4'), '-vf', 'fps=12', '-g', '12', '-c:v', 'libx264', '-an', clip]);
    const size = { width: 240, height: 136 };
    for (const indices of [[13, 22, 35, 41], [25, 26, 27, 28, 29, 30]]) {
      const got = await sampled(clip, indices, size);
      const reference = await fromStart(clip, indices, size);
      expect(got.map((g) => g.index)).to.deep.equal(indices);
      expect(got.map((g, i) => g.frame.equals(reference[i]!)), indices.join(',')).to.deep.equal(indices.map(() => true));
    }
  });

  it('a transport stream with no keyframe near its samples still gives them, the same frames', async () => {
    // its one keyframe at the start: the seek finds nothing to decode from, the start is decoded
    const clip = path.join(tempDir(), 'one-keyframe.ts');
    await ffmpeg(['-i', media('real/worker_hardhat_walking.mp4'), '-g', '1000', '-c:v', 'libx264', '-an', '-f', 'mpegts', clip]);
    const size = { width: 240, height: 136 };
    const indices = [31, 40, 45];
    const got = await sampled(clip, indices, size);
    const reference = await fromStart(clip, indices, size);
    expect(got.map((g) => g.index)).to.deep.equal(indices);
    expect(got.map((g, i) => g.frame.equals(reference[i]!))).to.deep.equal([true, true, true]);
  });

  it('samples late in a clip of each container, decoded from a seek opened as its probe says, are the frames a decode from the start gives', async () => {
    // a large clip's chosen frames are decoded again from a seek: of a Matroska or WebM clip
    // opened without probing, where the seek went back to its one keyframe, ffmpeg gave none
    // ("Cannot determine format of input stream 0:0 after EOF")
    const dir = tempDir();
    const source = ['-i', media('real/worker_hardhat_walking.mp4'), '-t', '3', '-an'];
    const clips = [
      ['clip.mkv', '-c:v', 'libx264'], ['clip.webm', '-c:v', 'libvpx', '-b:v', '500k', '-deadline', 'realtime'],
      ['clip.mp4', '-c:v', 'libx264'], ['clip.mov', '-c:v', 'libx264'], ['clip.avi', '-c:v', 'mpeg4', '-q:v', '4'],
    ];
    const size = { width: 240, height: 136 };
    const indices = [14, 22, 27];
    for (const [name, ...codec] of clips) {
      const file = path.join(dir, name!);
      await ffmpeg([...source, ...codec, file]);
      const got = await sampled(file, indices, size, (await probeClip(file)).headerDescribed);
      const reference = await fromStart(file, indices, size);
      expect(got.map((g) => g.index), name).to.deep.equal(indices);
      expect(got.map((g, i) => g.frame.equals(reference[i]!)), name).to.deep.equal([true, true, true]);
    }
  });

  it('a clip decoded without probing (its header describes it) gives the motion pass the same frames', async () => {
    const clip = await probeClip(media('real/lot_car_cyclist_walker.mp4'));
    expect(clip.headerDescribed).to.equal(true);
    const signal = new AbortController().signal;
    const decode = async (headerDescribed: boolean) => {
      const frames: Buffer[] = [];
      for await (const [gray] of readFrameSets({ input: clip.path, headerDescribed, gray: { width: 96, height: 54 }, sizes: [], filters: `fps=${SAMPLE_FPS}`, signal })) frames.push(gray!);
      return Buffer.concat(frames);
    };
    const [probed, unprobed] = [await decode(false), await decode(true)];
    expect(probed.length / (96 * 54)).to.be.closeTo(clip.duration * SAMPLE_FPS, 1);
    expect(unprobed.equals(probed)).to.equal(true);
  });

  it('a decode of sparse grays alone hands over every picked frame, or stops once the caller has enough', async () => {
    const input = media('real/worker_hardhat_walking.mp4');
    const clip = await probeClip(input);
    const picked = Math.ceil(clip.duration * SAMPLE_FPS / 2); // every other sample
    const decode = async (enough?: (count: number) => boolean) => {
      const frames: Buffer[] = [];
      const request = { input, filters: `fps=${SAMPLE_FPS}`, signal: new AbortController().signal, sparseGrays: [{ width: 64, height: 36, select: 'not(mod(n\\,2))', onFrame: (f: Buffer) => frames.push(f) }] };
      await readSparseGrays(request, enough && (() => enough(frames.length)));
      return frames;
    };
    const all = await decode();
    expect(all.length).to.be.within(picked - 1, picked);
    for (const f of all) expect(f.length).to.equal(64 * 36);
    const some = await decode((count) => count >= 3);
    expect(some.length).to.be.at.least(3).and.below(all.length / 2);
    for (const [k, f] of some.entries()) expect(f.equals(all[k]!)).to.equal(true);
  });

  it('fails with a decode error naming ffmpeg on a file that is not a video', async () => {
    const bad = path.join(tempDir(), 'not-a-video.mp4');
    fs.writeFileSync(bad, 'this is text, not a video');
    const sizes = [{ width: 64, height: 64 }, { width: 32, height: 32 }];
    let error: unknown;
    try {
      for await (const _ of readFrameSets({ input: bad, filters: 'fps=1', sizes, signal: new AbortController().signal })) { /* none expected */ }
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(PipelineError);
    expect((error as Error).message).to.match(/ffmpeg could not decode/);
  });
});
