// What the runtime costs besides the clips' own work: memory (peak and at
// rest), the time the API takes to answer after a start on a large store, and
// the fixed cost of the one-shot `vigil classify`. Part of `npm run bench`;
// `node dist/test/bench/footprint-bench.js [memory] [startup] [classify]` runs
// these tables alone.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ffmpeg, tempDir } from '../support/clips.js';
import { media } from '../support/paths.js';
import { benchClassify, classifyRows } from './classify-bench.js';
import { benchMemory, memoryRows } from './memory-bench.js';
import { benchStartup, startupRows } from './startup-bench.js';
import { scratchTmp } from './scratch.js';
import { formatTable } from './table.js';

/** A 10-second 720p clip: a slow pan across the squatting person. */
export async function hdClip(out = path.join(tempDir('vigil-bench-clips-'), 'squat-720p-10s.mp4')): Promise<string> {
  await ffmpeg([
    '-loop', '1', '-framerate', '25', '-i', media('squat.png'), '-t', '10',
    '-vf', "scale=1600:900:force_original_aspect_ratio=increase,crop=1280:720:'(iw-ow)*t/10':0,format=yuv420p",
    '-c:v', 'libx264', '-preset', 'ultrafast', out,
  ]);
  return out;
}

export type FootprintPart = 'memory' | 'startup' | 'classify';

export async function benchFootprint(hd: string, parts: FootprintPart[] = ['memory', 'startup', 'classify']): Promise<string> {
  const out: string[] = [];
  if (parts.includes('memory')) {
    out.push(formatTable('Memory (PSS of the daemon and all its child processes, default config, the environment of the systemd unit)', memoryRows(await benchMemory(hd))));
  }
  if (parts.includes('startup')) {
    out.push(formatTable('Start-up on a large store', startupRows(await benchStartup())));
  }
  if (parts.includes('classify')) {
    out.push(formatTable('One-shot vigil classify', classifyRows(await benchClassify())));
  }
  return out.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const parts = process.argv.slice(2) as FootprintPart[];
  const removeScratch = scratchTmp();
  hdClip()
    .then((hd) => benchFootprint(hd, parts.length ? parts : undefined))
    .then((text) => {
      removeScratch();
      process.stdout.write(text + '\n');
      process.exit(0);
    }, (err) => {
      removeScratch();
      process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : err}\n`);
      process.exit(1);
    });
}
