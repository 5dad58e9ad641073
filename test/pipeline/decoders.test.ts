// The decoder registry (pipeline/decoders.ts): each decoder on a raw output tensor made here,
// for the bundled packs' models as the runtime describes them (their real quantization and
// label maps, read from the shared model files).
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Box } from '../../runtime/core/analysis.js';
import { cpuBackend } from '../../runtime/inference/backends.js';
import type { InferenceOutput } from '../../runtime/inference/protocol.js';
import { describeModels } from '../../runtime/models/load-pack.js';
import { bundledManifest } from '../../runtime/models/manifest.js';
import { fromCrop } from '../../runtime/pipeline/boxes.js';
import { DECODERS } from '../../runtime/pipeline/decoders.js';
import { parseLabels } from '../../runtime/pipeline/label-map.js';
import { SHARED_MODELS } from '../support/paths.js';

const [detector, maxClassifier] = describeModels(SHARED_MODELS, bundledManifest('default'), cpuBackend);
const [segmenter, sumClassifier] = describeModels(SHARED_MODELS, bundledManifest('deeplab'), cpuBackend);
const classesOf = (file: string) => parseLabels(fs.readFileSync(path.join(SHARED_MODELS, file), 'utf8'));
const coco = classesOf('coco_labels.txt');
const imagenet = classesOf('imagenet_labels.txt');
const pascal = classesOf('pascal_voc_segmentation_labels.txt');

/** A view on the right half of the frame, its middle half in height. */
const VIEW: Box = { x: 0.5, y: 0.25, w: 0.5, h: 0.5 };

describe('decoders', () => {
  it('a decoder for every task of the bundled packs, and the packs use all three', () => {
    const tasks = new Set(['default', 'deeplab', 'tiny'].flatMap((pack) => bundledManifest(pack).models.map((m) => m.task)));
    expect([...tasks].sort()).to.deep.equal(Object.keys(DECODERS).sort());
    for (const task of tasks) expect(DECODERS[task]).to.be.a('function');
  });
});

