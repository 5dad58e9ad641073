// The decision rules and the box geometry on made-up findings: no model runs,
// so each rule is checked on exactly the case it is for.
import { expect } from 'chai';
import type { Box, CameraRules, Detection, Polygon } from '../../runtime/core/analysis.js';
import { squareRegion, suppress } from '../../runtime/pipeline/boxes.js';
import { insidePolygon, rasteriseMasks } from '../../runtime/pipeline/camera-rules.js';
import { decide, type FrameFindings } from '../../runtime/pipeline/decide.js';
import { clipBudget, decodeCost, FrameBudget, framesAffordable } from '../../runtime/pipeline/budget.js';
import { framesFor, naiveFrames } from '../../runtime/pipeline/frame-choice.js';
import { MOTION_GRID, type MotionPattern, type MotionSample } from '../../runtime/pipeline/motion.js';
import { rulesManifest } from '../support/rules-manifest.js';

const manifest = rulesManifest({ person: 0.55, vehicule: 0.55, animal: 0.5 });
const pattern: MotionPattern = { moving: true, spread: 0.1, fragmentation: 0, oscillation: 0, travel: 0.3, pan: 0, repeat: 0, streaks: 0, flakes: 0 };
const cells = () => new Uint8Array(MOTION_GRID.x * MOTION_GRID.y);

/** A sample whose moving cells are those under `moving` (or none). */
function sample(t: number, moving?: Box): MotionSample {
  const c = cells();
  if (moving) {
    for (let y = 0; y < MOTION_GRID.y; y++) for (let x = 0; x < MOTION_GRID.x; x++) {
      const cx = (x + 0.5) / MOTION_GRID.x;
      const cy = (y + 0.5) / MOTION_GRID.y;
      if (cx >= moving.x && cx <= moving.x + moving.w && cy >= moving.y && cy <= moving.y + moving.h) c[y * MOTION_GRID.x + x] = 1;
    }
  }
  return { t, energy: moving ? 0.05 : 0, cells: c, solidCells: c, region: moving, speckle: 0, foreground: cells() };
}

function frame(t: number, detections: Detection[], moving?: Box, extra: FrameFindings['scores'] = {}): FrameFindings {
  const scores: FrameFindings['scores'] = { ...extra };
  for (const d of detections) scores[d.label] = Math.max(scores[d.label] ?? 0, d.score);
  return { t, sample: sample(t, moving), scores, detections };
}

