// Foliage, wind and flags from how cells move (runtime/pipeline/foliage.ts), on made-up
// frames and motion: each measure and rule checked on exactly the case it is for.
import { expect } from 'chai';
import type { Box, Detection } from '../../runtime/core/analysis.js';
import { decide, type FrameFindings } from '../../runtime/pipeline/decide.js';
import type { MotionPattern } from '../../runtime/pipeline/motion.js';
import {
  cameraMotion, cellTexture, describeSway, flagFinding, flowError, localMotion, medianOf, swayFindings, swayScores, type CellMap, type LocalMotion,
} from '../../runtime/pipeline/foliage.js';
import { medianFrame } from '../../runtime/pipeline/pixel-median.js';
import { seeded } from '../support/random.js';
import { cellMotion, gridBlock } from '../support/findings.js';
import { rulesManifest } from '../support/rules-manifest.js';

const GRID = { x: 12, y: 9 };
const WIDTH = 96;
const HEIGHT = 54;

function cellMap(): CellMap {
  const cellOf = new Uint16Array(WIDTH * HEIGHT);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) cellOf[y * WIDTH + x] = Math.floor((y * GRID.y) / HEIGHT) * GRID.x + Math.floor((x * GRID.x) / WIDTH);
  }
  return { width: WIDTH, height: HEIGHT, cellOf };
}

/** A smooth texture (several sines) seen through `where` (a pixel -> the texture's point there). */
function picture(where: (x: number, y: number) => [number, number]): Uint8Array {
  const out = new Uint8Array(WIDTH * HEIGHT);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const [u, v] = where(x, y);
      out[y * WIDTH + x] = Math.round(128 + 40 * Math.sin(u * 0.7) * Math.cos(v * 0.5) + 30 * Math.sin(u * 0.31 + v * 0.43));
    }
  }
  return out;
}

/** The texture shifted by (dx, dy) px where `moves` says so. */
const texture = (dx: number, dy: number, moves: (x: number, y: number) => boolean = () => true) =>
  picture((x, y) => (moves(x, y) ? [x - dx, y - dy] : [x, y]));

/** The networks' flag score, the same for every place (the classifier's, which looked at the whole view). */
const everywhere = (score: number) => () => score;

