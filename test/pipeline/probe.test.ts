// What ffprobe says of a clip, with the real ffprobe and ffmpeg.
import path from 'node:path';
import { expect } from 'chai';
import sharp from 'sharp';
import { PipelineError } from '../../runtime/core/errors.js';
import { probeClip, probeCopied } from '../../runtime/pipeline/probe.js';
import { ffmpeg, tempDir } from '../support/clips.js';
import { media } from '../support/paths.js';

describe('probing a clip', () => {
  const original = media('real/worker_hardhat_walking.mp4');

  it('an MPEG-TS clip, as recorders write them, is described as the same video in MP4', async () => {
    // the static ffprobe build dies on every transport stream on some x86-64 CPUs: the video,
    // copied by ffmpeg, is probed instead there
    const ts = path.join(tempDir(), 'recorded.ts');
    await ffmpeg(['-i', original, '-c', 'copy', '-f', 'mpegts', ts]);
    const [mp4, transport] = [await probeClip(original), await probeClip(ts)];
    expect(transport).to.include({ path: ts, width: mp4.width, height: mp4.height, fps: mp4.fps, codec: mp4.codec });
    expect(transport.duration).to.be.closeTo(mp4.duration, 0.05);
    expect(transport.nframes).to.be.closeTo(mp4.nframes, 1);
  });

  it('the video copied into Matroska is described as ffprobe describes the clip itself', async () => {
    const direct = await probeClip(original);
    const copied = await probeCopied(original);
    expect(copied).to.include({ path: original, width: direct.width, height: direct.height, fps: direct.fps, codec: direct.codec });
    expect(copied.duration).to.be.closeTo(direct.duration, 0.05);
    expect(copied.nframes).to.be.closeTo(direct.nframes, 1);
  });

  it('a clip is decoded without probing where its header describes its video, its time starts at 0 and ffmpeg can seek in it so (not Matroska)', async () => {
    const dir = tempDir();
    // B-frames with no edit list: MP4's time starts at the first frame's delay, not at 0
    const delayed = path.join(dir, 'delayed.mp4');
    await ffmpeg(['-i', original, '-t', '1', '-c:v', 'libx264', '-bf', '3', '-use_editlist', '0', '-an', delayed]);
    const ts = path.join(dir, 'recorded.ts');
    await ffmpeg(['-i', original, '-t', '1', '-c', 'copy', '-f', 'mpegts', ts]);
    const mkv = path.join(dir, 'copied.mkv');
    await ffmpeg(['-i', original, '-t', '1', '-c', 'copy', mkv]);
    expect((await probeClip(original)).headerDescribed).to.equal(true);
    expect((await probeClip(mkv)).headerDescribed).to.equal(false); // described, but not seekable unprobed
    expect((await probeClip(delayed)).headerDescribed).to.equal(false);
    expect((await probeClip(ts)).headerDescribed).to.equal(false); // its streams are found in its packets
  });

  it('a clip shown turned a quarter (a phone held upright) is sized as shown, as ffmpeg decodes it', async () => {
    const dir = tempDir();
    const sideways = path.join(dir, 'sideways.mp4');
    await ffmpeg(['-i', original, '-t', '1', '-vf', 'transpose=clock', '-c:v', 'libx264', '-an', sideways]);
    const direct = await probeClip(original);
    const stored = await probeClip(sideways);
    expect([stored.width, stored.height]).to.deep.equal([direct.height, direct.width]);
    for (const degrees of [90, 270, 180]) {
      const tagged = path.join(dir, `turned-${degrees}.mp4`);
      await ffmpeg(['-i', sideways, '-c', 'copy', '-metadata:s:v:0', `rotate=${degrees}`, tagged]);
      const shown = await probeClip(tagged);
      const quarter = degrees !== 180;
      expect([shown.width, shown.height], `${degrees}`).to.deep.equal(quarter ? [direct.width, direct.height] : [stored.width, stored.height]);
      // the size ffmpeg's frames come out at
      const frame = path.join(dir, `turned-${degrees}.png`);
      await ffmpeg(['-i', tagged, '-frames:v', '1', frame]);
      const { width, height } = await sharp(frame).metadata();
      expect({ width, height }, `${degrees}`).to.deep.equal({ width: shown.width, height: shown.height });
    }
  });

  it('an interlaced clip is known as one (it is deinterlaced as decoded), a progressive one is not', async () => {
    const interlaced = path.join(tempDir(), 'interlaced.mp4');
    await ffmpeg(['-i', original, '-t', '1', '-vf', 'scale=480:272,tinterlace=interleave_top,setfield=tff', '-flags', '+ildct+ilme', '-c:v', 'libx264', '-x264opts', 'tff=1', '-an', interlaced]);
    expect((await probeClip(interlaced)).interlaced).to.equal(true);
    expect((await probeClip(original)).interlaced).to.equal(undefined);
  });

  it('a clip whose pixels are not square is sized as shown, and decoded at its stored size', async () => {
    const dir = tempDir();
    const pal = path.join(dir, 'pal-wide.mp4');
    await ffmpeg(['-i', original, '-t', '1', '-vf', 'scale=720:576,setdar=16/9', '-c:v', 'libx264', '-an', pal]);
    expect(await probeClip(pal)).to.deep.include({ width: 1024, height: 576, decoded: { width: 720, height: 576 } });
    // a shape no camera writes (45:1) is taken as square
    const odd = path.join(dir, 'odd-shape.mp4');
    await ffmpeg(['-i', original, '-t', '1', '-vf', 'setsar=45', '-c:v', 'libx264', '-an', odd]);
    const probed = await probeClip(odd);
    expect([probed.width, probed.height, probed.decoded]).to.deep.equal([480, 270, undefined]);
    // a scaler's rounding (a view scaled to even sides keeps its shape in its pixels') is square
    const scaled = path.join(dir, 'scaled.mp4');
    await ffmpeg(['-i', original, '-t', '1', '-vf', 'scale=trunc(iw*0.7/2)*2:-2', '-c:v', 'libx264', '-an', scaled]);
    const rounded = await probeClip(scaled);
    expect([rounded.width, rounded.height, rounded.decoded]).to.deep.equal([336, 190, undefined]);
  });

  it('a file ffmpeg cannot read either is not a readable video, with ffmpeg\'s reason and no path', async () => {
    let error: unknown;
    try {
      await probeCopied(path.join(media('real'), 'README.md'));
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(PipelineError);
    expect((error as Error).message).to.match(/^not a readable video: /);
    expect((error as Error).message).to.not.include(media('real'));
  });
});