describe('the detection decoder (SSD, post-processed)', () => {
  interface Row { name: string; score: number; box: [ymin: number, xmin: number, ymax: number, xmax: number] }
  /** The four outputs of a post-processed SSD: boxes, classes, scores, and how many rows are valid. */
  const ssd = (rows: Row[], count = rows.length): InferenceOutput[] => [
    Float32Array.from(rows.flatMap((r) => r.box)),
    Float32Array.from(rows.map((r) => coco.indexOf(r.name))),
    Float32Array.from(rows.map((r) => r.score)),
    Float32Array.of(count),
  ];
  const decode = (outputs: InferenceOutput[], view?: Box) => DECODERS.detection(outputs, detector!, view);

  it('each row a finding with its service label and its box (x, y, w, h); the best score per label', () => {
    const { detections, scores } = decode(ssd([
      { name: 'person', score: 0.8, box: [0.2, 0.1, 0.6, 0.3] },
      { name: 'truck', score: 0.6, box: [0.5, 0.5, 0.9, 0.9] },
      { name: 'car', score: 0.7, box: [0.1, 0.6, 0.3, 0.8] },
    ]));
    expect(detections.map((d) => d.label)).to.deep.equal(['person', 'vehicule', 'vehicule']);
    const [person] = detections;
    expect(person!.score).to.equal(Math.fround(0.8));
    expect(person!.box.x).to.be.closeTo(0.1, 1e-6);
    expect(person!.box.y).to.be.closeTo(0.2, 1e-6);
    expect(person!.box.w).to.be.closeTo(0.2, 1e-6);
    expect(person!.box.h).to.be.closeTo(0.4, 1e-6);
    expect(scores).to.deep.equal({ person: Math.fround(0.8), vehicule: Math.fround(0.7) });
  });

  it('rows past the count, under min_score, of classes the pack leaves out, or with an empty box are dropped', () => {
    const minScore = detector!.entry.min_score;
    const { detections } = decode(ssd([
      { name: 'dog', score: 0.9, box: [0.1, 0.1, 0.5, 0.5] },
      { name: 'dog', score: minScore - 0.01, box: [0.1, 0.1, 0.5, 0.5] },
      { name: 'kite', score: 0.9, box: [0.1, 0.1, 0.5, 0.5] }, // no service label
      { name: 'cat', score: 0.9, box: [0.5, 0.5, 0.5, 0.9] }, // no height
      { name: 'person', score: 0.95, box: [0.1, 0.1, 0.5, 0.5] }, // past the count
    ], 4));
    expect(detections.map((d) => `${d.label} ${d.score}`)).to.deep.equal([`animal ${Math.fround(0.9)}`]);
  });

  it('things that fly (the pack\'s `flying`: bird, airplane, kite) are boxed as flyers, a label or not, from min_score, in the frame', () => {
    expect(detector!.entry.flying).to.have.members(['bird', 'airplane', 'kite']);
    const minScore = detector!.entry.min_score;
    const { detections, flyers } = decode(ssd([
      { name: 'airplane', score: 0.58, box: [0, 0, 0.5, 0.5] }, // no service label, a flyer still
      { name: 'bird', score: 0.5, box: [0.5, 0.5, 1, 1] }, // an animal and a flyer
      { name: 'kite', score: minScore - 0.01, box: [0, 0.5, 0.5, 1] },
      { name: 'person', score: 0.8, box: [0.5, 0, 1, 0.5] },
    ]), VIEW);
    expect(flyers).to.deep.equal([{ x: 0.5, y: 0.25, w: 0.25, h: 0.25 }, { x: 0.75, y: 0.5, w: 0.25, h: 0.25 }]);
    expect(detections.map((d) => d.label)).to.deep.equal(['animal', 'person']);
  });

  it('what it calls a flag (the pack\'s `flags`: kite) is boxed with its score from min_score, in the frame, a label or not', () => {
    expect(detector!.entry.flags).to.deep.equal(['kite']);
    const minScore = detector!.entry.min_score;
    const { detections, flags } = decode(ssd([
      { name: 'kite', score: 0.88, box: [0, 0.5, 0.5, 1] },
      { name: 'kite', score: minScore - 0.01, box: [0.5, 0.5, 1, 1] },
      { name: 'bird', score: 0.5, box: [0.5, 0, 1, 0.5] }, // a flyer, no flag
    ]), VIEW);
    expect(flags).to.deep.equal([{ box: { x: 0.75, y: 0.25, w: 0.25, h: 0.25 }, score: Math.fround(0.88) }]);
    expect(detections.map((d) => d.label)).to.deep.equal(['animal']); // no label of its own
  });

  it('what it calls a vehicle seen from above (the pack\'s `vehicles_from_above`: cell phone) is boxed with its score from min_score, in the frame, a label or not', () => {
    expect(detector!.entry.vehicles_from_above).to.deep.equal(['cell phone']);
    const minScore = detector!.entry.min_score;
    const { detections, fromAbove } = decode(ssd([
      { name: 'cell phone', score: 0.98, box: [0, 0.5, 0.5, 1] },
      { name: 'cell phone', score: minScore - 0.01, box: [0.5, 0.5, 1, 1] },
      { name: 'car', score: 0.6, box: [0.5, 0, 1, 0.5] },
    ]), VIEW);
    expect(fromAbove).to.deep.equal([{ box: { x: 0.75, y: 0.25, w: 0.25, h: 0.25 }, score: Math.fround(0.98) }]);
    expect(detections.map((d) => d.label)).to.deep.equal(['vehicule']); // the car; the phone is no label of its own
  });

  it('a person boxed smaller than the smallest anchor (`smallest_box` of the input) is dropped unless upright; other labels, and flyers, are kept', () => {
    const smallest = detector!.entry.smallest_box;
    expect(smallest).to.equal(0.1);
    const at = (y: number, x: number, h: number, w: number): Row['box'] => [y, x, y + h, x + w];
    const { detections, flyers } = decode(ssd([
      { name: 'person', score: 0.58, box: at(0.6, 0.4, 0.083, 0.077) }, // as wide as tall, under the anchor: dropped
      { name: 'person', score: 0.34, box: at(0.6, 0.4, 0.047, 0.07) }, // lying wide: dropped
      { name: 'person', score: 0.79, box: at(0.3, 0.2, 0.095, 0.033) }, // upright: a far walker
      { name: 'person', score: 0.66, box: at(0.1, 0.1, 0.12, 0.11) }, // as large as the anchor: kept whatever its shape
      { name: 'dog', score: 0.6, box: at(0.5, 0.5, 0.05, 0.05) }, // not a person
      { name: 'bird', score: 0.5, box: at(0.2, 0.6, 0.03, 0.04) }, // a small flyer
    ]));
    expect(detections.map((d) => `${d.label} ${d.score.toFixed(2)}`)).to.deep.equal(['person 0.79', 'person 0.66', 'animal 0.60', 'animal 0.50']);
    expect(flyers).to.have.length(1);
  });

  it('a box reaching out of the view is cut at its edges', () => {
    const [d] = decode(ssd([{ name: 'person', score: 0.9, box: [-0.2, 0.5, 1.3, 1.1] }])).detections;
    expect(d!.box).to.deep.equal({ x: 0.5, y: 0, w: 0.5, h: 1 });
  });

  it('on a view of the frame, boxes are in the frame: the whole view is the view', () => {
    const { detections } = decode(ssd([
      { name: 'person', score: 0.9, box: [0, 0, 1, 1] },
      { name: 'bus', score: 0.9, box: [0.5, 0.5, 1, 1] },
    ]), VIEW);
    expect(detections[0]!.box).to.deep.equal(VIEW);
    expect(detections[1]!.box).to.deep.equal({ x: 0.75, y: 0.5, w: 0.25, h: 0.25 });
  });

  it('a model with fewer outputs is not a detector: the error names the model and the outputs', () => {
    expect(() => decode([new Float32Array(4)])).to.throw(/detector.*1 outputs.*four/);
  });
});

