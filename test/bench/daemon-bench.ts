// End-to-end figures measured on the real daemon over loopback HTTP: sync
// latency per clip, throughput with concurrent uploads, and the daemon's peak
// resident memory (VmHWM of the daemon and of its interpreter worker processes).
import fs from 'node:fs';
import path from 'node:path';
import { readStat } from '../../runtime/ops/children.js';
import { TestDaemon } from '../support/daemon.js';

export interface ClipTiming {
  clip: string;
  syncMs: number;
  /** from the request to the classification stored (the 'clip classified' log line): the answer less the highlight */
  classifiedMs: number;
  /** CPU seconds of the daemon, its workers and its ffmpeg children for this clip */
  cpuSeconds: number;
  /** the result as answered */
  result: Record<string, any>;
}

export interface DaemonBench {
  timings: ClipTiming[];
  clipsPerMinute: number;
  concurrentUploads: number;
  peakRssMb: number;
  /** the largest proportional set size (shared pages split between processes) seen while sampling */
  peakPssMb: number;
}

function childrenOf(pid: number): string[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
}

/** Current proportional memory of the daemon and its child processes, MB. */
function pssMb(pid: number): number {
  const pss = (p: number | string) => {
    try {
      return Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      return 0;
    }
  };
  return Math.round((pss(pid) + childrenOf(pid).reduce((sum, c) => sum + pss(c), 0)) / 1024);
}

/** Peak resident memory of the daemon plus its interpreter worker processes (VmHWM of each, summed). */
function peakRssMb(pid: number): number {
  const hwm = (p: number | string) => {
    try {
      return Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      return 0;
    }
  };
  return Math.round((hwm(pid) + childrenOf(pid).reduce((sum, c) => sum + hwm(c), 0)) / 1024);
}

/** CPU seconds of a process, the children it reaped (ffmpeg) and its live children (interpreter workers). */
export function treeCpuSeconds(pid: number): number {
  let seconds = readStat(pid)?.cpuSeconds ?? 0;
  for (const child of childrenOf(pid)) {
    const stat = readStat(Number(child));
    if (stat) seconds += stat.cpuSeconds - stat.reapedChildrenSeconds;
  }
  return seconds;
}

export async function syncClassify(daemon: TestDaemon, file: string): Promise<ClipTiming> {
  const cpu0 = treeCpuSeconds(daemon.pid);
  const startedAt = Date.now();
  const started = performance.now();
  const res = await daemon.upload(file, {}, '?sync=true');
  const result = (await res.json()) as Record<string, any>;
  const syncMs = performance.now() - started;
  if (res.status !== 200) throw new Error(`sync classify of ${path.basename(file)} answered ${res.status}: ${JSON.stringify(result)}`);
  const classified = await daemon.waitForLog((l) => l.msg === 'clip classified' && l.id === result.id);
  return { clip: path.basename(file), syncMs, classifiedMs: Date.parse(String(classified.time)) - startedAt, cpuSeconds: treeCpuSeconds(daemon.pid) - cpu0, result };
}

export async function benchDaemon(clips: string[], throughputClip: string, concurrentUploads = 8, config: Record<string, unknown> = {}): Promise<DaemonBench> {
  const daemon = await new TestDaemon({ config }).start();
  let peakPssMb = 0;
  const sampler = setInterval(() => {
    peakPssMb = Math.max(peakPssMb, pssMb(daemon.pid));
  }, 100);
  try {
    // warm-up: the first clip pays for loading the models
    await syncClassify(daemon, clips[0]);
    const timings: ClipTiming[] = [];
    for (const clip of clips) timings.push(await syncClassify(daemon, clip));

    const started = performance.now();
    await Promise.all(Array.from({ length: concurrentUploads }, () => syncClassify(daemon, throughputClip)));
    const minutes = (performance.now() - started) / 60_000;
    return { timings, clipsPerMinute: concurrentUploads / minutes, concurrentUploads, peakRssMb: peakRssMb(daemon.pid), peakPssMb };
  } finally {
    clearInterval(sampler);
    await daemon.cleanup();
  }
}