describe('decision rules', () => {
  const walker = (x: number): Box => ({ x, y: 0.3, w: 0.1, h: 0.4 });

  it('a person whose box moves across the frames, where motion is: intrusion', () => {
    const frames = [0, 1.5, 3].map((t, i) => frame(t, [{ label: 'person', score: 0.8, box: walker(0.1 + i * 0.3) }], walker(0.1 + i * 0.3)));
    const d = decide(frames, pattern, manifest);
    expect(d.risk).to.equal('intrusion');
    expect(d.labels).to.include.members(['person', 'intrusion']);
  });

  it('a parked car that stays at its place while something else moves: vehicule, safe', () => {
    const car: Box = { x: 0.1, y: 0.6, w: 0.3, h: 0.2 };
    const frames = [0, 1.5, 3].map((t) => frame(t, [{ label: 'vehicule', score: 0.9, box: car }], { x: 0.05, y: 0.55, w: 0.5, h: 0.3 }));
    const d = decide(frames, pattern, manifest);
    expect(d.labels).to.include('vehicule');
    expect(d.labels).to.not.include('intrusion');
    expect(d.risk).to.equal('safe');
  });

  it('people who stay put (seated) are present: person, danger, not intrusion', () => {
    const seat: Box = { x: 0.4, y: 0.4, w: 0.15, h: 0.3 };
    const frames = [0, 1.2, 2.4].map((t) => frame(t, [{ label: 'person', score: 0.9, box: seat }], seat));
    const d = decide(frames, pattern, manifest);
    expect(d.labels).to.include('person');
    expect(d.risk).to.equal('danger');
  });

  it('a person walking towards the camera (same place, growing): intrusion', () => {
    const approach = (t: number, h: number): Box => ({ x: 0.45 - h / 8, y: 0.5 - h / 2, w: h / 4, h });
    const frames = [0, 1, 2].map((t, i) => frame(t, [{ label: 'person', score: 0.9, box: approach(t, 0.3 + 0.15 * i) }], approach(t, 0.3 + 0.15 * i)));
    expect(decide(frames, pattern, manifest).risk).to.equal('intrusion');
  });

  it('a parked car whose box jitters a little (a shaken camera, rain): still present, safe', () => {
    const frames = [0, 1, 2].map((t, i) => frame(t, [{ label: 'vehicule', score: 0.9, box: { x: 0.1 + 0.01 * i, y: 0.6, w: 0.3, h: 0.2 - 0.005 * i } }], { x: 0, y: 0, w: 1, h: 1 }));
    const d = decide(frames, pattern, manifest);
    expect(d.labels).to.include('vehicule');
    expect(d.risk).to.equal('safe');
  });

  it('one faint person score on a scene: no person, and no danger', () => {
    const frames = [frame(0, [{ label: 'person', score: 0.45, box: walker(0.2) }], walker(0.2)), frame(1.5, [], walker(0.5))];
    const d = decide(frames, pattern, manifest);
    expect(d.labels).to.not.include('person');
    expect(d.risk).to.equal('safe');
  });

  it('a person seen unsure in two frames where it moves (a dark walker): person, intrusion', () => {
    const frames = [frame(0, [{ label: 'person', score: 0.42, box: walker(0.1) }], walker(0.1)), frame(2, [{ label: 'person', score: 0.46, box: walker(0.6) }], walker(0.6))];
    const d = decide(frames, pattern, manifest);
    expect(d.labels).to.include.members(['person', 'intrusion']);
    expect(d.risk).to.equal('intrusion');
  });

  it('agreement is a hysteresis: one frame at confirm_score and one that merely saw it; never two mere sightings, nor one frame alone', () => {
    const car = (x: number): Box => ({ x, y: 0.2, w: 0.3, h: 0.3 });
    const seen = (scores: number[]) => decide(scores.map((score, i) => frame(i * 3, [{ label: 'vehicule', score, box: car(0.05 + i * 0.3) }], car(0.05 + i * 0.3))), pattern, manifest);
    // a car from above, one detector step either side of confirm_score in one frame: the same answer
    for (const scores of [[0.42, 0.34], [0.34, 0.42], [0.43, 0.41]]) {
      const d = seen(scores);
      expect(d.labels, `vehicule at ${scores}`).to.include.members(['vehicule', 'intrusion']);
      expect(d.scores.vehicule).to.equal(Math.max(...scores));
    }
    for (const scores of [[0.38, 0.34], [0.42]]) {
      const d = seen(scores);
      expect(d.labels, `vehicule at ${scores}`).to.not.include('vehicule');
      expect(d.risk).to.equal('safe');
    }
  });

  it('a person box filling the frame where an animal is seen: the animal, not a person', () => {
    const whole: Box = { x: 0.02, y: 0.02, w: 0.96, h: 0.96 };
    const frames = [0, 1.5].map((t) => frame(t, [{ label: 'person', score: 0.66, box: whole }], whole, { animal: 0.9 }));
    const d = decide(frames, pattern, manifest);
    expect(d.labels).to.include('animal');
    expect(d.labels).to.not.include('person');
    expect(d.risk).to.equal('safe');
  });
});

describe("a camera's rules in the decision", () => {
  const walker = (x: number): Box => ({ x, y: 0.3, w: 0.1, h: 0.4 }); // feet at y = 0.7
  const frames = () => [0, 1.5, 3].map((t, i) => frame(t, [{ label: 'person', score: 0.8, box: walker(0.1 + i * 0.3) }], walker(0.1 + i * 0.3)));
  const rules = (r: Partial<CameraRules>): CameraRules => ({ masks: [], zones: [], labels: {}, ...r });
  const band = (y0: number, y1: number): Polygon => [[0, y0], [1, y0], [1, y1], [0, y1]];

  it('a zone holding the feet (bottom-centre of the box) keeps the intrusion; one holding only the head does not', () => {
    expect(decide(frames(), pattern, manifest, rules({ zones: [{ name: 'path', points: band(0.6, 0.8) }] })).risk).to.equal('intrusion');
    const outside = decide(frames(), pattern, manifest, rules({ zones: [{ name: 'sky', points: band(0, 0.5) }] }));
    expect(outside.risk).to.equal('safe');
    expect(outside.labels).to.include('person').and.not.include('intrusion');
  });

  it('a masked detection is not seen; labels and scores filtered per camera; its own intrusion labels', () => {
    const masked = decide(frames(), pattern, manifest, rules({ masks: [band(0.6, 0.8)] }));
    expect(masked.labels).to.not.include('person');
    expect(masked.keyframes.flatMap((k) => k.detections)).to.deep.equal([]);
    expect(decide(frames(), pattern, manifest, rules({ labels: { person: 0.9 } })).labels).to.not.include('person');
    expect(decide(frames(), pattern, manifest, rules({ labels: { person: 0.7 } })).risk).to.equal('intrusion');
    expect(decide(frames(), pattern, manifest, rules({ intrusionLabels: ['vehicule'] })).risk).to.not.equal('intrusion');
  });

  it('masks are rasterised at pixel centres; points inside a polygon by ray casting', () => {
    const raster = rasteriseMasks([[[0, 0], [0.5, 0], [0.5, 1], [0, 1]]], 4, 2)!;
    expect([...raster]).to.deep.equal([1, 1, 0, 0, 1, 1, 0, 0]);
    expect(rasteriseMasks([], 4, 2)).to.equal(undefined);
    const triangle: Polygon = [[0, 0], [1, 0], [0, 1]];
    expect(insidePolygon(0.2, 0.2, triangle)).to.equal(true);
    expect(insidePolygon(0.8, 0.8, triangle)).to.equal(false);
  });
});