describe('the classification decoder', () => {
  /** A quantized softmax over ImageNet, 0 but for the classes given their raw uint8 values. */
  const softmax = (raw: Record<string, number>): Uint8Array => {
    const out = new Uint8Array(imagenet.length);
    for (const [name, value] of Object.entries(raw)) out[imagenet.indexOf(name)] = value;
    return out;
  };
  const scale = maxClassifier!.output.scale;

  it('a label takes its most sure class ("max"); unmapped classes are nothing; the whole frame boxes nothing', () => {
    const { scores, detections } = DECODERS.classification([softmax({ tarantula: 200, 'Egyptian cat': 128, goldfish: 64, 'military uniform': 255 })], maxClassifier!, undefined);
    expect(maxClassifier!.entry.aggregate).to.equal('max');
    expect(scores).to.deep.equal({ spider: 200 * scale, animal: 128 * scale });
    expect(detections).to.deep.equal([]);
  });

  it('a kind of sibling classes counts as one class: the network sure of a cat or a butterfly, unsure which', () => {
    // a house cat split among three breeds: none reaches 0.5, the kind does
    const cat = DECODERS.classification([softmax({ 'Egyptian cat': 100, tabby: 80, 'Persian cat': 60 })], maxClassifier!, undefined);
    expect(cat.scores.animal).to.equal(240 * scale);
    const butterfly = DECODERS.classification([softmax({ admiral: 90, monarch: 70, goldfish: 100 })], maxClassifier!, undefined);
    expect(butterfly.scores.animal).to.equal(160 * scale);
    // birds of prey against the sky, over three ranges of ImageNet's birds
    const birds = DECODERS.classification([softmax({ kite: 40, vulture: 30, 'white stork': 30, albatross: 20 })], maxClassifier!, undefined);
    expect(birds.scores.animal).to.equal(120 * scale);
    // two kinds never add up, nor a kind and a class outside it: the best of them
    const mixed = DECODERS.classification([softmax({ tabby: 100, Chihuahua: 70, pug: 60, goldfish: 110 })], maxClassifier!, undefined);
    expect(mixed.scores.animal).to.equal(130 * scale);
  });

  it('"sum" adds a label\'s classes, weighted, up to 1', () => {
    expect(sumClassifier!.entry.aggregate).to.equal('sum');
    const { scores } = DECODERS.classification([softmax({ 'Egyptian cat': 128, tabby: 64, 'military uniform': 128 })], sumClassifier!, undefined);
    expect(scores.animal).to.equal(192 * scale);
    expect(scores.person).to.equal(128 * scale * 0.5); // a uniform counts half towards a person
    const many = DECODERS.classification([softmax({ 'Egyptian cat': 200, tabby: 200, 'tiger cat': 200 })], sumClassifier!, undefined);
    expect(many.scores.animal).to.equal(1);
  });

  it('on a view, the labels at 0.3 or more are boxed by the view', () => {
    const { scores, detections } = DECODERS.classification([softmax({ tarantula: 200, 'Egyptian cat': 40 })], maxClassifier!, VIEW);
    expect(scores.animal).to.be.below(0.3);
    expect(detections).to.deep.equal([{ label: 'spider', score: 200 * scale, box: VIEW }]);
  });

  it('the zero point is subtracted: at or under it a class scores nothing; a float model\'s output is taken as it is', () => {
    const shifted = { ...maxClassifier!, output: { ...maxClassifier!.output, zeroPoint: 100 } };
    const { scores } = DECODERS.classification([softmax({ tarantula: 100, 'Egyptian cat': 90, flagpole: 164 })], shifted, undefined);
    expect(scores).to.deep.equal({ flag: 64 * scale });
    const float = { ...maxClassifier!, output: { ...maxClassifier!.output, scale: 0, zeroPoint: 0 } };
    const probabilities = new Float32Array(imagenet.length);
    probabilities[imagenet.indexOf('spider web')] = 0.625;
    expect(DECODERS.classification([probabilities], float, undefined).scores).to.deep.equal({ web: 0.625 });
  });
});

