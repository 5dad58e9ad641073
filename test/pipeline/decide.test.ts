// The decision rules on made-up findings: no model runs,
// so each rule is checked on exactly the case it is for.
import { expect } from 'chai';
import type { Box, CameraRules, Polygon } from '../../runtime/core/analysis.js';
import { decide, judgeOf, sureIntruders } from '../../runtime/pipeline/decide.js';
import { frame, pattern } from '../support/findings.js';
import { rulesManifest } from '../support/rules-manifest.js';

const manifest = rulesManifest({ person: 0.55, vehicule: 0.55, animal: 0.5 });

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

  it('a look at frames of heavy rain as they are counts only the persons and vehicles the detector is sure of, framed as it was', () => {
    const seen = frame(1, [
      { label: 'person', score: 0.66, box: walker(0.4) },
      { label: 'person', score: 0.42, box: walker(0.1) }, // half-seen among the drops
      { label: 'animal', score: 0.58, box: walker(0.7) },
    ], walker(0.4), { plant: 0.6 });
    const sure = sureIntruders(seen, judgeOf(manifest));
    expect(sure.detections).to.deep.equal([{ label: 'person', score: 0.66, box: walker(0.4) }]);
    expect(sure.scores).to.deep.equal({ person: 0.66 });
    expect(sureIntruders({ ...seen, framing: walker(0.3) }, judgeOf(manifest)).framing, 'the look keeps its framing').to.deep.equal(walker(0.3));
    // twice unsure is no agreement once only what it is sure of counts
    const unsure = [0, 2].map((t, i) => sureIntruders(frame(t, [{ label: 'person', score: 0.42, box: walker(0.1 + 0.4 * i) }], walker(0.1 + 0.4 * i)), judgeOf(manifest)));
    expect(decide(unsure, pattern, manifest).labels).to.not.include('person');
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
});