describe('regions and frame counts', () => {
  it('a region around a small moving area is square in pixels, at least the input, inside the frame', () => {
    const r = squareRegion({ x: 0.95, y: 0.9, w: 0.02, h: 0.05 }, { width: 1280, height: 720 }, 300);
    expect(r.w * 1280).to.be.closeTo(300, 1e-6);
    expect(r.h * 720).to.be.closeTo(300, 1e-6);
    expect(r.x + r.w).to.be.at.most(1 + 1e-9);
    expect(r.y + r.h).to.be.at.most(1 + 1e-9);
  });

  it('a region is never larger than the short side of the frame', () => {
    const r = squareRegion({ x: 0, y: 0, w: 0.9, h: 0.9 }, { width: 480, height: 270 }, 300);
    expect(r.w * 480).to.be.closeTo(270, 1e-6);
    expect(r.h).to.be.closeTo(1, 1e-9);
  });

  it('the same object found in the whole frame and in a region is kept once, the best score', () => {
    const kept = suppress([
      { label: 'person', score: 0.6, box: { x: 0.5, y: 0.5, w: 0.1, h: 0.3 } },
      { label: 'person', score: 0.9, box: { x: 0.505, y: 0.49, w: 0.1, h: 0.31 } },
      { label: 'vehicule', score: 0.7, box: { x: 0.5, y: 0.5, w: 0.1, h: 0.3 } },
      { label: 'person', score: 0.7, box: { x: 0.1, y: 0.1, w: 0.1, h: 0.3 } },
    ]);
    expect(kept.map((d) => `${d.label} ${d.score}`)).to.have.members(['person 0.9', 'vehicule 0.7', 'person 0.7']);
  });

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

  it('a clip spends on the networks less than sampling it once a second, and every frame gets its first look', () => {
    const detector = 300 * 300;
    const classifier = 224 * 224;
    const frame = detector + classifier;
    // a 3 s clip: the naive pipeline runs both models on 3 frames; the clip may spend 2.25 frames' worth, less a decode
    const decode = decodeCost({ width: 480, height: 270, nframes: 45 });
    expect(decode).to.be.closeTo((480 * 270 * 45) / 300, 1e-6);
    const total = clipBudget([detector, classifier], 3, decode);
    expect(total).to.be.closeTo(2.25 * frame - decode, 1e-6);
    expect(framesAffordable(total, detector)).to.equal(3);
    // two frames share what their first looks leave
    const share = (total - 2 * detector) / 2;
    expect(share).to.be.above(classifier).and.below(detector);
    const budget = new FrameBudget(total, detector, 2);
    expect(budget.take(classifier)).to.equal(true);
    expect(budget.take(classifier)).to.equal(false);
    expect(new FrameBudget(total, detector, 2).take(detector)).to.equal(false);
    // a long clip of large frames: its decode leaves fewer frames than the naive pipeline's
    expect(framesAffordable(clipBudget([detector, classifier], 10, decodeCost({ width: 1280, height: 720, nframes: 250 })), detector)).to.be.below(10);
    // a clip shorter than 1.5 s: nothing to spare, one first look all the same
    expect(framesAffordable(clipBudget([detector, classifier], 1, 0), detector)).to.equal(1);
    expect(new FrameBudget(clipBudget([detector, classifier], 1, 0), detector, 1).take(1)).to.equal(false);
  });
});
