// Clips with a known answer, each under several treatments (re-encoded as another camera would
// send it, a weather made over it), through the default pack: what each came out as, and
// whether that is right. Outcomes only (CPU is the quality table's).
import path from 'node:path';
import type { ModelService } from '../../runtime/models/model-service.js';
import { probeClip } from '../../runtime/pipeline/probe.js';
import { misses, startService, type Expectation } from './quality-bench.js';

/** Makes the treated clip of `clip` at `out`, and answers its path. */
export type Treatment = (clip: Expectation, out: string) => Promise<string>;

async function classify(service: ModelService, file: string) {
  const lease = await service.acquire();
  try {
    return await lease.classifier.classify(await probeClip(file), new AbortController().signal);
  } finally {
    lease.release();
  }
}

/** What a clip must come out as, in a few words: its labels (one of `anyOf`) and its risks. */
const expected = (e: Expectation) => `${[...e.must, ...(e.anyOf ? [e.anyOf.join('|')] : [])].join('+') || '-'} / ${e.risks.join('|')}`;

/**
 * A row per clip (its name under `column`, then each treatment's outcome) and, per treatment,
 * how many of the clips came out right. Treated clips are written to `dir`.
 */
export async function outcomeGrid(clips: Expectation[], treatments: Record<string, Treatment>, dir: string, column: string): Promise<{ rows: Array<Record<string, string>>; totals: Array<Record<string, string>> }> {
  const service = await startService('default');
  const rows: Array<Record<string, string>> = [];
  const right = new Map<string, number>();
  try {
    for (const [i, e] of clips.entries()) {
      const row: Record<string, string> = { [column]: e.name, expected: expected(e) };
      for (const [k, [name, treat]] of Object.entries(treatments).entries()) {
        const a = await classify(service, await treat(e, path.join(dir, `${i}-${k}.mp4`)));
        const wrong = misses(e, a);
        if (wrong.length === 0) right.set(name, (right.get(name) ?? 0) + 1);
        row[name] = `${a.labels.join(', ')} / ${a.risk}${wrong.length ? ` (NO: ${wrong.join(', ')})` : ''}`;
      }
      rows.push(row);
    }
  } finally {
    await service.stop();
  }
  const totals = Object.keys(treatments).map((name) => ({ treatment: name, right: `${right.get(name) ?? 0} of ${clips.length}` }));
  return { rows, totals };
}
