// The floors of runtime/, bottom to top. A file may import from the floors below
// its own and from its own floor as long as no circle forms; never from a floor above.
//   0 core        generic helpers and the shared names: analysis types, errors and Refusal, ids, disk space, redaction, the manifest schema, Mount
//   1 config      config/ and each room's config.ts (leaf schemas that config/schema.ts assembles)
//   2 store       the SQLite store, the media layout, the result JSON
//   3 jobs, retention        the job runner and its stage contracts; pruning and upload admission
//   4 inference   the interpreter pool, its workers and backends
//   5 pipeline    how a clip is classified: frames, motion, the models' decoders, decide
//   6 models, highlight, ingest   model packs; the annotated video and snapshots; intake of clips
//   7 delivery, capture, ops      webhooks and MQTT; cameras and watch folders; health, metrics, doctor
//   8 api, dashboard  the HTTP edge
//   9 entry       daemon.ts (the composition root), controller.ts, cli.ts
// The imports are read from the TypeScript sources (import, import type,
// export ... from, import()); the tests run from dist/, so the sources are read
// from the repository, not from the compiled files.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import ts from 'typescript';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const RUNTIME = path.join(REPO, 'runtime');

/** Bottom to top. A member is a folder ("core/"), a file ("daemon.ts"), or "*\/config.ts" (that file in every room). */
const FLOORS: Array<{ name: string; members: string[] }> = [
  { name: 'core', members: ['core/'] },
  { name: 'config', members: ['config/', '*/config.ts'] },
  { name: 'store', members: ['store/'] },
  { name: 'jobs, retention', members: ['jobs/', 'retention/'] },
  { name: 'inference', members: ['inference/'] },
  { name: 'pipeline', members: ['pipeline/'] },
  { name: 'models, highlight, ingest', members: ['models/', 'highlight/', 'ingest/'] },
  { name: 'delivery, capture, ops', members: ['delivery/', 'capture/', 'ops/'] },
  { name: 'api, dashboard', members: ['api/', 'dashboard/'] },
  { name: 'entry', members: ['daemon.ts', 'controller.ts', 'cli.ts'] },
];

/**
 * Imports that may break the rules, each with why. An entry names the importing
 * file and the imported one, both relative to runtime/.
 */
const ALLOWED: Array<{ from: string; to: string; why: string }> = [];

interface Import {
  from: string;
  to: string;
  /** as written in the source */
  specifier: string;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [path.relative(RUNTIME, full).split(path.sep).join('/')] : [];
  });
}

/** Every relative import of a file, resolved to the .ts file it names. */
function importsOf(file: string): Import[] {
  const text = fs.readFileSync(path.join(RUNTIME, file), 'utf8');
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .map((i) => i.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)).replace(/\.js$/, '.ts');
      return { from: file, to: target, specifier };
    });
}

function floorOf(file: string): number | undefined {
  const rules = FLOORS.flatMap((floor, index) => floor.members.map((member) => ({ member, index })));
  const exact = rules.find((r) => r.member === file);
  if (exact) return exact.index;
  const parts = file.split('/');
  const everyRoom = rules.find((r) => r.member.startsWith('*/') && parts.length === 2 && parts[1] === r.member.slice(2));
  if (everyRoom) return everyRoom.index;
  return rules.find((r) => r.member.endsWith('/') && file.startsWith(r.member))?.index;
}

const allowed = (i: Import) => ALLOWED.some((a) => a.from === i.from && a.to === i.to);

/** The files of each circle (strongly connected component of more than one file, or a file importing itself). */
function circles(files: string[], edges: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return found;
}

/** One way round a circle, from its first file back to it, for the failure message. */
function roundTrip(component: string[], edges: Map<string, string[]>): string[] {
  const inside = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of edges.get(v) ?? []) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let at: string | undefined = v; at !== undefined && at !== start; at = previous.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return component;
}

describe('layers of runtime/', () => {
  const files = sourceFiles(RUNTIME).sort();
  const imports = files.flatMap(importsOf);

  it('reads the imports of every source file, type-only and dynamic ones included', () => {
    expect(files.length).to.be.greaterThan(100);
    const has = (from: string, to: string) => imports.some((i) => i.from === from && i.to === to);
    expect(has('daemon.ts', 'api/server.ts'), 'a plain import').to.equal(true);
    expect(has('ops/wiring.ts', 'core/http-mount.ts'), 'an import type').to.equal(true);
    expect(has('delivery/wiring.ts', 'delivery/mqtt-publisher.ts'), 'an import()').to.equal(true);
  });

  it('puts every source file on a floor, and every import names a file that exists', () => {
    expect(files.filter((f) => floorOf(f) === undefined), 'files on no floor: add them to FLOORS').to.deep.equal([]);
    const known = new Set(files);
    expect(imports.filter((i) => !known.has(i.to)).map((i) => `${i.from}: ${i.specifier}`), 'imports of no .ts file').to.deep.equal([]);
  });

  it('has no import running up a floor', () => {
    const up = imports
      .filter((i) => !allowed(i) && floorOf(i.to)! > floorOf(i.from)!)
      .map((i) => `${i.from} (${FLOORS[floorOf(i.from)!]!.name}) imports '${i.specifier}' (${FLOORS[floorOf(i.to)!]!.name})`);
    expect(up, 'imports running up a floor').to.deep.equal([]);
  });

  it('has no circle among files', () => {
    const edges = new Map<string, string[]>();
    for (const i of imports) if (!allowed(i)) edges.set(i.from, [...(edges.get(i.from) ?? []), i.to]);
    const found = circles(files, edges).map((c) => roundTrip(c, edges).join(' -> '));
    expect(found, 'circles: move the names both sides share into a module of their own').to.deep.equal([]);
  });

  it('allows only exceptions that are still needed, each with its reason', () => {
    for (const a of ALLOWED) {
      expect(a.why.trim(), `${a.from} -> ${a.to} needs a reason`).to.not.equal('');
      const found = imports.find((i) => i.from === a.from && i.to === a.to);
      expect(found, `${a.from} no longer imports ${a.to}: remove the exception`).to.not.equal(undefined);
    }
  });
});
