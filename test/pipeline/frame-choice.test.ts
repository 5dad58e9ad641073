// Which moments of a clip the networks see (pipeline/frame-choice.ts), on motion samples made
// here: how many frames, which ones, and the square regions around small moving areas.
import { expect } from 'chai';
import type { Box } from '../../runtime/core/analysis.js';
import { area, squareRegion } from '../../runtime/pipeline/boxes.js';
import { anotherMoment, chooseFrames, CLOSER_SIDE, closerView, framesFor, naiveFrames, widerView } from '../../runtime/pipeline/frame-choice.js';
import { SAMPLE_FPS, type MotionSample } from '../../runtime/pipeline/motion.js';
import { sample } from '../support/findings.js';

const HD = { width: 1280, height: 720 };
const walker: Box = { x: 0.4, y: 0.3, w: 0.1, h: 0.4 };

/**
 * A clip of `seconds` at the motion pass's rate, moving under `moving` from `from` to `to`
 * seconds, each moving sample as lively as `energy(index)` says.
 */
function clip(seconds: number, from: number, to: number, energy: (index: number) => number = () => 0.05, moving: Box = walker): MotionSample[] {
  return Array.from({ length: Math.round(seconds * SAMPLE_FPS) }, (_, i) => {
    const t = i / SAMPLE_FPS;
    return t >= from && t < to ? sample(t, moving, energy(i)) : sample(t);
  });
}

describe('frame counts', () => {
  it('frames per clip follow how long things move, within the bound', () => {
    expect(framesFor(1, 8)).to.equal(2);
    expect(framesFor(6, 8)).to.equal(4);
    expect(framesFor(30, 8)).to.equal(8);
    expect(framesFor(30, 2)).to.equal(2);
  });

  it('never more frames than sampling the clip once a second would take', () => {
    expect(naiveFrames(1.2)).to.equal(1);
    expect(naiveFrames(0.2)).to.equal(1);
    expect(naiveFrames(2.9)).to.equal(3);
    expect(framesFor(1.2, 8, 1.2)).to.equal(1);
    expect(framesFor(3, 8, 3.4)).to.equal(2);
    expect(framesFor(12, 8, 4.4)).to.equal(4);
  });
});

