// The highlight renderer against the real ffmpeg: stream format, the cut,
// boxes drawn where the analysis put them, the caption, failures and abort.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Box } from '../../runtime/core/analysis.js';
import { probeClip } from '../../runtime/pipeline/probe.js';
import { MAX_WIDTH, RISK_COLOURS, geometryOf } from '../../runtime/highlight/filters.js';
import { MAX_HIGHLIGHT_S, NOTHING_HIGHLIGHT_S, planHighlight } from '../../runtime/highlight/plan.js';
import { renderHighlightVideo } from '../../runtime/highlight/render.js';
import { renderSnapshots } from '../../runtime/highlight/snapshot.js';
import { ffmpeg, sequenceClip, stillClip, tempDir } from '../support/clips.js';
import { media } from '../support/paths.js';
import { analysisOf, combing, distance, frameAt, meanDiff, meanLuma, personKeyframes, pixel, probe, type Frame, type Rgb } from './support.js';

const BOX_RGB = ((hex: string): Rgb => [1, 3, 5].map((i) => parseInt(hex.slice(2).slice(i - 1, i + 1), 16)) as Rgb)(RISK_COLOURS.danger);
const FRAME_TIME_TOLERANCE_S = 0.15;

/** Is this pixel the drawn box colour (after yuv420p and H.264), and clearly not what the source has there? */
function isBoxColour(p: Rgb): boolean {
  return distance(p, BOX_RGB) < 90;
}