describe('the segmentation decoder', () => {
  const size = segmenter!.input.shape[2]!;
  /** A class per pixel of the model's input: background but for the rectangles given in pixels. */
  const argmax = (...rects: Array<[name: string, x: number, y: number, w: number, h: number]>): Uint8Array => {
    const out = new Uint8Array(size * size);
    for (const [name, x0, y0, w, h] of rects) {
      for (let y = y0; y < y0 + h; y++) out.fill(pascal.indexOf(name), y * size + x0, y * size + x0 + w);
    }
    return out;
  };

  it('each segment of a mapped class a finding, boxed around it, scored by its share of the input against full_area', () => {
    const { scores, detections } = DECODERS.segmentation([argmax(['person', 100, 60, 40, 120], ['cat', 300, 300, 60, 40])], segmenter!, undefined);
    expect(detections.map((d) => d.label)).to.have.members(['person', 'animal']);
    const person = detections.find((d) => d.label === 'person')!;
    const grid = 4 / size; // the segments are found on a grid of 4 px
    expect(person.box.x).to.be.closeTo(100 / size, grid);
    expect(person.box.y).to.be.closeTo(60 / size, grid);
    expect(person.box.w).to.be.closeTo(40 / size, grid);
    expect(person.box.h).to.be.closeTo(120 / size, grid);
    expect(person.score).to.be.closeTo((40 * 120) / (size * size) / segmenter!.entry.full_area, 0.02);
    expect(scores).to.deep.equal({ person: person.score, animal: detections.find((d) => d.label === 'animal')!.score });
  });

  it('on a view, the same segments boxed in the frame', () => {
    const mask = argmax(['person', 100, 60, 40, 120]);
    const [whole] = DECODERS.segmentation([mask], segmenter!, undefined).detections;
    const [inView] = DECODERS.segmentation([mask], segmenter!, VIEW).detections;
    expect(inView!.score).to.equal(whole!.score);
    expect(inView!.box).to.deep.equal(fromCrop(whole!.box, VIEW));
    expect(inView!.box.x).to.be.at.least(VIEW.x);
  });

  it('background, classes the pack leaves out and specks under min_area are nothing', () => {
    expect(DECODERS.segmentation([argmax(['diningtable', 0, 0, 200, 200], ['person', 400, 400, 4, 4])], segmenter!, undefined)).to.deep.equal({ scores: {}, detections: [] });
  });
});
