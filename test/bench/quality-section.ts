// `node dist/test/bench/quality-section.js`: the quality section of `npm run bench` alone, for
// the default pack: the quality table with the naive pipeline beside it, then the real clips
// against the runtime before the nuisance rules. With `--against`, that last table only.
import { NaivePipeline } from './naive-bench.js';
import { againstBeforeNuisance, benchQuality, madeClips, realClips } from './quality-bench.js';
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
  process.stdout.write(await againstBeforeNuisance());
} finally {
  removeScratch();
}
process.exit(0);
