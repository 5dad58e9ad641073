// `node dist/test/bench/quality-section.js`: the quality section of `npm run bench` alone, for
// the default pack: the quality table with the naive pipeline beside it, then the real clips
// against the runtime before the nuisance rules. With `--against`, that last table only.
import { buildBefore } from './before-bench.js';
import { NaivePipeline } from './naive-bench.js';
import { BEFORE_NUISANCE_COMMIT, benchAgainst, benchJobsAgainst, benchQuality, madeClips, realClips } from './quality-bench.js';
import { scratchTmp } from './scratch.js';
import { formatTable } from './table.js';

const removeScratch = scratchTmp();
try {
  if (!process.argv.includes('--against')) {
    const known = [...realClips(), ...(await madeClips())];
    const naive = await NaivePipeline.open('default');
    const run = await benchQuality('default', known, (file) => naive.run(file));
    await naive.close();
    process.stdout.write(formatTable(`Quality, default pack: ${run.right} of ${run.total} right (targets: every clip right, CPU vs naive <= 1)`, run.rows) + '\n');
  }
  const before = buildBefore(BEFORE_NUISANCE_COMMIT);
  process.stdout.write(('root' in before
    ? formatTable(`Real clips against the runtime before the nuisance rules (${BEFORE_NUISANCE_COMMIT}), default pack (target: CPU vs before <= 1.1)`, await benchAgainst(before.root, realClips())) + '\n' +
      formatTable('The same clips as whole jobs through the daemon, the answer with its highlight, against the same runtime before (what a gateway pays per clip; the target is the classification\'s, above)', await benchJobsAgainst(before.root, realClips()))
    : `Real clips against the runtime before the nuisance rules: not measured: ${before.why}`) + '\n');
} finally {
  removeScratch();
}
process.exit(0);
