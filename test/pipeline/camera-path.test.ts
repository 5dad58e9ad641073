// Where the camera pointed (pipeline/camera-path.ts): views of a real picture laid at known
// offsets, to a fraction of a pixel, as a panning camera would give them; then the motion pass
// on clips panned across real pictures, and on a real clip from a still camera.
import path from 'node:path';
import { expect } from 'chai';
import sharp from 'sharp';
import { laidOnto, steadyPan, viewPath, viewShift } from '../../runtime/pipeline/camera-path.js';
import type { Box } from '../../runtime/core/analysis.js';
import { analyseMotion, type MotionSample } from '../../runtime/pipeline/motion.js';
import { probeClip } from '../../runtime/pipeline/probe.js';
import { panClip, tempDir, walkerClip } from '../support/clips.js';
import { media } from '../support/paths.js';
import { seeded } from '../support/random.js';
import { weatherClip } from '../support/weather.js';

const WIDTH = 96;
const HEIGHT = 54;

describe('where the camera pointed', function () {
  this.timeout(60_000);
  let picture: { data: Buffer; width: number; height: number };

  before(async () => {
    const { data, info } = await sharp(media('traffic_0001.png')).resize(240).grayscale().raw().toBuffer({ resolveWithObject: true });
    picture = { data, width: info.width, height: info.height };
  });

  /** The camera's 96x54 view of the picture with its top-left corner at (x0, y0): bilinear, so a fraction of a pixel shows. */
  const view = (x0: number, y0: number): Uint8Array => {
    const out = new Uint8Array(WIDTH * HEIGHT);
    for (let y = 0; y < HEIGHT; y++) {
      for (let x = 0; x < WIDTH; x++) {
        const sx = x0 + x, sy = y0 + y;
        const ix = Math.floor(sx), iy = Math.floor(sy), fx = sx - ix, fy = sy - iy;
        const at = (px: number, py: number) => picture.data[py * picture.width + px]!;
        out[y * WIDTH + x] = Math.round((at(ix, iy) * (1 - fx) + at(ix + 1, iy) * fx) * (1 - fy) + (at(ix, iy + 1) * (1 - fx) + at(ix + 1, iy + 1) * fx) * fy);
      }
    }
    return out;
  };

  it('follows a pan to a fraction of a pixel: the view turning right and down, its content sliding 0.7 px left and 0.3 px up a sample', () => {
    const frames = Array.from({ length: 30 }, (_, k) => view(40 + 0.7 * k, 30 + 0.3 * k));
    const end = viewPath(frames, WIDTH, HEIGHT, () => true).at(-1)!;
    expect(end.x * WIDTH).to.be.closeTo(-0.7 * 29, 1);
    expect(end.y * HEIGHT).to.be.closeTo(-0.3 * 29, 0.5);
  });

  it('follows a camera swung back and forth by the wind, and a pan speeding up', () => {
    const swing = (k: number) => 3 * Math.sin(k / 2);
    const swung = viewPath(Array.from({ length: 25 }, (_, k) => view(60 + swing(k), 40)), WIDTH, HEIGHT, () => true);
    swung.forEach((v, k) => expect(v.x * WIDTH, `sample ${k}`).to.be.closeTo(-swing(k) + swing(0), 0.6));
    const faster = (k: number) => 0.1 * k * k; // up to 2.4 px a sample
    const pan = viewPath(Array.from({ length: 13 }, (_, k) => view(30 + faster(k), 40)), WIDTH, HEIGHT, () => true);
    expect(pan.at(-1)!.x * WIDTH).to.be.closeTo(-faster(12), 1);
  });

  it('a thing crossing a still view does not move it, and where the camera held still the view stays', () => {
    const frames = Array.from({ length: 10 }, (_, k) => {
      const frame = view(60, 40);
      for (let y = 20; y < 40; y++) for (let x = 10 + 4 * k; x < 20 + 4 * k; x++) frame[y * WIDTH + x] = 20; // a dark body walking right
      return frame;
    });
    for (const v of viewPath(frames, WIDTH, HEIGHT, () => true)) expect(Math.hypot(v.x * WIDTH, v.y * HEIGHT)).to.be.below(0.3);
    const held = viewPath(Array.from({ length: 5 }, (_, k) => view(40 + 2 * k, 30)), WIDTH, HEIGHT, () => false);
    expect(held.every((v) => v.x === 0 && v.y === 0)).to.equal(true);
  });

  it('a plain view tells nothing of the camera, nor does a thing moving in it: a textured body on a plain wall, or one filling half of a still view', () => {
    const plain = () => new Uint8Array(WIDTH * HEIGHT).fill(128);
    expect(viewShift(plain(), plain(), WIDTH, HEIGHT)).to.equal(undefined);
    // a textured body (a piece of the picture) 40 px wide and the view's height, moving 1.5 px a sample
    const body = (k: number, under: () => Uint8Array) => {
      const frame = under();
      const piece = view(30 + 1.5 * k, 20);
      for (let y = 0; y < HEIGHT; y++) for (let x = 20; x < 60; x++) frame[y * WIDTH + x + Math.round(1.5 * k)] = piece[y * WIDTH + x]!;
      return frame;
    };
    const onWall = Array.from({ length: 8 }, (_, k) => body(k, plain));
    const still = (path: Array<{ x: number; y: number }>) => path.every((v) => Math.hypot(v.x * WIDTH, v.y * HEIGHT) < 0.3);
    expect(still(viewPath(onWall, WIDTH, HEIGHT, () => true)), 'on a plain wall').to.equal(true);
    const halfTheView = Array.from({ length: 8 }, (_, k) => body(k, () => view(60, 40)));
    expect(still(viewPath(halfTheView, WIDTH, HEIGHT, () => true)), 'over half of a still view').to.equal(true);
  });

  it('the motion pass on a camera panning across real pictures: each sample where its view lies, and against it only what moved in the scene', async () => {
    const dir = tempDir('vigil-camera-path-');
    for (const image of ['traffic_0001.png', 'grace_hopper.png']) {
      // a quarter of the view in 4 s: 39 intervals of 40 samples
      const motion = await analyseMotion(await probeClip(await panClip(image, path.join(dir, `${image}.mp4`))), new AbortController().signal);
      const last = motion.samples.at(-1)!;
      expect(last.view!.x, image).to.be.closeTo(-0.25 * 39 / 40, 0.02);
      expect(last.view!.y, image).to.be.closeTo(0, 0.02);
      // the pan changes cells all over the picture; against the view, a still picture changes a few at most
      const share = (cells: Uint8Array) => cells.reduce((a, b) => a + b, 0) / cells.length;
      const middle = motion.samples.slice(5, -5);
      const mean = (cellsOf: (s: MotionSample) => Uint8Array) => middle.reduce((sum, s) => sum + share(cellsOf(s)), 0) / middle.length;
      const inFrame = mean((s) => s.cells.map((v, c) => v | s.foreground[c]!));
      expect(inFrame, image).to.be.above(0.15);
      expect(mean((s) => s.sceneCells!), image).to.be.below(inFrame / 4);
    }
  });

  it('a camera shaken or panning over a real walker: the moving region of each sample is around him, where it is on the clip held still, not around the whole view sliding by', async () => {
    const dir = tempDir('vigil-camera-path-');
    const regionsOf = async (file: string) => (await analyseMotion(await probeClip(file), new AbortController().signal)).samples.flatMap((s) => (s.region ? [s.region] : []));
    const middle = (regions: Box[]) => regions.map((r) => r.x + r.w / 2).sort((a, b) => a - b)[regions.length >> 1]!;
    const meanArea = (regions: Box[]) => regions.reduce((sum, r) => sum + r.w * r.h, 0) / regions.length;
    const walker = media('real/worker_hardhat_walking.mp4');
    const still = await regionsOf(walker);
    for (const camera of [{ shake: true }, { pan: true }]) {
      const moved = await regionsOf(await weatherClip(walker, path.join(dir, `${Object.keys(camera)[0]}.mp4`), { kind: 'dry' }, camera));
      expect(moved.length, JSON.stringify(camera)).to.be.at.least(still.length - 2);
      expect(middle(moved), JSON.stringify(camera)).to.be.closeTo(middle(still), 0.1);
      expect(meanArea(moved), JSON.stringify(camera)).to.be.at.most(meanArea(still));
    }
    // nothing moves on in a still picture panned across: what the view's misalignment leaves
    // along its edges is thin, and the regions stay the moving view
    const portrait = await regionsOf(await panClip('grace_hopper.png', path.join(dir, 'portrait.mp4')));
    expect(Math.min(...portrait.map((r) => r.w * r.h))).to.be.above(0.5);
  });

  it('a still camera: no view to follow (a real clip with a walker), nor where a walker is the only texture in view', async () => {
    const motion = await analyseMotion(await probeClip(media('real/worker_hardhat_walking.mp4')), new AbortController().signal);
    expect(motion.samples.some((s) => s.view || s.sceneCells)).to.equal(false);
    const alone = await analyseMotion(await probeClip(await walkerClip('grace_hopper.png', path.join(tempDir('vigil-camera-path-'), 'walker.mp4'))), new AbortController().signal);
    expect(alone.samples.every((s) => !s.view || (s.view.x === 0 && s.view.y === 0))).to.equal(true);
  });

  it('a frame laid onto another\'s view: each pixel holds the same place of the scene; where the frame does not reach, the other\'s pixel stands', () => {
    // RGB, 6 x 4: the scene's place (x, y) has the value 10 y + x; the second frame's view went 2 px left and 1 up
    const width = 6, height = 4;
    const scene = (x: number, y: number) => 10 * y + x;
    const own = new Uint8Array(width * height * 3).fill(200);
    const later = new Uint8Array(width * height * 3);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) later.fill(scene(x + 2, y + 1), (y * width + x) * 3, (y * width + x + 1) * 3);
    // what own shows at (x, y), later shows at (x - 2, y - 1)
    const laid = laidOnto(later, own, width, height, -2.2, -0.9);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const expected = x >= 2 && y >= 1 ? scene(x, y) : 200;
        expect([...laid.subarray((y * width + x) * 3, (y * width + x + 1) * 3)], `(${x}, ${y})`).to.deep.equal([expected, expected, expected]);
      }
    }
    expect(laidOnto(later, own, width, height, 0.3, -0.4)).to.equal(later);
  });

  it('a steady pan about a frame, from the frames two samples either side: found to a quarter pixel; not where the camera holds still among noise and streaks, nor where it pans under a pixel a sample', () => {
    // 300 x 300 gray: a smooth texture (waves of 10 to 40 px), each frame with its own noise and bright streaks
    const width = 300, height = 300;
    const random = seeded(3);
    const waves = Array.from({ length: 6 }, () => ({ fx: (random() - 0.5) / 6, fy: (random() - 0.5) / 6, phase: random() * 7 }));
    const scene = (x: number, y: number) => 128 + waves.reduce((sum, w) => sum + 18 * Math.sin(w.fx * x + w.fy * y + w.phase), 0);
    const frameAt = (k: number, pan: { dx: number; dy: number }) => {
      const f = new Uint8Array(width * height);
      for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) f[y * width + x] = Math.max(0, Math.min(255, scene(x - k * pan.dx, y - k * pan.dy) + (random() - 0.5) * 8));
      for (let n = 0; n < 40; n++) {
        const x = Math.floor(random() * width), y0 = Math.floor(random() * (height - 12));
        for (let y = y0; y < y0 + 12; y++) f[y * width + x] = 250;
      }
      return f;
    };
    const about = (pan: { dx: number; dy: number }) => steadyPan(frameAt(0, pan), [-2, 2].map((k) => ({ k, frame: frameAt(k, pan) })), width, height);
    const found = about({ dx: -1.5, dy: 0.5 });
    expect(found).to.not.equal(undefined);
    expect(found!.dx).to.be.closeTo(-1.5, 0.25);
    expect(found!.dy).to.be.closeTo(0.5, 0.25);
    expect(about({ dx: 0, dy: 0 })).to.equal(undefined);
    expect(about({ dx: 0.5, dy: 0 })).to.equal(undefined);
  });
});
