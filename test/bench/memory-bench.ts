// Memory of the real daemon and all its child processes (interpreter workers,
// ffmpeg), as PSS: shared pages are split between the processes sharing them,
// so the sum is what the board gives the whole runtime. Peak under concurrent
// 10 s 720p uploads, then at rest after every tenth clip up to 100: the trend
// of those ten is what a day of clips would add, their spread how much one
// idle moment differs from the next.
import fs from 'node:fs';
import path from 'node:path';
import { descendants, kindOf, proportionalBytes, type ChildKind } from '../../runtime/ops/children.js';
import { TestDaemon } from '../support/daemon.js';
import { PROJECT_ROOT } from '../support/paths.js';

const MB = 1024 * 1024;

export interface MemorySample {
  total: number;
  daemon: number;
  byKind: Record<ChildKind, number>;
}

/** PSS of the daemon and each of its descendants, MB. */
export function sampleMemory(pid: number): MemorySample {
  const byKind: Record<ChildKind, number> = { interpreter: 0, ffmpeg: 0, other: 0 };
  for (const child of descendants(pid)) byKind[kindOf(child.comm)] += proportionalBytes(child.pid) / MB;
  const daemon = proportionalBytes(pid) / MB;
  return { total: daemon + byKind.interpreter + byKind.ffmpeg + byKind.other, daemon, byKind };
}

/** The Environment= settings of the systemd unit, so the daemon runs as installed. */
export function unitEnvironment(): Record<string, string> {
  const unit = fs.readFileSync(path.join(PROJECT_ROOT, 'systemd', 'vigil.service'), 'utf8');
  return Object.fromEntries([...unit.matchAll(/^Environment="?([A-Z_]+)=([^"\n]*)"?$/gm)].map((m) => [m[1]!, m[2]!]));
}

async function syncClassify(daemon: TestDaemon, file: string): Promise<void> {
  const res = await daemon.upload(file, {}, '?sync=true');
  if (res.status !== 200) throw new Error(`sync classify answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
}

/** Waits until no ffmpeg runs and 3 s more (the daemon and its worker collect their garbage once idle), then takes the median of three samples a second apart. */
async function atRest(pid: number): Promise<MemorySample> {
  while (descendants(pid).some((c) => kindOf(c.comm) === 'ffmpeg')) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 3000));
  const samples: MemorySample[] = [];
  for (let i = 0; i < 3; i++) {
    samples.push(sampleMemory(pid));
    await new Promise((r) => setTimeout(r, 1000));
  }
  return samples.sort((a, b) => a.total - b.total)[1]!;
}

export interface MemoryBench {
  started: MemorySample;
  peak: MemorySample;
  /** the sample with the largest total, and the largest daemon alone seen */
  peakDaemon: number;
  /** at rest after each of the rests' clip counts (every tenth clip up to 100) */
  rests: number[];
  atRest: MemorySample[];
  workers: number;
  /** of the concurrent uploads */
  clipsPerMinute: number;
}

export async function benchMemory(clip: string, config: Record<string, unknown> = {}, concurrentUploads = 4, rests = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]): Promise<MemoryBench> {
  // the daemon's own defaults for what it runs at once (the harness sets 2)
  const daemon = await new TestDaemon({ config: { jobs: { concurrency: 'auto' }, log: { level: 'info' }, ...config }, env: unitEnvironment() }).start();
  let peak: MemorySample = { total: 0, daemon: 0, byKind: { interpreter: 0, ffmpeg: 0, other: 0 } };
  let peakDaemon = 0;
  let sampling = false;
  const sampler = setInterval(() => {
    if (!sampling) return;
    const s = sampleMemory(daemon.pid);
    if (s.total > peak.total) peak = s;
    peakDaemon = Math.max(peakDaemon, s.daemon);
  }, 50);
  try {
    await daemon.waitForLog((r) => r.msg === 'model pack active', 60_000);
    const started = await atRest(daemon.pid);
    const workers = descendants(daemon.pid).filter((c) => kindOf(c.comm) === 'interpreter').length;
    let done = 0;
    await syncClassify(daemon, clip);
    done++;
    sampling = true;
    const burst = performance.now();
    await Promise.all(Array.from({ length: concurrentUploads }, () => syncClassify(daemon, clip)));
    const clipsPerMinute = concurrentUploads / ((performance.now() - burst) / 60_000);
    sampling = false;
    done += concurrentUploads;
    const samples: MemorySample[] = [];
    for (const upTo of rests) {
      while (done < upTo) (await syncClassify(daemon, clip), done++);
      samples.push(await atRest(daemon.pid));
    }
    return { started, peak, peakDaemon, rests, atRest: samples, workers, clipsPerMinute };
  } finally {
    clearInterval(sampler);
    await daemon.cleanup();
  }
}

const mb = (n: number) => Math.round(n);

/** Least-squares slope of the values against their index (MB per step). */
export function slope(values: number[]): number {
  const n = values.length;
  const meanX = (n - 1) / 2;
  const meanY = values.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  values.forEach((y, x) => {
    num += (x - meanX) * (y - meanY);
    den += (x - meanX) ** 2;
  });
  return den ? num / den : 0;
}

export function memoryRows(m: MemoryBench): Array<Record<string, string | number>> {
  const parts = (s: MemorySample) =>
    `daemon ${mb(s.daemon)}, ${m.workers} interpreter worker${m.workers === 1 ? '' : 's'} ${mb(s.byKind.interpreter)}, ffmpeg ${mb(s.byKind.ffmpeg)}`;
  return [
    { figure: 'just started, PSS MB', value: mb(m.started.total), target: '', parts: parts(m.started) },
    { figure: 'peak under 4 concurrent 10 s 720p uploads, PSS MB', value: mb(m.peak.total), target: '<= 250', parts: `${parts(m.peak)} (daemon alone at most ${mb(m.peakDaemon)}); ${Math.round(m.clipsPerMinute)} clips per minute` },
    ...[10, 50, 100].flatMap((clips) => {
      const at = m.rests.indexOf(clips);
      return at < 0 ? [] : [{ figure: `at rest after ${clips} clips, PSS MB`, value: mb(m.atRest[at]!.total), target: clips === 50 ? '<= 150' : '', parts: parts(m.atRest[at]!) }];
    }),
    {
      // the first rest follows the concurrent burst, after which the worker's heap settles once: the trend is taken from the second on, the whole one beside it
      figure: `growth at rest, MB per 10 clips (trend of the rests after clip ${m.rests.slice(1).join(', ')})`, value: Math.round(slope(m.atRest.slice(1).map((r) => r.total)) * 10) / 10, target: '~0',
      parts: `daemon ${Math.round(slope(m.atRest.slice(1).map((r) => r.daemon)) * 10) / 10}, worker ${Math.round(slope(m.atRest.slice(1).map((r) => r.byKind.interpreter)) * 10) / 10}; from clip ${m.rests[0]} on: ${Math.round(slope(m.atRest.map((r) => r.total)) * 10) / 10}; the rests: ${m.atRest.map((r) => mb(r.total)).join(', ')} MB (spread ${mb(Math.max(...m.atRest.map((r) => r.total)) - Math.min(...m.atRest.map((r) => r.total)))})`,
    },
  ];
}
