// The daemon's child processes as the kernel sees them (Linux /proc): the
// interpreter workers (Node.js processes) and the ffmpeg/ffprobe runs, with
// their resident memory and CPU time. Nothing is asked of the code that spawns
// them, so every spawn site is covered.
import fs from 'node:fs';
import path from 'node:path';

export type ChildKind = 'interpreter' | 'ffmpeg' | 'other';
export const CHILD_KINDS: ChildKind[] = ['interpreter', 'ffmpeg', 'other'];

/** Linux reports times in USER_HZ ticks, 100 per second on every architecture's user ABI. */
const TICKS_PER_SECOND = 100;

export interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  /** user + system CPU of the process and of its reaped children, seconds */
  cpuSeconds: number;
  /** CPU of its reaped children alone (cutime + cstime), seconds */
  reapedChildrenSeconds: number;
}

/** One process's /proc stat, or undefined when it is gone (or not Linux). */
export function readStat(pid: number | 'self'): ProcStat | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined; // gone, or not Linux
  }
  // comm is in parentheses and may itself hold spaces or parentheses
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' '); // fields[0] is field 3 (state)
  const ticks = (i: number) => Number(fields[i - 3]) / TICKS_PER_SECOND;
  const stat = {
    pid: Number(text.slice(0, open)),
    ppid: Number(fields[1]),
    comm: text.slice(open + 1, close),
    cpuSeconds: ticks(14) + ticks(15) + ticks(16) + ticks(17),
    reapedChildrenSeconds: ticks(16) + ticks(17),
  };
  // a process that ended while it was read can leave a short or empty text: no numbers from it
  const numbers = [stat.pid, stat.ppid, stat.cpuSeconds, stat.reapedChildrenSeconds];
  return open > 0 && close > open && numbers.every(Number.isFinite) ? stat : undefined;
}

/** Proportional set size (shared pages split between the processes sharing them), bytes; 0 when gone. */
export function proportionalBytes(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'latin1'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function residentBytes(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

const NODE_NAME = path.basename(process.execPath).slice(0, 15); // comm is cut at 15 characters

export function kindOf(comm: string): ChildKind {
  if (comm === 'ffmpeg' || comm === 'ffprobe') return 'ffmpeg';
  if (comm === NODE_NAME || comm === 'node') return 'interpreter';
  return 'other';
}

/** Every descendant of the process, found through the parent ids in /proc. */
export function descendants(root: number): ProcStat[] {
  let pids: number[];
  try {
    pids = fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number);
  } catch {
    return [];
  }
  const byParent = new Map<number, ProcStat[]>();
  for (const pid of pids) {
    const st = readStat(pid);
    if (!st) continue;
    let list = byParent.get(st.ppid);
    if (!list) byParent.set(st.ppid, (list = []));
    list.push(st);
  }
  const out: ProcStat[] = [];
  const queue = [root];
  while (queue.length) {
    for (const child of byParent.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

export interface ChildrenSample {
  /** running children now, by kind */
  running: Record<ChildKind, { count: number; residentBytes: number }>;
  /** CPU seconds used since the sampler started, by kind (a counter) */
  cpuSeconds: Record<ChildKind, number>;
}

const perKind = <T>(make: () => T): Record<ChildKind, T> => ({ interpreter: make(), ffmpeg: make(), other: make() });

/**
 * Samples the children at each call. CPU is counted per process from one sample
 * to the next; when a child ends, the kernel adds its whole CPU time to ours
 * (cutime/cstime), and the part no sample saw (a run that started and ended
 * between two samples, or the last moments of a sampled one) is counted under
 * ffmpeg: interpreter workers live as long as the daemon, the short runs are
 * ffprobe and ffmpeg.
 */
export class ChildrenSampler {
  private readonly seen = new Map<number, { kind: ChildKind; cpu: number }>();
  private readonly cpu = perKind(() => 0);
  private reapedBaseline: number | undefined;

  sample(): ChildrenSample {
    const running = perKind(() => ({ count: 0, residentBytes: 0 }));
    const self = readStat('self');
    if (!self) return { running, cpuSeconds: { ...this.cpu } };
    const now = new Map<number, { kind: ChildKind; cpu: number }>();
    // direct children only for CPU (their own reaped children are in their cpuSeconds); all descendants for memory
    for (const child of descendants(self.pid)) {
      const kind = kindOf(child.comm);
      running[kind].count++;
      running[kind].residentBytes += residentBytes(child.pid);
      if (child.ppid !== self.pid) continue;
      const before = this.seen.get(child.pid);
      if (before && before.kind === kind) this.cpu[kind] += Math.max(0, child.cpuSeconds - before.cpu);
      else this.cpu[kind] += child.cpuSeconds;
      now.set(child.pid, { kind, cpu: child.cpuSeconds });
    }
    let seenOfEnded = 0;
    for (const [pid, s] of this.seen) if (!now.has(pid)) seenOfEnded += s.cpu;
    const reaped = self.reapedChildrenSeconds;
    if (this.reapedBaseline !== undefined) this.cpu.ffmpeg += Math.max(0, reaped - this.reapedBaseline - seenOfEnded);
    this.reapedBaseline = reaped;
    this.seen.clear();
    for (const [pid, s] of now) this.seen.set(pid, s);
    return { running, cpuSeconds: { ...this.cpu } };
  }
}
