// One temporary folder for a whole bench run: every clip, data folder and
// model store the benches make goes under it (os.tmpdir() follows TMPDIR, and
// the daemons they start inherit it), and it is removed when the run ends.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Points TMPDIR at a fresh folder; returns what removes it. */
export function scratchTmp(): () => void {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-bench-run-'));
  process.env.TMPDIR = root;
  return () => fs.rmSync(root, { recursive: true, force: true });
}
