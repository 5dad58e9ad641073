// Removes from a production node_modules the packages that only building the
// native addons needs (node-gyp, node-addon-api, prebuild-install) together with
// whatever nothing else reaches: the tree is walked from the root package's
// dependencies (regular, optional and peer) the way Node resolves them, never
// through a build-only package, and every package it does not reach is removed.
//
//   node prune-build-only.mjs BUNDLE_DIR   (prints the removed packages)
import fs from 'node:fs';
import path from 'node:path';

const BUILD_ONLY = new Set(['node-gyp', 'node-addon-api', 'prebuild-install']);
const root = path.resolve(process.argv[2]);
const modules = path.join(root, 'node_modules');

const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
const depsOf = (meta) => Object.keys({ ...meta.dependencies, ...meta.optionalDependencies, ...meta.peerDependencies });

/** Where Node finds `name` from a package folder: its own node_modules, then each parent's. */
function resolve(fromDir, name) {
  for (let dir = fromDir; dir.startsWith(root); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === root) break;
  }
  return undefined;
}

const reached = new Set();
const queue = [root];
while (queue.length) {
  const dir = queue.pop();
  for (const name of depsOf(readJson(path.join(dir, 'package.json')))) {
    if (BUILD_ONLY.has(name)) continue;
    const found = resolve(dir, name);
    if (found && !reached.has(found)) {
      reached.add(found);
      queue.push(found);
    }
  }
}

/** Every installed package folder, nested ones included. */
function* packages(dir) {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir)) {
    if (entry.startsWith('.')) continue;
    const full = path.join(dir, entry);
    if (entry.startsWith('@')) {
      for (const scoped of fs.readdirSync(full)) yield* pkg(path.join(full, scoped));
    } else yield* pkg(full);
  }
}
function* pkg(dir) {
  if (!fs.existsSync(path.join(dir, 'package.json'))) return;
  yield dir;
  yield* packages(path.join(dir, 'node_modules'));
}

for (const dir of [...packages(modules)]) {
  if (reached.has(dir) || !fs.existsSync(dir)) continue;
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(path.relative(modules, dir));
}
for (const scope of fs.readdirSync(modules).filter((e) => e.startsWith('@'))) {
  if (fs.readdirSync(path.join(modules, scope)).length === 0) fs.rmdirSync(path.join(modules, scope));
}
