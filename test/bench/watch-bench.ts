// What watching a camera costs: a real RTSP server streams 640x360 H.264 at
// 5 fps (a still room, or people walking through it), the daemon watches it
// from that one stream (detect frames and record segments), and the CPU of
// the daemon and of the camera's ffmpeg is read from /proc over a window.
// Memory is the PSS the watch adds to the daemon, its ffmpeg's and the ring's
// bytes (RAM-backed). Latency: from the end of an event's motion plus post_s
// to its final result (the part of the wait that is the gateway's own).
// Four cameras for half an hour: no growth in memory, descriptors or processes.
import fs from 'node:fs';
import path from 'node:path';
import { descendants, proportionalBytes } from '../../runtime/ops/children.js';
import type { CameraWatchStatus } from '../../runtime/capture/watch.js';
import { RtspCamera, rtspServerBinary } from '../support/cameras.js';
import { stillLoop, walkLoop } from '../capture/watch-support.js';
import { tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';
import { formatTable, type Row } from './table.js';

const FPS = 5;
const WINDOW_MS = 30_000;
const WATCH = { enabled: true, fps: 5, pre_s: 3, post_s: 2, quiet_s: 3, cooldown_s: 2, segment_s: 2 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TICKS = 100;

/** User + system CPU seconds of the process itself (not its reaped children). */
function ownCpuSeconds(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'latin1').replace(/^.*\) /, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return 0;
  }
}

function pidsFor(url: string): number[] {
  return fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(url);
    } catch {
      return false;
    }
  });
}

async function status(daemon: TestDaemon, camera: string): Promise<CameraWatchStatus> {
  return (await (await fetch(`${daemon.url}/api/cameras/${camera}/watch`, { headers: daemon.auth() })).json()) as CameraWatchStatus;
}

interface Watched {
  cpuPercent: { daemon: number; ffmpeg: number };
  pssMb: { ffmpeg: number; ring: number };
  events: CameraWatchStatus['last_events'];
  latenciesS: number[];
}

/** Watches one stream with a fresh daemon over the window. */
async function watchOne(url: string): Promise<Watched> {
  const daemon = await new TestDaemon({ config: { cameras: [{ id: 'cam', url, timeout_s: 5, watch: WATCH }], log: { level: 'info' } } }).start();
  try {
    for (let i = 0; i < 40 && (await status(daemon, 'cam')).state === 'starting'; i++) await sleep(250);
    await sleep(5000); // past start-up
    const ffmpeg = pidsFor(url);
    const d0 = ownCpuSeconds(daemon.pid);
    const f0 = ffmpeg.reduce((a, p) => a + ownCpuSeconds(p), 0);
    const t0 = performance.now();
    await sleep(WINDOW_MS);
    const seconds = (performance.now() - t0) / 1000;
    const cpuPercent = {
      daemon: ((ownCpuSeconds(daemon.pid) - d0) / seconds) * 100,
      ffmpeg: ((ffmpeg.reduce((a, p) => a + ownCpuSeconds(p), 0) - f0) / seconds) * 100,
    };
    const s = await status(daemon, 'cam');
    const pssMb = {
      ffmpeg: pidsFor(url).reduce((a, p) => a + proportionalBytes(p), 0) / 2 ** 20,
      ring: s.buffer.bytes / 2 ** 20,
    };
    // each accepted event's final result, from the end of its motion plus post_s
    const latenciesS: number[] = [];
    for (const event of s.last_events.filter((e) => e.outcome === 'accepted')) {
      const final = await daemon.waitForLog((l) => l.msg === 'classification final' && l.id === event.id, 120_000);
      latenciesS.push((Date.parse(String(final.time)) - Date.parse(event.motion_end) - WATCH.post_s * 1000) / 1000);
    }
    return { cpuPercent, pssMb, events: s.last_events, latenciesS };
  } finally {
    await daemon.stop(); // its shutdown removes the segments it kept in RAM
    await daemon.cleanup();
  }
}

/** The daemon's PSS in MB: the median of five samples a second apart (the heap moves between collections). */
async function daemonPssMb(pid: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(proportionalBytes(pid) / 2 ** 20);
    await sleep(1000);
  }
  return samples.sort((a, b) => a - b)[2]!;
}

/** The PSS of a daemon without cameras, after the same minute the four-camera run waits. */
async function baselinePss(): Promise<number> {
  const daemon = await new TestDaemon({ config: { log: { level: 'info' } } }).start();
  try {
    await sleep(55_000);
    return await daemonPssMb(daemon.pid);
  } finally {
    await daemon.stop(); // its shutdown removes the segments it kept in RAM
    await daemon.cleanup();
  }
}

const r1 = (n: number) => Math.round(n * 10) / 10;