describe('foliage: local motion, sway and flags', () => {
  const map = cellMap();

  it('a camera shifted as a whole: every cell flows with it, and the camera moved by as much', () => {
    const m = localMotion(texture(0, 0), texture(0.4, 0), map, GRID);
    expect(m.camera).to.be.within(0.3, 0.6);
    const xs = Array.from({ length: GRID.x * GRID.y }, (_, c) => m.flow[c * 2]!).sort((a, b) => a - b);
    expect(xs[xs.length >> 1]).to.be.within(0.25, 0.55);
  });

  it('a patch moving in a still scene: the patch flows, the camera did not move', () => {
    const patch = (x: number, y: number) => x >= 60 && x < 88 && y >= 6 && y < 30;
    const m = localMotion(texture(0, 0), texture(0.4, 0, patch), map, GRID);
    expect(m.camera).to.be.below(0.05);
    const inside = 2 * GRID.x + 8; // a cell within the patch
    expect(m.flow[inside * 2]).to.be.within(0.2, 0.6);
    expect(m.change[0]).to.equal(0);
  });

  it('the light over a still view swelling by a tenth: no cell flows, nor changes', () => {
    const still = texture(0, 0);
    const lit = still.map((v) => Math.round(v * 1.1 + 4));
    const m = localMotion(still, lit, map, GRID);
    for (let c = 0; c < GRID.x * GRID.y; c++) {
      expect(Math.hypot(m.flow[c * 2]!, m.flow[c * 2 + 1]!), `cell ${c}`).to.be.below(0.05);
      expect(m.change[c], `cell ${c}`).to.be.below(1);
    }
  });

  it('a zoom moves every cell away from the centre: the camera moved', () => {
    // 1 % a sample: the corners move by half a pixel, the centre not at all
    const zoomed = picture((x, y) => [WIDTH / 2 + (x - WIDTH / 2) / 1.01, HEIGHT / 2 + (y - HEIGHT / 2) / 1.01]);
    expect(localMotion(texture(0, 0), zoomed, map, GRID).camera).to.be.within(0.2, 0.8);
  });

  it('medianOf selects the middle of the sorted values, whatever their order, ties and count', () => {
    let seed = 1;
    const next = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (let round = 0; round < 200; round++) {
      const n = 1 + Math.floor(next() * 120);
      const values = Float64Array.from({ length: n + 5 }, () => Math.round(next() * 20) / 4);
      const sorted = values.slice(0, n).sort();
      expect(medianOf(values, n)).to.equal(sorted[n >> 1]);
    }
    expect(medianOf(new Float64Array(3), 0)).to.equal(0);
  });

  it('cameraMotion: the median of the trusted cells, so that a minority of moving cells leaves the camera still', () => {
    const cells = GRID.x * GRID.y;
    const flow = new Float32Array(cells * 2);
    for (let c = 0; c < cells / 3; c++) flow[c * 2] = 1;
    const all = new Uint8Array(cells).fill(1);
    expect(cameraMotion(flow, all, map, GRID)).to.equal(0);
    // the still cells are flat (not trusted): the moving third is all that can be seen
    const textured = all.map((_, c) => (c < cells / 3 ? 1 : 0));
    expect(cameraMotion(flow, textured, map, GRID)).to.be.above(0.9);
    flow.fill(0.5);
    expect(cameraMotion(flow, all, map, GRID)).to.be.above(0.5);
  });

  it('cameraMotion: each part of the view says once, so that a thing filling the few textured cells of a dark view is not the camera', () => {
    // A dark view at night: flat but for a web lit at the lens, 20 cells in its corner, and a few
    // cells of the scene elsewhere, one in each of four other parts.
    const cells = GRID.x * GRID.y;
    const web = (c: number) => c % GRID.x < 4 && Math.floor(c / GRID.x) >= 4;
    const scene = [1, 6, 11, 4 * GRID.x + 6];
    const trusted = new Uint8Array(cells).map((_, c) => (web(c) || scene.includes(c) ? 1 : 0));
    const flow = new Float32Array(cells * 2);
    for (let c = 0; c < cells; c++) if (web(c)) flow[c * 2] = 1; // the web swings; the scene stays
    expect(trusted.filter((t, c) => t && web(c)).length).to.be.above(2 * scene.length); // most of the textured cells
    expect(cameraMotion(flow, trusted, map, GRID)).to.equal(0);
    // the same view panned: every part moves
    flow.fill(0);
    for (let c = 0; c < cells; c++) flow[c * 2] = 1;
    expect(cameraMotion(flow, trusted, map, GRID)).to.be.above(0.9);
  });

  it('the flow error follows the noise and the texture: a noisy flat sky cannot see MOVED, textured leaves can', () => {
    expect(3 * flowError(1.2, 2, 24)).to.be.above(0.05);
    expect(3 * flowError(1.2, 24, 24)).to.be.below(0.05);
    expect(flowError(0, 20, 24)).to.be.closeTo(flowError(1 / Math.sqrt(12), 20, 24), 1e-9); // quantization at least
  });

  it('noise on a still, textured scene is not motion; the same scene swaying is', () => {
    // a cell's flow scattered by its noise: a tenth of a pixel on a texture of 3, noise of 2 levels
    const noisy = (t: number, c: number): [number, number] => [0.1 * Math.sin(t * 7.3 + c * 1.7), 0.1 * Math.cos(t * 5.1 + c)];
    const local = cellMotion(40, noisy).map((l) => ({ ...l, texture: new Float32Array(l.texture.length).fill(3), change: new Float32Array(l.change.length).fill(2) }));
    expect(swayFindings(describeSway(local, 10), GRID).foliage).to.equal(0);
  });

  it('branches swaying back and forth in place, the camera still: foliage', () => {
    const crown = gridBlock(2, 4, 6, 4);
    const local = cellMotion(40, (c, t) => (crown(c) ? [0.3 * Math.cos(2 * Math.PI * 0.8 * (t / 10) + c), 0.1 * Math.sin(t + c)] : [0, 0]));
    const sway = describeSway(local, 10)!;
    expect(sway.cameraStill).to.equal(true);
    const found = swayFindings(sway, GRID);
    expect(found.foliage).to.be.above(0.9);
    const scores = swayScores(sway, GRID, [], everywhere(0), 0.4);
    expect(scores.plant).to.be.above(0.9);
    expect(scores.wind).to.be.above(0.9);
    expect(scores.flag).to.equal(0); // swaying is never a flag by itself
  });

  describe('faint moves: a dim view\'s sway, changing its cells by under a level', () => {
    // the texture at a third of its contrast about a dark gray, as a weak illuminator shows it
    const dim = (where: (x: number, y: number) => [number, number], light: (x: number, y: number) => number = () => 0) => {
      const texture = picture(where);
      return Uint8Array.from(texture, (level, i) => Math.round(40 + (level - 128) / 3 + light(i % WIDTH, Math.floor(i / WIDTH))));
    };
    const crown = (x: number, y: number) => x >= 16 && x < 64 && y >= 24;
    const swayed = (dx: number) => dim((x, y) => (crown(x, y) ? [x - dx, y] : [x, y]));
    const motion = (frames: Uint8Array[]) => frames.slice(1).map((f, k) => localMotion(frames[k]!, f, map, GRID));
    const foliage = (frames: Uint8Array[]) => swayFindings(describeSway(motion(frames), 10), GRID).foliage;

    it('a crown swaying in a third of the day\'s contrast is foliage', () => {
      const frames = Array.from({ length: 41 }, (_, t) => swayed(0.3 * Math.sin(2 * Math.PI * 0.8 * (t / 10))));
      const local = motion(frames);
      const meanChange = Array.from(local[0]!.change, (_, c) => local.reduce((sum, l) => sum + l.change[c]!, 0) / local.length);
      expect(Math.max(...meanChange)).to.be.below(1); // the sway changes no cell by a level, on average
      expect(foliage(frames)).to.be.above(0.5);
    });

    it('a still dim view whose pixels round a level up now and then (one in ten) is not', () => {
      const random = seeded(17);
      expect(foliage(Array.from({ length: 41 }, () => dim((x, y) => [x, y], () => (random() < 0.1 ? 1 : 0))))).to.equal(0);
    });

    // Made-up faint moves on a crown's cells (texture 8, a cell's 24 pixels): its sway of 0.25 px
    // at 0.8 Hz changes a cell by half its texture times the displacement (under a level), a
    // different pixel brightening for each one darkening. Each case breaks one of the tests.
    const crownCells = gridBlock(2, 4, 6, 4);
    const faint = (change: (d: number) => number, net: (change: number) => number, isotropy = 0.3) =>
      Array.from({ length: 40 }, (_, t): LocalMotion => {
        const cells = GRID.x * GRID.y;
        const l = { change: new Float32Array(cells), net: new Float32Array(cells), isotropy: new Float32Array(cells).fill(isotropy), flow: new Float32Array(cells * 2), texture: new Float32Array(cells).fill(8), pixels: 24, camera: 0 };
        for (let c = 0; c < cells; c++) {
          if (!crownCells(c)) continue;
          const d = 0.25 * Math.cos(2 * Math.PI * 0.8 * (t / 10) + c);
          l.flow[c * 2] = d;
          l.change[c] = change(Math.abs(d));
          l.net[c] = net(l.change[c]!);
        }
        return l;
      });
    const swayOf = (local: LocalMotion[]) => swayFindings(describeSway(local, 10), GRID).foliage;
    const mixed = (change: number) => 0.2 * change;

    it('faint moves that only a displacement of the texture makes: foliage', () => {
      expect(swayOf(faint((d) => 4 * d, mixed))).to.be.above(0.9);
    });

    it('faint moves under what rounding makes of a displaced texture (half a level): nothing', () => {
      expect(swayOf(faint((d) => 1.6 * d, mixed))).to.equal(0);
    });

    it('faint moves along one straight edge (isotropy under a tenth: the aperture problem): nothing', () => {
      expect(swayOf(faint((d) => 4 * d, mixed, 0.05))).to.equal(0);
    });

    it('faint changes as large in every sample, turns and all (grain\'s, not a sway\'s): nothing', () => {
      expect(swayOf(faint(() => 0.8, mixed))).to.equal(0);
    });

    it('faint changes that brighten or darken a cell\'s pixels together (a light, not a displacement): nothing', () => {
      expect(swayOf(faint((d) => 4 * d, (change) => change))).to.equal(0);
    });
  });

  describe('a light swelling and fading over a place, read as flows over its gradient', () => {
    // Made-up moves on a place's cells (texture 8, 24 pixels a cell): in each sample a flow of
    // 0.3 px back and forth and a change of 3 levels, `net` of it the way the pixels went
    const place = gridBlock(2, 4, 6, 4);
    const moves = (net: (c: number, t: number) => number) => Array.from({ length: 40 }, (_, t): LocalMotion => {
      const cells = GRID.x * GRID.y;
      const l = { change: new Float32Array(cells), net: new Float32Array(cells), isotropy: new Float32Array(cells).fill(0.3), flow: new Float32Array(cells * 2), texture: new Float32Array(cells).fill(8), pixels: 24, camera: 0 };
      for (let c = 0; c < cells; c++) {
        if (!place(c)) continue;
        l.flow[c * 2] = 0.3 * Math.cos(2 * Math.PI * 0.8 * (t / 10) + c);
        l.change[c] = 3;
        l.net[c] = 3 * net(c, t);
      }
      return l;
    });
    const swayOf = (local: LocalMotion[]) => swayFindings(describeSway(local, 10), GRID).foliage;
    // a lamp pulsing at 1.5 Hz: brightening, then darkening
    const swell = (t: number) => (Math.sin(2 * Math.PI * 1.5 * (t / 10) + 0.5) >= 0 ? 1 : -1);

    it('every cell brightened and darkened with the light, in step: nothing', () => {
      expect(swayOf(moves((_, t) => swell(t)))).to.equal(0);
    });

    it('a third of them the other way, in step too (where the relighting of the whole view took part of the light for the camera\'s): nothing', () => {
      expect(swayOf(moves((c, t) => (c % 3 === 0 ? -1 : 1) * swell(t)))).to.equal(0);
    });

    it('a displacement, mixing its signs in each cell: foliage', () => {
      expect(swayOf(moves(() => 0.2))).to.be.above(0.9);
    });

    it('each cell one way, but not in step with the others (a cloth covering the sky at one edge, baring it at the other): foliage', () => {
      const random = seeded(5);
      expect(swayOf(moves(() => (random() < 0.5 ? 0.9 : -0.9)))).to.be.above(0.9);
    });
  });

  it('a source of a few frames a second repeats each frame: the repeats say nothing of the sway, which is read from the new frames', () => {
    const crown = gridBlock(2, 4, 6, 4);
    // 10 samples a second of a camera sending 3: each new frame moved since the last new one, the two
    // repeats only by what the encoder refines (a tenth of a gray level over the view)
    const local = cellMotion(60, (c, t) => (crown(c) && t % 3 === 0 ? [0.3 * Math.cos((2 * Math.PI * 0.5 * t) / 10 + c), 0.1 * Math.sin(t / 3 + c)] : [0, 0]))
      .map((l) => ({ ...l, change: l.change.map((c) => c + 0.1) }));
    const sway = describeSway(local, 10)!;
    expect(sway.duty[4 * GRID.x + 3]).to.equal(1);
    expect(swayFindings(sway, GRID).foliage).to.be.above(0.9);
  });

  it('in rain or snow a sway must be as smooth as a sway of 2 Hz or less: what drops leave over their window, smooth for a sample or two, is not', () => {
    const crown = gridBlock(2, 4, 6, 4);
    // flows turning by `step` radians a sample: correlated with the sample before by cos(step)
    const turning = (step: number) => describeSway(cellMotion(40, (c, t) => (crown(c) ? [0.3 * Math.cos(step * t + c), 0.1 * Math.sin(step * t + c)] : [0, 0])), 10)!;
    const branches = turning((2 * Math.PI * 0.8) / 10); // a 0.8 Hz sway: cos 0.5 = 0.88
    const residue = turning(1.4); // cos 1.4 = 0.17: smooth by the dry rule (above 0), not by the rain's
    expect(swayFindings(branches, GRID).foliage).to.be.above(0.9);
    expect(swayFindings(residue, GRID).foliage).to.be.above(0.9);
    expect(swayFindings({ ...branches, inRain: true }, GRID).foliage).to.be.above(0.9);
    expect(swayFindings({ ...residue, inRain: true }, GRID).foliage).to.equal(0);
  });

  it('foliage keeps its texture in the background; rings that drops spread on a flat puddle do not, and are no sway', () => {
    const sway = (frames: Uint8Array[]) =>
      describeSway(frames.slice(1).map((f, k) => localMotion(frames[k]!, f, map, GRID)), 10, cellTexture(medianFrame(frames, 25), map, GRID))!;
    // a textured crown in the top right corner, its branches swaying by 0.3 px at 0.8 Hz, each in its own phase
    const crown = (x: number, y: number) => x >= 64 && y < 30;
    const leaves = Array.from({ length: 40 }, (_, t) => picture((x, y) => (crown(x, y) ? [x - 0.3 * Math.sin((2 * Math.PI * 0.8 * t) / 10 + x / 6 + y / 5), y] : [x, y])));
    // a flat gray puddle there instead, where rings land anywhere, each spreading by a quarter of a
    // pixel a sample (0.25 m/s on a view 10 m wide) and fading within 0.8 s
    const rnd = seeded(7);
    const rings = Array.from({ length: 120 }, () => ({ x: 64 + rnd() * 32, y: rnd() * 30, born: rnd() * 40 }));
    const puddle = Array.from({ length: 40 }, (_, t) => {
      const frame = new Uint8Array(WIDTH * HEIGHT).fill(100);
      for (const ring of rings) {
        const age = t - ring.born;
        if (age < 0 || age > 8) continue;
        const strength = 1 - age / 9;
        for (let y = 0; y < 30; y++) {
          for (let x = 64; x < WIDTH; x++) {
            const d = Math.hypot(x - ring.x, y - ring.y) - (1 + 0.25 * age);
            frame[y * WIDTH + x] = Math.max(0, Math.min(255, frame[y * WIDTH + x]! + strength * (30 * Math.exp(-d * d) - 21 * Math.exp(-((d + 1.5) ** 2)))));
          }
        }
      }
      return frame;
    });
    const inCrown = (c: number) => c % GRID.x >= 8 && Math.floor(c / GRID.x) < 5; // cells wholly in the corner
    const trees = sway(leaves);
    const water = sway(puddle);
    for (let c = 0; c < GRID.x * GRID.y; c++) {
      if (!inCrown(c)) continue;
      expect(trees.lasting![c]).to.be.above(0.8);
      expect(water.lasting![c]).to.be.below(0.5);
    }
    expect(swayFindings(trees, GRID).foliage).to.be.above(0.9);
    // the rings move the cells back and forth in place: foliage by that alone
    expect(swayFindings({ ...water, lasting: undefined }, GRID).foliage).to.be.above(0.5);
    expect(swayFindings(water, GRID).foliage).to.equal(0);
  });

  it('more swaying cells are more evidence', () => {
    const score = (w: number) => swayFindings(describeSway(cellMotion(40, (c, t) => (gridBlock(0, 0, w, 1)(c) ? [0.3 * Math.cos(t + c), 0] : [0, 0])), 10), GRID).foliage;
    expect(score(3)).to.be.closeTo(0.5, 0.01);
    expect(score(6)).to.be.above(score(3));
    expect(score(12)).to.be.above(score(6));
  });

  it('cells swaying alone, none beside another (a dark view\'s flicker here and there), witness no plant; the same cells side by side do', () => {
    const sways = (cells: number[]) => cellMotion(40, (c, t) => (cells.includes(c) ? [0.3 * Math.cos(t + c), 0] : [0, 0]));
    // six cells, scattered: no two share a side (diagonal neighbours included)
    const scattered = [0, 14, 28, 42, 56, 70];
    expect(swayFindings(describeSway(sways(scattered), 10), GRID).foliage).to.equal(0);
    // six cells in two patches of three: a bush and another
    const patches = [0, 1, 2, 60, 61, 62];
    expect(swayFindings(describeSway(sways(patches), 10), GRID).foliage).to.be.closeTo(0.75, 0.01);
  });

  it('a walker crossing (each cell moves briefly) and a conveyor (always one way): not foliage', () => {
    const walker = cellMotion(40, (c, t) => (Math.abs((c % GRID.x) - t / 3) < 1 ? [0.5, 0] : [0, 0]));
    expect(swayFindings(describeSway(walker, 10), GRID).foliage).to.equal(0);
    const conveyor = cellMotion(40, (c) => (gridBlock(0, 5, 12, 3)(c) ? [0.4, 0.05] : [0, 0]));
    const sway = describeSway(conveyor, 10)!;
    expect(swayFindings(sway, GRID).foliage).to.equal(0);
  });

  it('a camera that moved: nothing sways, whatever the cells do', () => {
    const shaken = cellMotion(40, (c, t) => [0.5 * Math.cos(t), 0], 0.5);
    const sway = describeSway(shaken, 10)!;
    expect(sway.cameraStill).to.equal(false);
    expect(swayFindings(sway, GRID)).to.deep.equal({ foliage: 0, flutters: [] });
  });

  it('cells moving faster than a pixel a sample (a cloth flapping, an animal running laps) are not read as a sway', () => {
    const patch = gridBlock(2, 2, 4, 3);
    // a cloth flapping by 2 px at 3.3 Hz: its flow peaks at 2π·3.3·2/10 = 4 px a sample
    const flapping = describeSway(cellMotion(40, (c, t) => (patch(c) ? [4 * Math.cos(2.1 * t + c), 1.5 * Math.sin(2.1 * t)] : [0, 0])), 10);
    expect(swayFindings(flapping, GRID).foliage).to.equal(0);
    // a bough swinging by 1.5 px at 1 Hz: 0.9 px a sample at most
    const swinging = describeSway(cellMotion(40, (c, t) => (patch(c) ? [0.9 * Math.cos(0.63 * t + c), 0.3 * Math.sin(0.63 * t)] : [0, 0])), 10);
    expect(swayFindings(swinging, GRID).foliage).to.be.above(0.9);
  });

  it('a crown whose branches vibrate as they swing, each cell\'s flow correlating negatively from one sample to the next as a real conifer\'s did, is foliage; in rain, where the window averages vibrations away, it must be smooth', () => {
    const crown = gridBlock(2, 4, 6, 4);
    // a swing of 0.5 Hz by 0.2 px a sample, under a vibration of 4 Hz by 0.4 px a sample
    const flow = (c: number, t: number): [number, number] => (crown(c)
      ? [0.2 * Math.cos(0.31 * t + c) + 0.4 * Math.cos(2.51 * t + 2 * c), 0.1 * Math.sin(0.31 * t + c) + 0.2 * Math.sin(2.51 * t + c)]
      : [0, 0]);
    const sway = describeSway(cellMotion(60, flow), 10)!;
    const inCrown = 4 * GRID.x + 3;
    expect(sway.smoothness[inCrown]).to.be.below(-0.2);
    expect(swayFindings(sway, GRID).foliage).to.be.above(0.9);
    expect(swayFindings({ ...sway, inRain: true }, GRID).foliage).to.equal(0);
  });

  it('a camera nudged back and forth in a few samples counts as still, and its steps are no sway; a crown swaying under it still is', () => {
    // Each second the view steps 0.6 px one way over two samples, then back: the camera is seen
    // moving in those four of ten, and the calm frames (each the median of three) smear each step
    // into the sample after, where the camera's fit falls under MOVED. Every textured cell then
    // moves in six samples of ten, back and forth, smoothly: counted over all samples, a sway.
    const phase = (t: number) => t % 10;
    const step = (t: number): [number, number] => [[0, 0.3, 0.3, 0.1, 0, 0, -0.3, -0.3, -0.1, 0][phase(t)]!, 0];
    const camera = (t: number) => ([1, 2, 6, 7].includes(phase(t)) ? 0.35 : [3, 8].includes(phase(t)) ? 0.03 : 0);
    const nudged = (flowOf: (c: number, t: number) => [number, number]) => cellMotion(40, flowOf).map((l, t) => ({ ...l, camera: camera(t) }));
    const bare = describeSway(nudged((_, t) => step(t)), 10)!;
    expect(bare.cameraStill).to.equal(true);
    expect(swayFindings(bare, GRID).foliage).to.equal(0);
    const crown = gridBlock(2, 4, 6, 4);
    const sway = (c: number, t: number): [number, number] => (crown(c) ? [0.3 * Math.cos(2 * Math.PI * 0.8 * (t / 10) + c), 0.1 * Math.sin(t + c)] : [0, 0]);
    const swaying = describeSway(nudged((c, t) => (camera(t) >= 0.05 ? step(t) : sway(c, t))), 10)!;
    expect(swayFindings(swaying, GRID).foliage).to.be.above(0.9);
  });

  it('too short a clip to see a sway come back: nothing', () => {
    expect(describeSway(cellMotion(10, () => [0.3, 0]), 10)).to.equal(undefined);
  });

  it('what moves in place under a person found there is the person, not foliage', () => {
    const fidget = gridBlock(4, 2, 3, 5);
    const sway = describeSway(cellMotion(40, (c, t) => (fidget(c) ? [0.3 * Math.cos(t + c), 0] : [0, 0])), 10);
    expect(swayFindings(sway, GRID).foliage).to.be.above(0.5);
    expect(swayFindings(sway, GRID, [{ x: 4 / 12, y: 2 / 9, w: 3 / 12, h: 5 / 9 }]).foliage).to.equal(0);
  });

  it('a compact patch fluttering in place is a place a flag may be; the classifier decides', () => {
    const cloth = gridBlock(5, 1, 3, 2);
    const sway = describeSway(cellMotion(40, (c, t) => (cloth(c) ? [0.2, 0.8 * Math.sin(2 * Math.PI * 0.25 * t)] : [0, 0])), 10);
    const { flutters } = swayFindings(sway, GRID);
    expect(flutters).to.have.length(1);
    expect(flutters[0]!.box.x).to.be.closeTo(5 / 12, 1e-6);
    expect(flagFinding(flutters, everywhere(0), 0.4).score).to.equal(0); // motion alone never makes a flag
    expect(flagFinding(flutters, everywhere(0.15), 0.4).score).to.equal(0); // under half the flag threshold
    expect(flagFinding(flutters, everywhere(0.25), 0.4).score).to.be.at.least(0.4); // gated: counts
    // a small flutter (two cells) is weaker evidence: the same vote falls short
    expect(flagFinding([{ box: flutters[0]!.box, cells: 2 }], everywhere(0.25), 0.4).score).to.be.below(0.4);
    expect(flagFinding([], everywhere(0.25), 0.4).score).to.equal(0); // without a flutter, the threshold holds
    // a flag found is not foliage too
    const scores = swayScores(sway, GRID, [], everywhere(0.25), 0.4);
    expect(scores.flag).to.be.at.least(0.4);
    expect(scores.plant).to.equal(0);
    expect(scores.wind).to.be.above(0);
    expect(scores.flagPlace).to.deep.equal(flutters[0]!.box); // where the cloth moves
    expect(swayScores(sway, GRID, [], everywhere(0.15), 0.4).flagPlace).to.equal(undefined); // no flag, no place
  });

  it('of two places that flutter, the flag is where the networks back one (the detector boxed a flag there), not the larger', () => {
    const cloth = { box: { x: 1 / 12, y: 1 / 9, w: 2 / 12, h: 2 / 9 }, cells: 4 };
    const screen = { box: { x: 6 / 12, y: 4 / 9, w: 4 / 12, h: 3 / 9 }, cells: 12 };
    const boxedThere = (place: Box) => (place === cloth.box ? 0.88 : 0);
    const found = flagFinding([cloth, screen], boxedThere, 0.4);
    expect(found.flutter).to.equal(cloth);
    expect(found.score).to.be.at.least(0.88);
    expect(flagFinding([screen], boxedThere, 0.4).score).to.equal(0); // a flag boxed elsewhere backs no other place
  });

  it('a tree line across the whole frame is not compact: no flag place', () => {
    const line = gridBlock(0, 4, 12, 2);
    const sway = describeSway(cellMotion(40, (c, t) => (line(c) ? [0.3 * Math.cos(t + c), 0] : [0, 0])), 10);
    expect(swayFindings(sway, GRID).flutters).to.have.length(0);
  });
});

