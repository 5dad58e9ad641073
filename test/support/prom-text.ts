// Reads Prometheus text (exposition format 0.0.4) the way a scraper would, and
// fails on anything a scraper would reject.
import { expect } from 'chai';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  types: Map<string, string>;
  help: Map<string, string>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const m = LABEL.exec(text);
    expect(m, `label syntax in {${text}}`).to.not.equal(null);
    labels[m![1]] = m![2].replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
  }
  return labels;
}

function parseValue(v: string): number {
  if (v === '+Inf') return Infinity;
  if (v === '-Inf') return -Infinity;
  if (v === 'NaN') return NaN;
  const n = Number(v);
  expect(Number.isNaN(n), `sample value ${v}`).to.equal(false);
  return n;
}

/** The family a sample belongs to (histogram samples carry suffixes). */
export function familyOf(name: string, types: Map<string, string>): string {
  if (types.has(name)) return name;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    const base = name.slice(0, -suffix.length);
    if (name.endsWith(suffix) && types.get(base) === 'histogram') return base;
  }
  return name;
}

export function parseExposition(text: string): Exposition {
  expect(text.endsWith('\n'), 'ends with a newline').to.equal(true);
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  for (const line of text.split('\n').slice(0, -1)) {
    if (line === '') continue; // the format ignores empty lines (prom-client puts one between families)
    if (line.startsWith('# HELP ')) {
      const [, name, ...rest] = line.split(' ').slice(1);
      help.set(name, rest.join(' '));
    } else if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice('# TYPE '.length).split(' ');
      expect(['counter', 'gauge', 'histogram', 'summary', 'untyped']).to.include(type);
      expect(types.has(name), `one TYPE line for ${name}`).to.equal(false);
      types.set(name, type);
    } else {
      const m = SAMPLE.exec(line);
      expect(m, `sample line: ${line}`).to.not.equal(null);
      samples.push({ name: m![1], labels: m![3] ? parseLabels(m![3]) : {}, value: parseValue(m![4]) });
    }
  }
  for (const s of samples) {
    const family = familyOf(s.name, types);
    expect(types.has(family), `TYPE for ${s.name}`).to.equal(true);
    expect(help.has(family), `HELP for ${s.name}`).to.equal(true);
  }
  return { samples, types, help };
}

/** The samples of one metric name whose labels include the given ones. */
export function find(exp: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return exp.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The one sample of a name and label set. */
export function value(exp: Exposition, name: string, labels: Record<string, string> = {}): number {
  const found = find(exp, name, labels);
  expect(found, `${name}${JSON.stringify(labels)}`).to.have.lengthOf(1);
  return found[0].value;
}