function openFds(pid: number): number {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

/** Four watched cameras (two still, two with people walking) for `minutes`: memory, descriptors and processes after the first minute and at the end. */
async function soak(stillUrl: string, walkUrl: string, minutes: number): Promise<{ rows: Row[]; daemonMb: number }> {
  const cameras = ['still-1', 'still-2', 'walk-1', 'walk-2'].map((id) => ({ id, url: id.startsWith('still') ? stillUrl : walkUrl, timeout_s: 5, watch: WATCH }));
  const daemon = await new TestDaemon({ config: { cameras, log: { level: 'info' } } }).start();
  try {
    const sample = () => {
      const tree = descendants(daemon.pid);
      return {
        pssMb: (proportionalBytes(daemon.pid) + tree.reduce((a, p) => a + proportionalBytes(p.pid), 0)) / 2 ** 20,
        fds: openFds(daemon.pid),
        processes: tree.length,
        ffmpeg: tree.filter((p) => p.comm.startsWith('ffmpeg')).length,
      };
    };
    await sleep(55_000);
    const daemonMb = await daemonPssMb(daemon.pid);
    const first = sample();
    await sleep(Math.max(0, minutes - 1) * 60_000);
    const last = sample();
    const events = (await Promise.all(cameras.map((c) => status(daemon, c.id)))).reduce((a, s) => a + s.events_total, 0);
    return { daemonMb, rows: [
      { figure: 'PSS, daemon and its children, MB (target: no growth)', 'after 1 min': r1(first.pssMb), [`after ${minutes} min`]: r1(last.pssMb) },
      { figure: 'open file descriptors of the daemon (target: no growth)', 'after 1 min': first.fds, [`after ${minutes} min`]: last.fds },
      { figure: 'child processes, of which ffmpeg (target: no growth)', 'after 1 min': `${first.processes}, ${first.ffmpeg}`, [`after ${minutes} min`]: `${last.processes}, ${last.ffmpeg}` },
      { figure: 'motion events (clips classified as they came)', 'after 1 min': '', [`after ${minutes} min`]: events },
    ] };
  } finally {
    await daemon.stop(); // its shutdown removes the segments it kept in RAM
    await daemon.cleanup();
  }
}

/** The "Watching a camera" tables; the four-camera run lasts `soakMinutes` (30 in `npm run bench`). */
export async function benchWatch(soakMinutes = 30): Promise<string> {
  const binary = rtspServerBinary();
  if (!binary) return 'Watching a camera\n  (not measured: rtsp-server-perl is not installed)\n';
  const dir = tempDir('vigil-bench-watch-');
  const rtsp = new RtspCamera(binary, await stillLoop(dir, 10, FPS), 'still');
  try {
    const walk = await walkLoop(dir, 'short', 5, FPS);
    await rtsp.start();
    const walkUrl = await rtsp.publish('walk', walk.file);
    const still = await watchOne(rtsp.url);
    const moving = await watchOne(walkUrl);
    const baseline = await baselinePss();
    const soaked = await soak(rtsp.url, walkUrl, soakMinutes);
    // the daemon's share of one camera: what four add to a daemon without cameras, over four
    const share = (soaked.daemonMb - baseline) / 4;
    const row = (scene: string, w: Watched): Row => ({
      scene,
      'CPU % of one core, daemon': r1(w.cpuPercent.daemon),
      'CPU %, ffmpeg': r1(w.cpuPercent.ffmpeg),
      'CPU %, total': r1(w.cpuPercent.daemon + w.cpuPercent.ffmpeg),
      'target at rest': scene.startsWith('still') ? '<= 5' : '',
      'MB: daemon share + ffmpeg PSS + ring': `${r1(share)} + ${r1(w.pssMb.ffmpeg)} + ${r1(w.pssMb.ring)} = ${r1(share + w.pssMb.ffmpeg + w.pssMb.ring)}`,
      'memory target': '<= 30',
      events: w.events.length,
    });
    const latencies = moving.latenciesS;
    const table = formatTable(`Watching a camera (640x360 H.264 at ${FPS} fps, one RTSP connection for detect frames and record segments; ${WINDOW_MS / 1000} s windows; CPU of event clips' classification not included)`, [
      row('still room', still),
      row('people walking through every 8 s', moving),
    ]);
    const latency = formatTable('Watching: from the end of an event\'s motion plus post_s to its final result (quiet_s, the last segment, the cut, classification)', [{
      events: latencies.length,
      'quiet_s': WATCH.quiet_s,
      'median s': latencies.length ? r1([...latencies].sort((a, b) => a - b)[latencies.length >> 1]!) : 'none',
      'max s': latencies.length ? r1(Math.max(...latencies)) : 'none',
      'of which the gateway\'s own (less quiet_s - post_s)': latencies.length ? r1([...latencies].sort((a, b) => a - b)[latencies.length >> 1]! - (WATCH.quiet_s - WATCH.post_s)) : 'none',
    }]);
    const soakTable = formatTable(`Four watched cameras for ${soakMinutes} minutes (the daemon's share per camera above: its PSS after 1 min, ${r1(soaked.daemonMb)} MB, less a daemon's without cameras, ${r1(baseline)} MB, over four)`, soaked.rows);
    return `${table}\n${latency}\n${soakTable}`;
  } finally {
    await rtsp.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// run alone: node dist/test/bench/watch-bench.js [minutes of the four-camera run]
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  process.stdout.write(await benchWatch(process.argv[2] ? Number(process.argv[2]) : undefined));
}
