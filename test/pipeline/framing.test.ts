// What fills its framing (decide.ts): a person or vehicle boxed over half of a look's crop, and
// found only so, is looked at as a whole frame at its surest moment; not seen there, its
// sightings that filled their crops at that place are the crop's pattern, not a body. Made-up findings: no model runs,
// so each case is exactly the one the rule is for.
import { expect } from 'chai';
import type { Box, Detection } from '../../runtime/core/analysis.js';
import { decide, framingDoubts, judgeOf, movesAsABlock, secondOpinions, type FrameFindings } from '../../runtime/pipeline/decide.js';
import { MOTION_GRID, type MotionPattern, type MotionSample } from '../../runtime/pipeline/motion.js';
import { rulesManifest } from '../support/rules-manifest.js';

const manifest = (() => {
  const m = rulesManifest({ person: 0.55, vehicule: 0.55 });
  return { ...m, models: m.models.map((model) => ({ ...model, score_step: 0.08 })) };
})();
const judge = judgeOf(manifest);
const pattern: MotionPattern = { moving: true, pan: 0, repeat: 0, streaks: 0, flakes: 0, aspect: 4 / 3 };

/** A sample where one cell at the crop's left edge moves: a small thing running there. */
function sample(t: number): MotionSample {
  const cells = new Uint8Array(MOTION_GRID.x * MOTION_GRID.y);
  cells[2 * MOTION_GRID.x] = 1;
  return { t, energy: 0.01, cells, solidCells: cells, region: { x: 0, y: 0.22, w: 0.083, h: 0.111 }, foreground: cells.slice() };
}

function look(t: number, detections: Detection[], framing?: Box): FrameFindings {
  const scores: FrameFindings['scores'] = {};
  for (const d of detections) scores[d.label] = Math.max(scores[d.label] ?? 0, d.score);
  return { t, sample: sample(t), scores, detections, ...(framing ? { framing } : {}) };
}

// the crop framed on the small thing, and a framing of the same moment 1.5 times wider
const crop: Box = { x: 0, y: 0, w: 0.47, h: 0.625 };
const wider: Box = { x: 0, y: 0, w: 0.7, h: 0.94 };
// three quarters of the crop: the arena's dark rim, which the detector read as a body
const filling: Box = { x: 0.07, y: 0.03, w: 0.38, h: 0.58 };
const person = (score: number, box = filling): Detection => ({ label: 'person', score, box });
// seen at two moments at one place: agreed across frames, found, and a still person
const twice = () => [look(2.5, [person(0.5)], crop), look(4.1, [person(0.58)], crop)];

