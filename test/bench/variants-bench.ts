// The clips of the quality table as other cameras and recorders would send them: at a low
// bitrate, at 12 frames a second, at twice their size, at 1080p, at two thirds of their size. The answer a
// person watching would give is the same; the runtime's should be too. Outcomes only (CPU is
// the quality table's).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ModelService } from '../../runtime/models/model-service.js';
import { probeClip } from '../../runtime/pipeline/probe.js';
import { ffmpeg, tempDir } from '../support/clips.js';
import { madeClips, misses, realClips, startService, type Expectation } from './quality-bench.js';
import { formatTable } from './table.js';

/** How each variant is encoded (H.264 as recorders send it), by name. */
export const VARIANTS: Record<string, string[]> = {
  'crf 34 (a low bitrate)': ['-crf', '34'],
  '12 fps': ['-vf', 'fps=12', '-crf', '23'],
  'twice the size': ['-vf', 'scale=trunc(iw*2/2)*2:trunc(ih*2/2)*2', '-crf', '23'],
  '1080p': ['-vf', 'scale=1920:-2', '-crf', '23'],
  'two thirds the size': ['-vf', 'scale=trunc(iw*0.67/2)*2:-2', '-crf', '23'],
};

async function classify(service: ModelService, file: string) {
  const lease = await service.acquire();
  try {
    return await lease.classifier.classify(await probeClip(file), new AbortController().signal);
  } finally {
    lease.release();
  }
}

/** Each clip and each variant of it through the default pack: what it got, and whether that is right. */
export async function benchVariants(clips: Expectation[]): Promise<{ rows: Array<Record<string, string>>; totals: Array<Record<string, string>> }> {
  const dir = tempDir('vigil-variants-');
  const service = await startService('default');
  const rows: Array<Record<string, string>> = [];
  const right = new Map<string, number>();
  try {
    for (const [i, e] of clips.entries()) {
      const row: Record<string, string> = { clip: e.name, expected: `${e.must.join('+') || '-'} / ${e.risks.join('|')}` };
      for (const [name, args] of Object.entries(VARIANTS)) {
        const file = path.join(dir, `${i}-${Object.keys(VARIANTS).indexOf(name)}.mp4`);
        await ffmpeg(['-i', e.file, '-an', ...args, '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', file]);
        const a = await classify(service, file);
        const wrong = misses(e, a);
        if (wrong.length === 0) right.set(name, (right.get(name) ?? 0) + 1);
        row[name] = `${a.labels.join(', ')} / ${a.risk}${wrong.length ? ` (NO: ${wrong.join(', ')})` : ''}`;
      }
      rows.push(row);
    }
  } finally {
    await service.stop();
  }
  const totals = Object.keys(VARIANTS).map((name) => ({ variant: name, right: `${right.get(name) ?? 0} of ${clips.length}` }));
  return { rows, totals };
}

/** The two tables of this section, printed. */
export async function variantTables(clips: Expectation[]): Promise<string> {
  const { rows, totals } = await benchVariants(clips);
  return formatTable('The same clips as other cameras and recorders send them (default pack; target: every variant of every clip right)', rows) + '\n'
    + formatTable('Variants right', totals) + '\n';
}

// `node dist/test/bench/variants-bench.js`: this section alone
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(await variantTables([...realClips(), ...(await madeClips())]));
  process.exit(0);
}
