// `npm run bench`: speed and memory figures as tables. Not a test: nothing
// here passes or fails; the targets are printed beside the figures.
import path from 'node:path';
import { panClip, sequenceClip, stillClip, tempDir } from '../support/clips.js';
import { media } from '../support/paths.js';
import { BEFORE_COMMIT, buildBefore, compareWithBefore, medianOf } from './before-bench.js';
import { benchDaemon } from './daemon-bench.js';
import { benchFootprint, hdClip } from './footprint-bench.js';
import { benchHighlight } from './highlight-bench.js';
import { benchPipeline } from './pipeline-bench.js';
import { NaivePipeline } from './naive-bench.js';
import { againstBeforeNuisance, benchCost, benchQuality, madeClips, realClips } from './quality-bench.js';
import { benchRetention } from './retention-bench.js';
import { nightTables, variantTables } from './variants-bench.js';
import { weatherTables } from './weather-bench.js';
import { scratchTmp } from './scratch.js';
import { benchWatch } from './watch-bench.js';
import { formatTable } from './table.js';

async function main(): Promise<void> {
  const dir = tempDir('vigil-bench-clips-');
  // A 10-second 720p clip: a slow pan across the squatting person.
  const hd = await hdClip(path.join(dir, 'squat-720p-10s.mp4'));
  const clips: Array<[string, string]> = [
    ['squat pan 720p 10 s', hd],
    ['grace_hopper pan', await panClip('grace_hopper.png', path.join(dir, 'grace.mp4'))],
    ['traffic sequence', await sequenceClip(['traffic_0001.png', 'traffic_0002.png', 'traffic_0003.png'], path.join(dir, 'traffic.mp4'))],
    ['static still', await stillClip('cat.png', path.join(dir, 'still.mp4'))],
    ['indoor_plants.mp4', media('indoor_plants.mp4')],
    ['hand_ball.mp4', media('hand_ball.mp4')],
    ['face_closeup.avi', media('face_closeup.avi')],
    ['cartoon.avi', media('cartoon.avi')],
  ];

  // Quality first: the default pack beside the first one (deeplab) in the same run, one
  // interpreter worker each, so CPU per clip compares like with like.
  const known = [...realClips(), ...(await madeClips())];
  const naive = await NaivePipeline.open('default');
  const quality = [await benchQuality('deeplab', known), await benchQuality('default', known, (file) => naive.run(file))];
  // the shared clips the quality table has no answer for: they too must cost no more than the naive pipeline
  const unjudged = await benchCost('default', [media('hand_ball.mp4'), media('cartoon.avi')], (file) => naive.run(file));
  await naive.close();
  const old = quality[0]!;
  process.stdout.write(formatTable('Quality on clips with a known answer (real camera clips first; targets: every real clip right, CPU per clip not above the deeplab pack\'s, CPU vs naive <= 1: the naive pipeline is 1 frame per second, both models on every whole frame)',
    known.flatMap((_, i) => quality.map((q) => q.rows[i]!))) + '\n');
  process.stdout.write(formatTable('The other shared clips against the naive pipeline (target: CPU vs naive <= 1)', unjudged) + '\n');
  process.stdout.write(formatTable('Quality totals', quality.map((q) => ({
    pack: q.pack,
    'right, real clips': `${q.rows.slice(0, realClips().length).filter((r) => r.ok === 'yes').length} of ${realClips().length}`,
    'right, all': `${q.right} of ${q.total}`,
    'CPU s, all clips': Math.round(q.cpuSeconds * 100) / 100,
    'CPU vs deeplab': Math.round((q.cpuSeconds / old.cpuSeconds) * 100) / 100,
    ...(q.pack === 'default' ? { 'CPU vs naive, worst clip (target <= 1)': Math.max(...q.rows.map((r) => Number(r['CPU vs naive']))) } : {}),
  }))) + '\n');

  process.stdout.write(await variantTables(known));
  process.stdout.write(await nightTables(realClips()));
  process.stdout.write(await weatherTables());

  // What the nuisance rules cost per real clip, against the runtime before them, built from the history.
  process.stdout.write(await againstBeforeNuisance());

  process.stdout.write(formatTable('Pipeline per clip (default pack; target wall/serial <= 1.15)', await benchPipeline(clips)) + '\n');

  const daemon = await benchDaemon(clips.map(([, f]) => f), hd, 6);
  process.stdout.write(formatTable('End to end through the daemon (POST ?sync=true: the answer, with the highlight; classified: the classification stored)', daemon.timings.map((t) => ({
    clip: path.basename(t.clip), sync_ms: Math.round(t.syncMs), classified_ms: Math.round(t.classifiedMs),
    'sync / classified': Math.round((t.syncMs / t.classifiedMs) * 100) / 100, cpu_ms: Math.round(t.cpuSeconds * 1000),
    risk: String(t.result.risk), labels: (t.result.labels as string[]).join(','), video: String(t.result.status?.video ?? ''),
  }))) + '\n');
  // The 10 s 720p clip beside the runtime before (built from the history), five times each, alternating.
  const built = buildBefore();
  const hdRuns = 'root' in built ? await compareWithBefore(built.root, hd, 5) : undefined;
  const r2 = (n: number) => Math.round(n * 100) / 100;
  const hdFigures = hdRuns ? [
    { figure: '10 s 720p clip, sync answer / classification alone, median of 5 (target <= 1.25)', value: r2(medianOf(hdRuns.current, (t) => t.syncMs / t.classifiedMs)) },
    { figure: '10 s 720p clip, CPU s for classification and highlight, median of 5', value: r2(medianOf(hdRuns.current, (t) => t.cpuSeconds)) },
    { figure: `the same through the runtime before (${BEFORE_COMMIT}: 9 inferences, three decodes, a highlight at 15 frames per second), median of 5 alternating with it`, value: r2(medianOf(hdRuns.before, (t) => t.cpuSeconds)) },
    { figure: 'CPU per 10 s 720p clip against the runtime before (target <= 0.6)', value: r2(medianOf(hdRuns.current, (t) => t.cpuSeconds) / medianOf(hdRuns.before, (t) => t.cpuSeconds)) },
  ] : [{ figure: 'CPU per 10 s 720p clip against the runtime before (target <= 0.6)', value: `not measured: ${(built as { why: string }).why}` }];
  process.stdout.write(formatTable('Daemon totals', [
    ...hdFigures,
    { figure: `clips per minute, ${daemon.concurrentUploads} concurrent 10 s 720p uploads`, value: Math.round(daemon.clipsPerMinute * 10) / 10 },
    { figure: 'peak memory (PSS, shared pages counted once), daemon + interpreter workers, MB (these uploads; the memory table has the targets)', value: daemon.peakPssMb },
    { figure: 'peak resident memory (VmHWM summed per process), daemon + interpreter workers, MB', value: daemon.peakRssMb },
  ]) + '\n');

  process.stdout.write(formatTable('Highlight render per clip', await benchHighlight()) + '\n');
  process.stdout.write(formatTable('Retention', await benchRetention()) + '\n');
  process.stdout.write(await benchFootprint(hd) + '\n');
  process.stdout.write(await benchWatch() + '\n');
}

const removeScratch = scratchTmp();
main().then(() => {
  removeScratch();
  process.exit(0);
}, (err) => {
  removeScratch();
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : err}\n`);
  process.exit(1);
});