describe('what fills its framing is looked at as a whole frame', () => {
  it('a person found only by boxes over half of their crops is a doubt at its surest sighting; unlooked at, it stands (person, danger)', () => {
    expect(framingDoubts(twice(), pattern, judge)).to.deep.equal([{ label: 'person', t: 4.1, box: filling }]);
    const d = decide(twice(), pattern, manifest);
    expect(d.labels).to.include('person');
    expect(d.risk).to.equal('danger');
  });

  for (const [name, framing] of [['as a whole frame (as the pipeline looks)', undefined], ['1.5 times wider', wider]] as const) {
    it(`looked at ${name} at that moment and not seen there, none of its sightings that filled their crops counts: no person, no danger`, () => {
      const frames = [...twice(), look(4.1, [], framing)];
      const d = decide(frames, pattern, manifest);
      expect(d.labels).to.not.include('person');
      expect(d.risk).to.equal('safe');
      expect(framingDoubts(frames, pattern, judge), 'looked at wider already').to.deep.equal([]);
    });
  }

  it('a small thing running inside the box (a quarter of its cells moving, as a person\'s limbs move a tenth) does not vouch for it: looked at, and dropped where the whole frame shows no one', () => {
    const running = (t: number, score: number) => {
      const f = look(t, [person(score)], crop);
      for (const c of [13, 14, 25, 26, 37]) f.sample.cells[c] = 1; // cells inside the box: a quarter of its 20
      return f;
    };
    const frames = [running(2.5, 0.5), running(4.1, 0.58)];
    expect(framingDoubts(frames, pattern, judge)).to.have.length(1);
    expect(decide([...frames, look(4.1, [])], pattern, manifest).labels).to.not.include('person');
  });

  it('a sighting its own whole-frame look contradicted vouches for no other: the smaller crop it held, not seen as a whole frame either, is the pattern too', () => {
    // the arena's rim read as a person over a crop, and 2.9 s later over a smaller crop inside it,
    // agreed with a small unsure box beside it: each crop's moment looked at as a whole frame, no one
    const large: Box = { x: 0, y: 0, w: 0.375, h: 0.5 };
    const small: Box = { x: 0, y: 0.056, w: 0.25, h: 0.333 };
    const beside = look(4.3, [person(0.34, { x: 0.34, y: 0.62, w: 0.04, h: 0.08 })], { x: 0.25, y: 0.5, w: 0.25, h: 0.333 });
    const frames = [look(1.2, [person(0.58, { x: 0.01, y: 0, w: 0.35, h: 0.5 })], large), look(4.1, [person(0.42, { x: 0, y: 0.06, w: 0.25, h: 0.33 })], small), beside];
    expect(decide(frames, pattern, manifest).labels, 'unlooked at').to.include('person');
    const d = decide([...frames, look(1.2, []), look(4.1, [])], pattern, manifest);
    expect(d.labels).to.not.include('person');
    expect(d.risk).to.equal('safe');
  });

  it('where what is left is found only by boxes filling their crops at another place, that place is the next doubt', () => {
    const corner: Box = { x: 0.53, y: 0.37, w: 0.47, h: 0.625 };
    const there: Box = { x: 0.54, y: 0.38, w: 0.45, h: 0.6 };
    const tiny: Box = { x: 0.36, y: 0.72, w: 0.04, h: 0.08 };
    const moving = look(7.2, [person(0.42, tiny)], { x: 0.14, y: 0.37, w: 0.47, h: 0.625 });
    moving.sample.cells.fill(1);
    const frames = [look(0.9, [person(0.34, there)], corner), look(4.1, [person(0.73)], crop), moving];
    expect(framingDoubts(frames, pattern, judge), 'the surest first').to.deep.equal([{ label: 'person', t: 4.1, box: filling }]);
    const after = [...frames, look(4.1, [])];
    expect(decide(after, pattern, manifest).labels, 'the agreement left (0.34 and 0.42)').to.include('person');
    expect(framingDoubts(after, pattern, judge)).to.deep.equal([{ label: 'person', t: 0.9, box: there }]);
    expect(decide([...after, look(0.9, [])], pattern, manifest).labels).to.not.include('person');
  });

  it('seen again as a whole frame, even unsure (at the model\'s min_score), it stands: person, danger', () => {
    const seenWider = { x: 0.06, y: 0.02, w: 0.4, h: 0.6 };
    const d = decide([...twice(), look(4.1, [person(0.34, seenWider)])], pattern, manifest);
    expect(d.labels).to.include('person');
    expect(d.risk).to.equal('danger');
  });

  it('a body the whole frame boxed at that moment somewhere else (the smaller box not half inside the larger) does not vouch for it: no person', () => {
    // a sunflower's head filling a crop under an illuminator, and the whole frame's "person" over the leaves below
    const below: Box = { x: 0.25, y: 0.3, w: 0.4, h: 0.6 };
    const d = decide([...twice(), look(4.1, [person(0.34, below)])], pattern, manifest);
    expect(d.labels).to.not.include('person');
    expect(d.risk).to.equal('safe');
    const overIt: Box = { x: 0.15, y: 0.2, w: 0.4, h: 0.6 }; // more than half of it over the crop's box
    expect(decide([...twice(), look(4.1, [person(0.34, overIt)])], pattern, manifest).labels, 'a whole and its part').to.include('person');
  });

  it('a whole frame of another moment vouches for it only sure there (confirm_score): an unsure body seconds away is another doubt', () => {
    const kept = (score: number) => secondOpinions([...twice(), look(4.1, []), look(8, [person(score)])], pattern, judge)
      .filter((f) => f.framing).flatMap((f) => f.detections.map((d) => d.score));
    expect(kept(0.34)).to.deep.equal([]);
    expect(kept(0.42)).to.deep.equal([0.5, 0.58]);
  });

  it('a closer look framed larger about the pattern, its box as large as its crop, lies in one place with it: the pattern too', () => {
    const larger: Box = { x: 0, y: 0, w: 0.7, h: 0.94 };
    const again = look(4.3, [person(0.66, { x: 0.03, y: 0.04, w: 0.62, h: 0.86 })], larger);
    expect(decide([...twice(), again], pattern, manifest).labels, 'unlooked at').to.include('person');
    const d = decide([...twice(), look(4.1, []), again], pattern, manifest);
    expect(d.labels).to.not.include('person');
    expect(d.risk).to.equal('safe');
  });

  it('a look no wider than the crop (the same framing again) is no second opinion: the person stands', () => {
    const d = decide([...twice(), look(4.1, [], crop)], pattern, manifest);
    expect(d.labels).to.include('person');
  });

  it('a person boxed over a third of its crop does not fill it: no doubt', () => {
    const third: Box = { x: 0.1, y: 0.05, w: 0.2, h: 0.45 };
    const frames = [look(2.5, [person(0.5, third)], crop), look(4.1, [person(0.58, third)], crop)];
    expect(framingDoubts(frames, pattern, judge)).to.deep.equal([]);
  });

  it('a car filling its crop and moving there as a block (an overhead view, which the detector knows only large) is not looked at wider, and stands', () => {
    const car: Box = { x: 0.1, y: 0, w: 0.35, h: 0.6 };
    const driving = (t: number, score: number) => {
      const f = look(t, [{ label: 'vehicule', score, box: car }], crop);
      f.sample.cells.fill(1); // every cell under the box changed
      return f;
    };
    const frames = [driving(2.5, 0.5), driving(4.1, 0.58)];
    expect(framingDoubts(frames, pattern, judge)).to.deep.equal([]);
    const d = decide([...frames, look(4.1, [])], pattern, manifest);
    expect(d.labels).to.include('vehicule');
  });

  // A box of 3 columns by 2 rows of the grid, at the view's top-left corner (the rim of an arena)
  const rim: Box = { x: 0, y: 0.06, w: 0.24, h: 0.3 };
  const moved = (...at: Array<[number, number]>) => {
    const f = look(1, [person(0.66, rim)], { x: 0, y: 0.06, w: 0.25, h: 0.31 });
    f.sample.cells.fill(0);
    f.sample.foreground.fill(0);
    for (const [x, y] of at) f.sample.cells[y * MOTION_GRID.x + x] = 1;
    return f;
  };

  it('a thing smaller than a cell running inside a box moves a line of its cells, not an area: a third of them in one column is no block, and the box is looked at as a whole frame', () => {
    // the mouse at night by the arena's rim: the detector framed the rim as a person, and the
    // mouse, seen moving where a dim view's changes count at its light, moved 2 of its 6 cells
    const mouse = moved([0, 1], [0, 2]);
    expect(movesAsABlock(rim, mouse.sample)).to.equal(false);
    expect(framingDoubts([mouse, moved([0, 2])], pattern, judge)).to.deep.equal([{ label: 'person', t: 1, box: rim }]);
    expect(decide([mouse, look(1, [])], pattern, manifest).labels).to.not.include('person');
  });

  it('an area of moving cells, two columns and two rows at least and a third of the box, moves it as a block', () => {
    expect(movesAsABlock(rim, moved([0, 1], [1, 1], [0, 2], [1, 2]).sample)).to.equal(true);
    expect(movesAsABlock(rim, moved([0, 1], [1, 1], [2, 1]).sample), 'a row of three: a line').to.equal(false);
    expect(movesAsABlock(rim, moved([0, 1], [1, 2]).sample), 'two cells, a third, over two columns and rows').to.equal(true);
    expect(movesAsABlock(rim, moved([0, 1]).sample), 'a sixth').to.equal(false);
  });

  it('on a look along a small mover\'s path (the path marked standing out), what moved at that moment is what changed then', () => {
    const along = moved([0, 1], [0, 2]);
    along.sample.foreground.fill(1); // seenMoving marks the cells under the whole path
    along.sample.path = rim;
    expect(movesAsABlock(rim, along.sample)).to.equal(false);
    const marked = moved([0, 1], [0, 2]);
    marked.sample.foreground.fill(1);
    expect(movesAsABlock(rim, marked.sample), 'standing out of the background over all of it, as a body').to.equal(true);
  });

  it('the wider look drops only what filled its crop at the same place: a sighting of another body elsewhere stands', () => {
    const other: Box = { x: 0.55, y: 0.3, w: 0.38, h: 0.58 };
    const elsewhere = look(6, [person(0.5, other)], { x: 0.5, y: 0.25, w: 0.47, h: 0.625 });
    const frames = [...twice(), look(4.1, []), elsewhere];
    const kept = secondOpinions(frames, pattern, judge).flatMap((f) => f.detections.map((d) => ({ t: f.t, x: d.box.x })));
    expect(kept).to.deep.equal([{ t: 6, x: 0.55 }]);
  });

  it('found without them (a sure person elsewhere), or seen only in whole frames, nothing is widened', () => {
    const elsewhere = look(6, [person(0.82, { x: 0.6, y: 0.3, w: 0.1, h: 0.3 })], { x: 0.5, y: 0.2, w: 0.47, h: 0.625 });
    expect(framingDoubts([...twice(), elsewhere], pattern, judge), 'found without the filling boxes').to.deep.equal([]);
    const whole = [look(2.5, [person(0.5, { x: 0.1, y: 0.1, w: 0.6, h: 0.8 })]), look(4.1, [person(0.58, { x: 0.1, y: 0.1, w: 0.6, h: 0.8 })])];
    expect(framingDoubts(whole, pattern, judge), 'a whole frame has no wider framing').to.deep.equal([]);
  });
});