describe('highlight renderer', function () {
  let dir: string;
  let grace: string;
  let n = 0;
  const out = () => path.join(dir, `highlight-${++n}.mp4`);
  const signal = () => new AbortController().signal;

  before(async () => {
    dir = tempDir('vigil-highlight-');
    grace = await stillClip('grace_hopper.png', path.join(dir, 'grace.mp4'), 3, 10, 640);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes H.264 yuv420p with faststart, no audio, at most MAX_WIDTH (640) wide, cut to at most 10 s', async () => {
    const wide = path.join(dir, 'wide.mp4');
    await ffmpeg([
      '-loop', '1', '-framerate', '30', '-i', media('kite_and_cold.jpg'), '-f', 'lavfi', '-i', 'sine=frequency=440:duration=14',
      '-t', '14', '-vf', 'scale=1600:900,setsar=1,format=yuv420p', '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', '-shortest', wide,
    ]);
    const clip = await probeClip(wide);
    const target = out();
    const analysis = analysisOf(personKeyframes(0, 13.5, 0.5, (t) => ({ x: 0.1 + 0.03 * t, y: 0.3, w: 0.1, h: 0.3 }), 0.8));
    await renderHighlightVideo({ clip, analysis, outPath: target, signal: signal() });

    const facts = await probe(target);
    expect(facts.streams.map((s) => s.codec_type)).to.deep.equal(['video']);
    const video = facts.streams[0];
    expect(video.codec_name).to.equal('h264');
    expect(video.pix_fmt).to.equal('yuv420p');
    expect(video.width).to.equal(MAX_WIDTH);
    expect(video.height).to.equal(geometryOf(clip).height);
    expect(video.height! % 2).to.equal(0);
    const duration = Number(facts.format.duration);
    expect(duration).to.be.within(MAX_HIGHLIGHT_S - 0.5, MAX_HIGHLIGHT_S + 0.2);
    // +faststart: the index (moov) comes before the media data (mdat)
    const head = fs.readFileSync(target);
    expect(head.indexOf('moov')).to.be.greaterThan(0).and.lessThan(head.indexOf('mdat'));
    // nothing but the highlight is left in the folder
    expect(fs.readdirSync(dir).filter((f) => f.startsWith(path.basename(target)))).to.deep.equal([path.basename(target)]);
  });

  it('draws the box where the analysis put the person (grace_hopper)', async () => {
    const clip = await probeClip(grace);
    const face: Box = { x: 0.3, y: 0.25, w: 0.4, h: 0.45 };
    const target = out();
    await renderHighlightVideo({ clip, analysis: analysisOf(personKeyframes(0, 3, 1, () => face)), outPath: target, signal: signal() });
    const [annotated, source] = await Promise.all([frameAt(target, 1.5), frameAt(grace, 1.5)]);
    expect([annotated.width, annotated.height]).to.deep.equal([source.width, source.height]);

    const left = Math.round(face.x * annotated.width) + 1;
    const right = Math.round((face.x + face.w) * annotated.width) - 2;
    const top = Math.round(face.y * annotated.height) + 1;
    const bottom = Math.round((face.y + face.h) * annotated.height) - 2;
    const midY = Math.round((face.y + face.h / 2) * annotated.height);
    const midX = Math.round((face.x + face.w / 2) * annotated.width);
    for (const [x, y] of [[left, midY], [right, midY], [midX, top], [midX, bottom]]) {
      const drawn = pixel(annotated, x, y);
      const before = pixel(source, x, y);
      expect(isBoxColour(drawn), `box colour at ${x},${y}: ${drawn}`).to.equal(true);
      expect(distance(drawn, before), `changed at ${x},${y}`).to.be.greaterThan(60);
    }
    // just outside the box and well inside it the picture is untouched
    for (const [x, y] of [[left - 10, midY], [right + 10, midY], [midX, midY]]) {
      expect(distance(pixel(annotated, x, y), pixel(source, x, y)), `unchanged at ${x},${y}`).to.be.lessThan(40);
    }
  });

  it('moves the box with the object between inferred frames', async () => {
    const clip = await probeClip(grace);
    const box = (t: number): Box => ({ x: 0.1 + 0.2 * t, y: 0.3, w: 0.25, h: 0.4 });
    const target = out();
    await renderHighlightVideo({ clip, analysis: analysisOf(personKeyframes(0, 2, 2, box)), outPath: target, signal: signal() });
    const [frame, source] = await Promise.all([frameAt(target, 1), frameAt(grace, 1)]);
    const midY = Math.round(0.5 * frame.height);
    // the leftmost column on the row through the middle of the box that was drawn on (the flag has red of its own)
    const firstDrawn = (f: Frame) => {
      for (let x = 0; x < f.width; x++) {
        if (isBoxColour(pixel(f, x, midY)) && distance(pixel(f, x, midY), pixel(source, x, midY)) > 60) return x;
      }
      return -1;
    };
    const edge = firstDrawn(frame);
    const interpolated = box(1).x * frame.width;
    const tolerance = 0.2 * FRAME_TIME_TOLERANCE_S * frame.width + 4;
    expect(edge, 'left edge at t=1, between the inferred boxes').to.be.within(interpolated - tolerance, interpolated + tolerance);
    // not frozen at either inferred frame's box
    expect(Math.abs(edge - box(0).x * frame.width)).to.be.greaterThan(40);
    expect(Math.abs(edge - box(2).x * frame.width)).to.be.greaterThan(40);
  });

  it('cuts the window holding the best keyframes out of a long clip', async () => {
    const long = await sequenceClip(['cat.png', 'owl.jpg', 'grace_hopper.png', 'sunflower.png'], path.join(dir, 'sequence.mp4'), 4, 10, 640);
    const clip = await probeClip(long);
    // the person is in the third image (8 s to 12 s); elsewhere the analysis found little
    const keyframes = [
      ...personKeyframes(0.5, 7.5, 1, () => ({ x: 0.4, y: 0.1, w: 0.2, h: 0.4 }), 0.05),
      ...personKeyframes(8.5, 11.5, 1, () => ({ x: 0.35, y: 0.1, w: 0.3, h: 0.45 }), 0.95),
      ...personKeyframes(12.5, 15.5, 1, () => ({ x: 0.4, y: 0.1, w: 0.2, h: 0.4 }), 0.05),
    ];
    const analysis = analysisOf(keyframes);
    const { window } = planHighlight(analysis, clip.duration);
    expect(window.start).to.be.at.most(8.5);
    expect(window.end).to.be.at.least(11.5);

    const target = out();
    await renderHighlightVideo({ clip, analysis, outPath: target, signal: signal() });
    const duration = Number((await probe(target)).format.duration);
    expect(duration).to.be.within(MAX_HIGHLIGHT_S - 0.5, MAX_HIGHLIGHT_S + 0.2);
    // below the boxes, each highlight frame is the source frame at window.start + its time
    const at = 10 - window.start;
    const [shown, sourceThen, sourceWithoutOffset] = await Promise.all([frameAt(target, at), frameAt(long, 10), frameAt(long, at)]);
    const below = [Math.round(shown.height * 0.7), shown.height];
    expect(meanDiff(shown, sourceThen, below[0], below[1])).to.be.lessThan(8);
    expect(meanDiff(shown, sourceWithoutOffset, below[0], below[1])).to.be.greaterThan(20);
  });

  it('gives a clip where nothing was found a short highlight with the caption', async () => {
    const long = path.join(dir, 'sequence.mp4');
    const clip = await probeClip(long);
    const keyframes = [1, 5, 9, 13].map((t) => ({ t, score: 0.1, detections: [] }));
    const target = out();
    await renderHighlightVideo({ clip, analysis: analysisOf(keyframes, 'safe', ['NOTHING']), outPath: target, signal: signal() });
    const duration = Number((await probe(target)).format.duration);
    expect(duration).to.be.greaterThan(0).and.at.most(NOTHING_HIGHLIGHT_S + 0.2);
    const { window } = planHighlight(analysisOf(keyframes, 'safe', ['NOTHING']), clip.duration);
    const [shown, source] = await Promise.all([frameAt(target, 0.5), frameAt(long, window.start + 0.5)]);
    // the caption band darkens the top of the frame; the rest is the clip as it was
    const band = Math.round(shown.height * 0.05);
    expect(meanLuma(shown, 0, band)).to.be.lessThan(meanLuma(source, 0, band) * 0.8);
    expect(meanDiff(shown, source, Math.round(shown.height * 0.3), shown.height)).to.be.lessThan(8);
  });

  // An analog camera's recorder stores interlaced frames. A clip too long for the classification
  // to prepare its highlight's frames is read again by the render and the snapshot: they make
  // each frame one moment too, as the classification did, or every moving edge is combed.
  it('renders an interlaced clip read from itself one moment a frame, as a progressive one: highlight and snapshot', async () => {
    // a white bar sweeping across a gray view, 600 px a second; woven two frames a frame, its fields 1/50 s apart
    const sweep = path.join(dir, 'sweep.mp4');
    await ffmpeg(['-f', 'lavfi', '-i', 'color=gray:s=640x360:r=50:d=2', '-f', 'lavfi', '-i', 'color=white:s=40x240:r=50:d=2',
      '-filter_complex', "[0:v][1:v]overlay=x='mod(t*600,600)':y=60,format=yuv420p", '-c:v', 'libx264', '-crf', '18', sweep]);
    const woven = path.join(dir, 'sweep-interlaced.mp4');
    await ffmpeg(['-i', sweep, '-vf', 'tinterlace=interleave_top,setfield=tff', '-flags', '+ildct+ilme', '-c:v', 'libx264', '-x264opts', 'tff=1', '-crf', '18', woven]);
    const analysis = analysisOf(personKeyframes(0.5, 0.5, 1, () => ({ x: 0.05, y: 0.8, w: 0.1, h: 0.1 })));
    const rendered = async (file: string) => {
      const folder = path.join(dir, `${path.basename(file)}.media`);
      fs.mkdirSync(folder);
      const clip = await probeClip(file);
      const outPath = path.join(folder, 'highlight.mp4');
      await renderHighlightVideo({ clip, analysis, outPath, signal: signal() });
      await renderSnapshots({ clip, analysis, outPath, signal: signal() });
      return { interlaced: clip.interlaced, highlight: combing(await frameAt(outPath, 0.5)), snapshot: combing(await frameAt(path.join(folder, 'snapshot-clean.jpg'))) };
    };
    const progressive = await rendered(sweep);
    const interlaced = await rendered(woven);
    expect(interlaced.interlaced, 'the woven clip is probed as interlaced').to.equal(true);
    expect(combing(await frameAt(woven, 0.5)), 'the source itself is combed').to.be.greaterThan(2 * progressive.highlight);
    // as stored, the highlight's frames came out four times as combed as the progressive clip's (4.0 against 1.0: its box and caption)
    expect(interlaced.highlight).to.be.lessThan(progressive.highlight * 1.25);
    expect(interlaced.snapshot).to.be.lessThan(progressive.snapshot + 0.5);
  });

  it('fails with a clear error on a clip that does not decode, and leaves no file', async () => {
    const good = await stillClip('grace_hopper.png', path.join(dir, 'fast.mp4'), 2, 10, 320);
    const faststart = path.join(dir, 'faststart.mp4');
    await ffmpeg(['-i', good, '-c', 'copy', '-movflags', '+faststart', faststart]);
    const clip = await probeClip(faststart);
    // keep the container's index, destroy every coded frame
    const bytes = fs.readFileSync(faststart);
    const mdat = bytes.indexOf('mdat');
    for (let i = mdat + 4; i < bytes.length; i++) bytes[i] = (i * 7919) & 0xff;
    const broken = path.join(dir, 'broken.mp4');
    fs.writeFileSync(broken, bytes);

    const target = out();
    let error: Error | undefined;
    await renderHighlightVideo({ clip: { ...clip, path: broken }, analysis: analysisOf(personKeyframes(0, 1, 1, () => ({ x: 0.2, y: 0.2, w: 0.3, h: 0.3 }))), outPath: target, signal: signal() })
      .catch((err: Error) => (error = err));
    expect(error, 'the render failed').to.be.instanceOf(Error);
    expect(error!.message).to.match(/ffmpeg|decoded/);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith(path.basename(target)))).to.deep.equal([]);
  });

  it('kills ffmpeg when aborted and leaves no file', async () => {
    const long = path.join(dir, 'sequence.mp4');
    const clip = await probeClip(long);
    const target = out();
    const controller = new AbortController();
    const rendering = renderHighlightVideo({ clip, analysis: analysisOf(personKeyframes(0, 15, 0.5, (t) => ({ x: 0.02 * t, y: 0.1, w: 0.2, h: 0.3 }))), outPath: target, signal: controller.signal });
    // abort once ffmpeg is running (it has read its filter script)
    const deadline = Date.now() + 10_000;
    while (!fs.existsSync(`${target}.filters`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    controller.abort(new Error('deleted'));
    let error: Error | undefined;
    await rendering.catch((err: Error) => (error = err));
    expect(error?.message).to.equal('deleted');
    expect(fs.readdirSync(dir).filter((f) => f.startsWith(path.basename(target)))).to.deep.equal([]);
  });
});
