// A pack manifest for tests of the decision rules: one detector of the service's own labels,
// with the thresholds a test gives; no model is loaded.
import type { ServiceLabel } from '../../runtime/core/analysis.js';
import { manifestSchema, type Manifest } from '../../runtime/core/model-manifest.js';

export function rulesManifest(thresholds: Partial<Record<ServiceLabel, number>>): Manifest {
  return manifestSchema.parse({
    name: 'rules', version: '1.0.0',
    models: [{ id: 'm', task: 'detection', file: { name: 'm.tflite', sha256: '0'.repeat(64), bytes: 1, url: 'https://example.invalid/m' }, labels: { embedded: 'l.txt' }, class_map: 'identity' }],
    thresholds,
    risk: { confirm_score: 0.4 },
  });
}
