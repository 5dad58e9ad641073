// Model classes -> service labels, from the labels files the packs use (pipeline/label-map.ts).
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { ModelEntry } from '../../runtime/core/model-manifest.js';
import { bundledManifest } from '../../runtime/models/manifest.js';
import { buildLabelMap, classIndexes, parseLabels } from '../../runtime/pipeline/label-map.js';
import { SHARED_MODELS } from '../support/paths.js';

describe('label maps', () => {
  const imagenet = parseLabels(fs.readFileSync(path.join(SHARED_MODELS, 'imagenet_labels.txt'), 'utf8'));
  /** An ImageNet classifier's map, with what both packs' classifiers share: the animal range, names over it. */
  const imagenetMap = (model: ModelEntry) => {
    const cls = buildLabelMap(model, imagenet);
    expect(cls[imagenet.indexOf('Egyptian cat')]?.label).to.equal('animal'); // the animal range
    expect(cls[imagenet.indexOf('tarantula')]?.label).to.equal('spider'); // a name overrides the range
    expect(cls[imagenet.indexOf('spider web')]?.label).to.equal('web');
    expect(cls[imagenet.indexOf('flagpole')]?.label).to.equal('flag');
    return cls;
  };

  it('maps the default pack: COCO classes to labels, unmapped COCO classes to nothing, ImageNet ranges and names', () => {
    const [detector, imagenetClassifier] = bundledManifest('default').models;
    const coco = parseLabels(fs.readFileSync(path.join(SHARED_MODELS, 'coco_labels.txt'), 'utf8'));
    expect(coco).to.have.length(90);
    const det = buildLabelMap(detector!, coco);
    expect(det[0]).to.deep.equal({ label: 'person', weight: 1 }); // the SSD's class 0
    expect(det[coco.indexOf('truck')]?.label).to.equal('vehicule');
    expect(det[coco.indexOf('giraffe')]?.label).to.equal('animal');
    expect(det[coco.indexOf('potted plant')]?.label).to.equal('plant');
    expect(det[coco.indexOf('kite')]).to.equal(undefined); // a flag is called kite: COCO classes that are not ours stay unmapped
    expect(det[coco.indexOf('clock')]).to.equal(undefined);
    const cls = imagenetMap(imagenetClassifier!);
    expect(cls[imagenet.indexOf('military uniform')]).to.equal(undefined); // people come from the detector alone
    // kinds: the dog breeds, the house cats, the butterflies, the birds (three ranges of ImageNet);
    // not the big cats, the foxes, the other insects
    const kinOf = (name: string) => cls[imagenet.indexOf(name)]?.kin;
    expect(kinOf('Chihuahua')).to.equal(kinOf('Mexican hairless')).and.to.not.equal(undefined);
    expect(kinOf('tabby')).to.equal(kinOf('Egyptian cat')).and.to.not.equal(undefined);
    expect(kinOf('admiral')).to.equal(kinOf('lycaenid')).and.to.not.equal(undefined);
    for (const bird of ['cock', 'kite', 'vulture', 'great grey owl', 'goose', 'black swan', 'white stork', 'albatross']) expect(kinOf(bird), bird).to.equal(kinOf('bald eagle')).and.to.not.equal(undefined);
    expect(new Set([kinOf('pug'), kinOf('tabby'), kinOf('monarch'), kinOf('kite')]).size).to.equal(4);
    for (const alone of ['grey fox', 'cougar', 'dragonfly', 'starfish', 'sea lion', 'stingray', 'isopod', 'centipede']) expect(kinOf(alone), alone).to.equal(undefined);
  });

  it('maps the deeplab pack: PASCAL stops before its trailing comment; clothing counts half towards person', () => {
    const [segmenter, classifier] = bundledManifest('deeplab').models;
    const pascal = parseLabels(fs.readFileSync(path.join(SHARED_MODELS, 'pascal_voc_segmentation_labels.txt'), 'utf8'));
    expect(pascal).to.have.length(21);
    const seg = buildLabelMap(segmenter!, pascal);
    expect(seg[pascal.indexOf('person')]).to.deep.equal({ label: 'person', weight: 1 });
    expect(seg[pascal.indexOf('pottedplant')]?.label).to.equal('plant');
    expect(seg[0]).to.equal(undefined); // background means nothing
    const cls = imagenetMap(classifier!);
    expect(cls[imagenet.indexOf('military uniform')]).to.deep.equal({ label: 'person', weight: 0.5 });
  });

  it('an identity map serves a pack trained on exactly the service labels', () => {
    const map = buildLabelMap({ class_map: 'identity', class_ranges: [] }, parseLabels('background\nperson\nvehicule\nrain\nsomething-else\n'));
    expect(map.map((t) => t?.label)).to.deep.equal([undefined, 'person', 'vehicule', 'rain', undefined]);
  });

  it('a class map naming a class the labels file lacks is an error that names it', () => {
    expect(() => buildLabelMap({ class_map: { unicorn: 'animal' }, class_ranges: [] }, ['background', 'cat'])).to.throw(/unicorn/);
  });

  it('the classes `flying` names, by index; a name the labels file lacks is an error that names it and the key', () => {
    expect([...classIndexes(['kite', 'bird'], ['background', 'bird', 'kite'], 'flying')]).to.deep.equal([2, 1]);
    expect(() => classIndexes(['bird', 'dragon'], ['background', 'bird'], 'model detector: flying')).to.throw(/model detector: flying .*dragon/);
  });
});
