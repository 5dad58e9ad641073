// The runtime as it was before inferences followed the clip, run beside the
// current one in the same bench run: the reference of the CPU-per-clip
// target. It is built from the project's own history (git archive of one
// commit, compiled against this checkout's node_modules, whose packages it
// all has), so both are measured on the machine as it is during the run,
// not against a figure taken on another day.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';
import { PROJECT_ROOT } from '../support/paths.js';
import { syncClassify, type ClipTiming } from './daemon-bench.js';

/** Release 0.1.0 as of this commit: 9 inferences on the 10 s 720p clip, three decodes, a highlight at 15 frames per second. */
export const BEFORE_COMMIT = 'eb85f35';

/** Builds the runtime of `commit` (BEFORE_COMMIT unless said) in a temporary folder; answers its root, or why it could not. */
export function buildBefore(commit = BEFORE_COMMIT): { root: string } | { why: string } {
  const root = tempDir('vigil-before-');
  try {
    const archive = execFileSync('git', ['archive', '--format=tar', commit], { cwd: PROJECT_ROOT, maxBuffer: 256 * 1024 * 1024 });
    execFileSync('tar', ['-x', '-C', root], { input: archive });
    fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(root, 'node_modules'));
    execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: root, stdio: 'pipe' });
    return { root };
  } catch (err) {
    return { why: `the runtime of ${commit} could not be built from this checkout's history: ${(err as Error).message.split('\n')[0]}` };
  }
}

export interface BeforeComparison {
  runs: number;
  current: ClipTiming[];
  before: ClipTiming[];
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export const medianOf = (timings: ClipTiming[], figure: (t: ClipTiming) => number): number => median(timings.map(figure));

/**
 * The clip through both daemons, `runs` times each, one after the other (current, before,
 * current, ...), after one clip each to warm them up: the same machine moment for both.
 */
export async function compareWithBefore(root: string, clip: string, runs = 5): Promise<BeforeComparison> {
  return (await compareClipsWithBefore(root, [clip], runs))[0]!;
}

/** compareWithBefore for each of `clips`, the two daemons started once for all of them. */
export async function compareClipsWithBefore(root: string, clips: string[], runs = 5): Promise<BeforeComparison[]> {
  const current = await new TestDaemon({ config: {} }).start();
  const before = await new TestDaemon({ config: {}, runtime: { node: process.execPath, root } }).start();
  try {
    const comparisons: BeforeComparison[] = [];
    for (const clip of clips) {
      await syncClassify(current, clip);
      await syncClassify(before, clip);
      const result: BeforeComparison = { runs, current: [], before: [] };
      for (let i = 0; i < runs; i++) {
        result.current.push(await syncClassify(current, clip));
        result.before.push(await syncClassify(before, clip));
      }
      comparisons.push(result);
    }
    return comparisons;
  } finally {
    await current.cleanup();
    await before.cleanup();
  }
}
