// The .tflite reader (inference/tflite-file.ts) on the shared test models: tensor shapes and
// quantization from the FlatBuffer, and the files embedded in the model's zip.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { embeddedFiles, readModelTensors } from '../../runtime/inference/tflite-file.js';
import { parseLabels } from '../../runtime/pipeline/label-map.js';
import { SHARED_MODELS } from '../support/paths.js';

describe('the .tflite reader', () => {
  it('reads quantization from the FlatBuffer and the labels embedded in the model zip', () => {
    const file = fs.readFileSync(path.join(SHARED_MODELS, 'mobilenet_v2_1.0_224_quant.tflite'));
    const { inputs, outputs } = readModelTensors(file);
    expect(inputs[0]).to.deep.include({ shape: [1, 224, 224, 3], type: 'uint8', scale: 0.0078125, zeroPoint: 128 });
    expect(outputs[0]).to.deep.include({ shape: [1, 1001], type: 'uint8', scale: 0.00390625, zeroPoint: 0 });
    const labels = parseLabels(embeddedFiles(file).get('imagenet_labels.txt')!.toString('utf8'));
    expect(labels).to.have.length(1001);
    expect(labels[0]).to.equal('background');
  });

  it('refuses a file that is not a TFLite model', () => {
    expect(() => readModelTensors(fs.readFileSync(path.join(SHARED_MODELS, 'imagenet_labels.txt')))).to.throw(/not a TensorFlow Lite model/);
  });
});