describe('foliage in the decision', () => {
  const manifest = rulesManifest({ person: 0.55, plant: 0.4, flag: 0.4, web: 0.4 });
  const cells = () => new Uint8Array(GRID.x * GRID.y);
  const crown = gridBlock(1, 1, 5, 4);
  const sway = describeSway(cellMotion(40, (c, t) => (crown(c) ? [0.3 * Math.cos(t + c), 0.1 * Math.sin(t)] : [0, 0])), 10);
  const pattern: MotionPattern = { moving: true, pan: 0, repeat: 0, streaks: 0, flakes: 0, ...(sway ? { sway } : {}) };
  const frame = (t: number, detections: Detection[] = []): FrameFindings => ({
    t, detections, scores: Object.fromEntries(detections.map((d) => [d.label, d.score])),
    sample: { t, energy: 0.05, cells: cells(), solidCells: cells(), region: { x: 0.1, y: 0.1, w: 0.4, h: 0.4 }, foreground: cells() },
  });

  it('a crown swaying, nothing found: plant and wind, safe', () => {
    const d = decide([frame(0), frame(2)], pattern, manifest);
    expect(d.labels).to.include.members(['plant', 'wind']);
    expect(d.risk).to.equal('safe');
  });

  it('an unsure person on swaying leaves, seen twice, is the leaves: no person, no intrusion; a sure one stands', () => {
    const unsure = (x: number): Detection => ({ label: 'person', score: 0.42, box: { x, y: 0.2, w: 0.05, h: 0.1 } });
    const d = decide([frame(0, [unsure(0.2)]), frame(2, [unsure(0.3)])], pattern, manifest);
    expect(d.labels).to.not.include('person');
    expect(d.risk).to.equal('safe');
    const sure: Detection = { label: 'person', score: 0.9, box: { x: 0.2, y: 0.2, w: 0.05, h: 0.1 } };
    expect(decide([frame(0, [sure]), frame(2, [sure])], pattern, manifest).labels).to.include('person');
  });

  it('the classifier saw a web in the view where it sways: web and wind, no plant; a web seen elsewhere leaves the crown a plant', () => {
    const webSeen = (framing: FrameFindings['framing']): FrameFindings => ({ ...frame(2), scores: { web: 0.7 }, framing });
    const d = decide([frame(0), webSeen({ x: 0, y: 0, w: 0.6, h: 0.7 })], pattern, manifest);
    expect(d.labels).to.include.members(['web', 'wind']);
    expect(d.labels).to.not.include('plant');
    expect(d.risk).to.equal('safe');
    const apart = decide([frame(0), webSeen({ x: 0.6, y: 0.6, w: 0.4, h: 0.4 })], pattern, manifest);
    expect(apart.labels).to.include.members(['web', 'plant', 'wind']);
  });

  it('a person found where it sways: the motion is the person, no foliage', () => {
    const person: Detection = { label: 'person', score: 0.9, box: { x: 0, y: 0, w: 0.6, h: 0.7 } };
    const d = decide([frame(0, [person]), frame(2, [person])], pattern, manifest);
    expect(d.labels).to.not.include('plant');
    expect(d.labels).to.not.include('wind');
  });
});
