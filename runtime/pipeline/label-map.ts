// Model classes -> service labels, as the pack's manifest says: a class maps
// by its first name in the labels file, a range of class indexes can map at
// once (ImageNet's animals), and "identity" serves packs trained on exactly
// the service's labels. A class may also be one of a kind (its `kin`), whose
// classes the classification decoder adds up.
import { SERVICE_LABELS, type ServiceLabel } from '../core/analysis.js';
import type { ModelEntry } from '../core/model-manifest.js';

export interface ClassTarget {
  label: ServiceLabel;
  /** how much this class counts towards the label, 0..1 */
  weight: number;
  /** the kind it is one of (the manifest's `kin`, by position), when it is one */
  kin?: number;
}

/** Index -> target (undefined when the class means nothing for the service). */
export type LabelMap = Array<ClassTarget | undefined>;

/** The class names of a labels file: one per line, first comma-separated name, blank lines and comments dropped. */
export function parseLabels(text: string): string[] {
  const lines = text.split(/\r?\n/);
  const names: string[] = [];
  for (const line of lines) {
    const name = line.split(',')[0]!.trim();
    if (!name) {
      if (names.length) break; // the PASCAL file ends with a blank line and a comment
      continue;
    }
    names.push(name);
  }
  return names;
}

export function buildLabelMap(model: Pick<ModelEntry, 'class_map' | 'class_ranges'> & Partial<Pick<ModelEntry, 'kin'>>, classNames: string[]): LabelMap {
  const map: LabelMap = new Array(classNames.length).fill(undefined);
  if (model.class_map === 'identity') {
    classNames.forEach((name, i) => {
      if ((SERVICE_LABELS as readonly string[]).includes(name)) map[i] = { label: name as ServiceLabel, weight: 1 };
    });
    return map;
  }
  for (const range of model.class_ranges) {
    for (let i = Math.max(0, range.from); i <= Math.min(classNames.length - 1, range.to); i++) map[i] = { label: range.label, weight: 1 };
  }
  const unknown: string[] = [];
  for (const [name, target] of Object.entries(model.class_map)) {
    const index = classNames.indexOf(name);
    if (index < 0) {
      unknown.push(name);
      continue;
    }
    map[index] = Array.isArray(target) ? { label: target[0], weight: target[1] } : { label: target, weight: 1 };
  }
  if (unknown.length) throw new Error(`class_map names classes the labels file does not have: ${unknown.join(', ')}`);
  (model.kin ?? []).forEach((kind, k) => {
    for (const [from, to] of kind.ranges) {
      for (let i = Math.max(0, from); i <= Math.min(classNames.length - 1, to); i++) if (map[i]) map[i] = { ...map[i]!, kin: k };
    }
  });
  return map;
}

/** The indexes of the classes `names` names (the manifest's `flying`); a name the labels file lacks is an error. */
export function classIndexes(names: string[], classNames: string[], key: string): Set<number> {
  const unknown = names.filter((name) => !classNames.includes(name));
  if (unknown.length) throw new Error(`${key} names classes the labels file does not have: ${unknown.join(', ')}`);
  return new Set(names.map((name) => classNames.indexOf(name)));
}