describe('frame choice', () => {
  it('a clip where nothing moves, or no frame allowed: no frame for the networks', () => {
    expect(chooseFrames(clip(5, 0, 0), 8, HD, 300)).to.deep.equal([]);
    expect(chooseFrames(clip(5, 1, 3), 0, HD, 300)).to.deep.equal([]);
  });

  it('only moving samples are chosen, in time order, each once, as many as the moving stretch and the clip allow', () => {
    for (const [seconds, from, to, max] of [[10, 2, 8, 8], [10, 2, 8, 3], [3, 0.5, 2.5, 8], [30, 0, 30, 8], [4, 1, 1.3, 8]] as const) {
      const samples = clip(seconds, from, to);
      const chosen = chooseFrames(samples, max, HD, 300);
      const moving = samples.filter((s) => s.region).length;
      expect(chosen, `${from}-${to} s of ${seconds} s`).to.have.length(Math.min(framesFor(moving / SAMPLE_FPS, max, seconds), moving));
      expect(chosen.length).to.be.at.most(max).and.at.most(naiveFrames(seconds));
      const indexes = chosen.map((c) => c.index);
      expect(indexes).to.deep.equal([...new Set(indexes)].sort((a, b) => a - b));
      for (const c of chosen) {
        expect(c.sample).to.equal(samples[c.index]);
        expect(c.sample.t).to.be.at.least(from).and.below(to);
      }
    }
  });

  it('with several frames, each part of the moving stretch gives its liveliest sample', () => {
    // 12 s moving from 1 s: 120 moving samples (10 to 129), 8 frames; a peak in each eighth of them
    const peaks = [0, 1, 2, 3, 4, 5, 6, 7].map((p) => 10 + 15 * p + 7);
    const samples = clip(14, 1, 13, (i) => (peaks.includes(i) ? 0.2 + i / 1000 : 0.05));
    const chosen = chooseFrames(samples, 8, HD, 300);
    expect(chosen.map((c) => c.index)).to.deep.equal(peaks);
    // with fewer frames allowed, a part's liveliest is still the liveliest of that part
    const four = chooseFrames(samples, 4, HD, 300);
    expect(four).to.have.length(4);
    for (const [p, c] of four.entries()) {
      const part = samples.slice(10 + p * 30, 10 + (p + 1) * 30);
      expect(c.sample.energy).to.equal(Math.max(...part.map((s) => s.energy)));
    }
  });

  it('a clip too short for two frames gets one, from the middle of its moving stretch, however lively its ends', () => {
    const samples = clip(1, 0.2, 0.8, (i) => (i === 2 || i === 7 ? 0.9 : 0.05));
    const chosen = chooseFrames(samples, 8, HD, 300);
    expect(chosen).to.have.length(1);
    expect(chosen[0]!.index).to.equal(5); // moving samples 2..7: the middle one
  });

  it('a lone frame stands for where something stands out of the background, when some samples show it: not for the drops after the walker left', () => {
    // moving from 0.1 s to the end (rain keeps every sample changing); the walker stands out of the background from 0.1 to 0.6 s
    const samples = clip(2, 0.1, 2);
    for (const s of samples.slice(1, 7)) s.foreground[0] = 1;
    const [lone] = chooseFrames(samples, 1, HD, 300);
    expect(lone!.index).to.equal(4); // foreground samples 1..6: the middle one (the moving stretch's is 10)
    for (const s of samples) s.foreground[0] = 0;
    expect(chooseFrames(samples, 1, HD, 300)[0]!.index).to.equal(10);
  });

  it('another moment than a lone look: the liveliest of the other moving samples, framed as the frames of a longer clip are; none when nothing else moved', () => {
    const samples = clip(2, 0.2, 1.4, (i) => (i === 2 ? 0.4 : i === 3 ? 0.3 : 0.05));
    const [lone] = chooseFrames(samples, 1, HD, 300);
    const other = anotherMoment(samples, [lone!.index], HD, 300)!;
    expect(other.index).to.not.equal(lone!.index);
    expect(other.index).to.equal(lone!.index === 2 ? 3 : 2);
    expect(other.sample).to.equal(samples[other.index]);
    expect(other.crop).to.deep.equal(squareRegion(samples[other.index]!.region!, HD, 300));
    const moving = samples.flatMap((s, i) => (s.region ? [i] : []));
    expect(anotherMoment(samples, moving, HD, 300), 'every moving sample taken').to.equal(undefined);
  });

  it('around a small moving area, a square region at least the network input, holding the area and inside the frame', () => {
    const far: Box = { x: 0.9, y: 0.05, w: 0.03, h: 0.08 };
    const [chosen] = chooseFrames(clip(4, 1, 3, undefined, far), 2, HD, 300);
    const crop = chosen!.crop!;
    expect(crop.w * HD.width).to.be.closeTo(crop.h * HD.height, 1e-6);
    expect(crop.w * HD.width).to.be.at.least(300 - 1e-6);
    expect(crop.x).to.be.at.least(0);
    expect(crop.y).to.be.at.least(0);
    expect(crop.x + crop.w).to.be.at.most(1 + 1e-9);
    expect(crop.y + crop.h).to.be.at.most(1 + 1e-9);
    expect(crop.x).to.be.at.most(far.x);
    expect(crop.y).to.be.at.most(far.y);
    expect(crop.x + crop.w).to.be.at.least(far.x + far.w);
    expect(crop.y + crop.h).to.be.at.least(far.y + far.h);
  });

  it('a moving area that fills most of the frame gets no region: the whole frame serves', () => {
    // a square region covers at most 3/4 of a 4:3 frame: any area that needs its short side gets none
    const vga = { width: 640, height: 480 };
    const chosen = chooseFrames(clip(4, 1, 3, undefined, { x: 0.1, y: 0.05, w: 0.5, h: 0.9 }), 2, vga, 300);
    expect(chosen).to.have.length(2);
    for (const c of chosen) expect(c.crop).to.equal(undefined);
    // a small area in the same frame gets one, under 3/4 of the frame
    const [small] = chooseFrames(clip(4, 1, 3, undefined, { x: 0.4, y: 0.4, w: 0.1, h: 0.2 }), 2, vga, 300);
    expect(small!.crop).to.not.equal(undefined);
    expect(area(small!.crop!)).to.be.below(0.75);
  });

  it('a lone frame frames a small moving area at a closer look\'s scale, a larger one as any frame; several frames as before', () => {
    // the fisheye clip's two people at the far edge: 38 x 90 px of 480 x 270
    const fisheye = { width: 480, height: 270 };
    const people: Box = { x: 0, y: 0.22, w: 0.08, h: 0.33 };
    const [lone] = chooseFrames(clip(1.9, 0.1, 1, undefined, people), 1, fisheye, 300);
    expect(lone!.crop).to.deep.equal(squareRegion(people, fisheye, CLOSER_SIDE * 300));
    expect(lone!.crop!.w * fisheye.width).to.be.closeTo(150, 1e-6);
    // the same clip affording two frames: each region at least the detector's input
    for (const c of chooseFrames(clip(1.9, 0.1, 1, undefined, people), 2, fisheye, 300)) expect(c.crop!.w * fisheye.width).to.be.closeTo(270, 1e-6);
    // a moving area larger than half the input: 1.5 times its longer side, as any frame frames it
    const [near] = chooseFrames(clip(1, 0.2, 0.8), 8, HD, 300);
    expect(near!.crop).to.deep.equal(squareRegion(walker, HD, 300));
  });

  it('a lone frame framed closer, framed wider: as the frames of a longer clip are; none where the lone frame\'s view is that already', () => {
    const fisheye = { width: 480, height: 270 };
    const people: Box = { x: 0, y: 0.22, w: 0.08, h: 0.33 };
    const [lone] = chooseFrames(clip(1.9, 0.1, 1, undefined, people), 1, fisheye, 300);
    const wider = widerView(lone!, fisheye, 300)!;
    expect(wider.index).to.equal(lone!.index);
    expect(wider.sample).to.equal(lone!.sample);
    expect(wider.crop).to.deep.equal(squareRegion(people, fisheye, 300));
    const [near] = chooseFrames(clip(1, 0.2, 0.8), 8, HD, 300);
    expect(widerView(near!, HD, 300), 'a larger moving area: the same view').to.equal(undefined);
    const vga = { width: 640, height: 480 };
    const [whole] = chooseFrames(clip(1, 0.2, 0.8, undefined, { x: 0.1, y: 0.05, w: 0.5, h: 0.9 }), 8, vga, 300);
    expect(whole!.crop).to.equal(undefined);
    expect(widerView(whole!, vga, 300), 'the whole frame').to.equal(undefined);
  });

  it('another moment framed wider, framed closer: as a lone frame is; none where that is the view it has', () => {
    const fisheye = { width: 480, height: 270 };
    const people: Box = { x: 0, y: 0.22, w: 0.08, h: 0.33 };
    const samples = clip(1.9, 0.1, 1, undefined, people);
    const [lone] = chooseFrames(samples, 1, fisheye, 300);
    const other = anotherMoment(samples, [lone!.index], fisheye, 300)!;
    expect(other.crop!.w * fisheye.width, 'the other moment at the detector\'s input').to.be.closeTo(270, 1e-6);
    const closer = closerView(other, fisheye, 300)!;
    expect(closer.index).to.equal(other.index);
    expect(closer.sample).to.equal(other.sample);
    expect(closer.crop).to.deep.equal(squareRegion(people, fisheye, CLOSER_SIDE * 300));
    expect(closerView(closer, fisheye, 300), 'framed so already').to.equal(undefined);
    const [near] = chooseFrames(clip(1, 0.2, 0.8), 8, HD, 300);
    expect(closerView(near!, HD, 300), 'a moving area larger than either side: the same view').to.equal(undefined);
  });
});

