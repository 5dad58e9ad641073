// Watching one camera: its detect stream decoded all the time at a few frames
// per second (small gray frames, the camera's masks applied, the motion pass's
// own comparison), its record stream kept as segments in a ring. Motion goes
// through the event rules (events.ts); each event becomes a clip cut from the
// segments, from pre_s before the motion to post_s after it, accepted like a
// captured clip. A trigger during an event joins it (the same result).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EventBus } from '../core/bus.js';
import { CancelledError, errorMessage } from '../core/errors.js';
import type { Feature } from '../core/feature.js';
import type { Logger } from '../core/log.js';
import type { Acceptance, Intake } from '../ingest/intake.js';
import { MOTION_GRID, MOTION_WIDTH, frameComparer } from '../pipeline/motion.js';
import type { MediaFiles } from '../store/media-files.js';
import { clipName } from './camera-capture.js';
import { MotionEvents, type EventChange } from './events.js';
import { redactedUrl } from '../core/redact.js';
import type { Camera, WatchSettings } from './resolve.js';
import { SegmentRing, joinSegments } from './segments.js';
import { CameraStream } from './stream.js';

/** Detect frames: the motion pass's width, 16:9 whatever the camera's shape (masks and the grid are relative). */
export const DETECT_SIZE = { width: MOTION_WIDTH, height: Math.round((MOTION_WIDTH * 9) / 16 / 2) * 2 };
/** changes over this share of the grid are the light changing (infrared switching, a cloud), not an object */
const LIGHT_CHANGE = 0.8;
/** how often the CPU of the camera's ffmpeg goes to the metrics */
const CPU_REPORT_MS = 10_000;
/** events kept in the status */
const LAST_EVENTS = 5;

export type WatchStateName = 'starting' | 'watching' | 'motion' | 'event' | 'down';

/** One event clip, as the status shows it (times ISO 8601). */
export interface WatchEventSummary {
  motion_start: string;
  motion_end: string;
  clip_start: string | null;
  clip_end: string | null;
  outcome: 'accepted' | 'failed';
  /** its result id when accepted */
  id: string | null;
  error: string | null;
}

/** A watched camera's status (GET /api/cameras/<id>/watch, and the dashboard's source). */
export interface CameraWatchStatus {
  camera: string;
  state: WatchStateName;
  /** when the state began */
  since: string;
  /** why it is down */
  reason: string | null;
  events_total: number;
  motion_seconds_total: number;
  reconnects_total: number;
  /** CPU seconds of its ffmpeg (decoding the detect stream, writing the segments), sampled every second */
  ffmpeg_cpu_seconds_total: number;
  /** the segment ring: what is kept in buffer_dir right now */
  buffer: { dir: string; segments: number; bytes: number };
  last_events: WatchEventSummary[];
}

export interface CameraWatchDeps {
  camera: Camera & { watch: WatchSettings };
  /** the folder of this camera's segments (removed at stop) */
  bufferDir: string;
  /** the folder holding bufferDir is the daemon's own: removed at stop once empty */
  ownBufferRoot: boolean;
  intake: Intake;
  files: MediaFiles;
  bus: EventBus;
  log: Logger;
}

interface OpenEvent {
  /** wall-clock ms of its first moving frame */
  start: number;
  unpin: () => void;
  acceptance: Promise<Acceptance>;
  resolve: (a: Acceptance) => void;
  reject: (err: unknown) => void;
}

export class CameraWatch implements Feature {
  readonly name: string;
  private streams: CameraStream[] = [];
  private ring: SegmentRing;
  private events: MotionEvents;
  private compare = frameComparer(DETECT_SIZE.width, DETECT_SIZE.height);
  private current: OpenEvent | undefined;
  private readonly cuts = new Set<Promise<void>>();
  private aborter = new AbortController();
  private stateName: WatchStateName = 'starting';
  private stateSince = new Date();
  private reason: string | null = null;
  private lastMovingAt = 0;
  private motionMs = 0;
  private eventsTotal = 0;
  private reconnects = 0;
  private cpuReported = 0;
  private cpuTimer: NodeJS.Timeout | undefined;
  private readonly lastEvents: WatchEventSummary[] = [];

  constructor(private readonly deps: CameraWatchDeps) {
    const w = deps.camera.watch;
    this.name = `watch ${deps.camera.id}`;
    // when idle only the pre-roll is kept (and what the event rules may still reach back to)
    this.ring = new SegmentRing(deps.bufferDir, (w.preS + w.minMotionS + 2 * w.segmentS + 2) * 1000);
    this.events = this.newEvents();
  }

  private newEvents(): MotionEvents {
    const w = this.deps.camera.watch;
    return new MotionEvents({ minMotionS: w.minMotionS, quietS: w.quietS, maxClipS: w.maxClipS, cooldownS: w.cooldownS });
  }

  async start(): Promise<void> {
    const { camera, log } = this.deps;
    const w = camera.watch;
    this.aborter = new AbortController();
    this.events = this.newEvents();
    this.compare = frameComparer(DETECT_SIZE.width, DETECT_SIZE.height, camera.masks);
    await this.ring.prepare();
    const frames = { fps: w.fps, ...DETECT_SIZE, onFrame: (gray: Buffer, at: number) => this.frame(gray, at) };
    const segments = {
      segmentS: w.segmentS,
      pattern: () => this.ring.pattern(),
      startNumber: () => this.ring.nextNumber,
      onSegment: (name: string, seconds: number, at: number) => this.ring.add(name, seconds, at),
    };
    const common = { camera, reconnectMaxS: w.reconnectMaxS, log };
    const health = (role: string) => ({
      onDown: (reason: string) => this.streamDown(role, reason),
      onUp: () => this.streamUp(role),
      onRestart: () => {
        this.reconnects++;
        this.deps.bus.emit('camera.reconnect', { camera: camera.id, role });
      },
    });
    this.streams = w.detectUrl
      ? [
        new CameraStream({ ...common, url: camera.url, role: 'record', segments, health: health('record') }),
        new CameraStream({ ...common, url: w.detectUrl, role: 'detect', frames, health: health('detect') }),
      ]
      : [new CameraStream({ ...common, url: camera.url, role: 'detect+record', frames, segments, health: health('detect+record') })];
    this.setState('starting');
    for (const s of this.streams) s.start();
    this.cpuTimer = setInterval(() => this.reportCpu(), CPU_REPORT_MS);
    this.cpuTimer.unref();
    log.info('watching camera', {
      camera: camera.id, url: redactedUrl(camera.url), detect_url: w.detectUrl ? redactedUrl(w.detectUrl) : 'the main stream, scaled',
      fps: w.fps, pre_s: w.preS, post_s: w.postS, buffer_dir: this.deps.bufferDir,
    });
  }

  async stop(): Promise<void> {
    this.aborter.abort(new CancelledError());
    clearInterval(this.cpuTimer);
    await Promise.all(this.streams.map((s) => s.stop()));
    this.reportCpu();
    if (this.current) {
      this.current.reject(new CancelledError());
      this.current.unpin();
      this.current = undefined;
    }
    await Promise.allSettled([...this.cuts]);
    await this.ring.remove(this.deps.ownBufferRoot);
  }

  /** The pids of the stream processes running now. */
  get pids(): number[] {
    return this.streams.flatMap((s) => (s.pid ? [s.pid] : []));
  }

  /** The result of the event under way, for a trigger that joins it; undefined with none. */
  join(): Promise<Acceptance> | undefined {
    return this.current?.acceptance;
  }

  status(): CameraWatchStatus {
    return {
      camera: this.deps.camera.id,
      state: this.stateName,
      since: this.stateSince.toISOString(),
      reason: this.reason,
      events_total: this.eventsTotal,
      motion_seconds_total: Math.round(this.motionMs) / 1000,
      reconnects_total: this.reconnects,
      ffmpeg_cpu_seconds_total: Math.round(this.streamCpuSeconds() * 100) / 100,
      buffer: { dir: this.deps.bufferDir, segments: this.ring.count, bytes: this.ring.bytes },
      last_events: [...this.lastEvents],
    };
  }

  private streamCpuSeconds(): number {
    return this.streams.reduce((sum, s) => sum + s.cpuSeconds, 0);
  }

  /** Tells the metrics the CPU its ffmpeg used since the last report. */
  private reportCpu(): void {
    const total = this.streamCpuSeconds();
    if (total > this.cpuReported) this.deps.bus.emit('camera.cpu', { camera: this.deps.camera.id, seconds: total - this.cpuReported });
    this.cpuReported = total;
  }

  private frame(gray: Buffer, at: number): void {
    const sample = this.compare(gray);
    if (!sample) {
      this.refreshState();
      return;
    }
    let solid = 0;
    let any = 0;
    for (let c = 0; c < sample.cells.length; c++) {
      any += sample.cells[c]!;
      solid += sample.solidCells[c]!;
    }
    const moving = solid >= this.deps.camera.watch.minCells && any <= LIGHT_CHANGE * MOTION_GRID.x * MOTION_GRID.y;
    if (moving) {
      if (this.lastMovingAt) this.motionMs += Math.min(at - this.lastMovingAt, 1000 / this.deps.camera.watch.fps);
      this.lastMovingAt = at;
    }
    this.apply(this.events.sample(at / 1000, moving));
    this.refreshState();
  }

  private apply(changes: EventChange[]): void {
    for (const change of changes) {
      if (change.type === 'start') this.open(change.at * 1000);
      else this.close(change.motionEnd * 1000, change.split);
    }
  }

  private open(start: number): void {
    let resolve!: (a: Acceptance) => void;
    let reject!: (err: unknown) => void;
    const acceptance = new Promise<Acceptance>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    acceptance.catch(() => undefined); // nobody may have joined it
    const unpin = this.ring.pin(start - this.deps.camera.watch.preS * 1000);
    this.current = { start, unpin, acceptance, resolve, reject };
    this.deps.log.info('motion event started', { camera: this.deps.camera.id, at: new Date(start).toISOString() });
  }

  private close(motionEnd: number, split: boolean): void {
    const event = this.current;
    this.current = undefined;
    if (!event) return;
    this.eventsTotal++;
    const cut = this.cut(event, motionEnd, split).finally(() => {
      event.unpin();
      this.cuts.delete(cut);
    });
    this.cuts.add(cut);
  }

  /** Waits for the segments up to post_s after the motion, joins them and accepts the clip. */
  private async cut(event: OpenEvent, motionEnd: number, split: boolean): Promise<void> {
    const { camera, files, intake, log, bus } = this.deps;
    const w = camera.watch;
    const from = event.start - w.preS * 1000;
    const to = motionEnd + w.postS * 1000;
    const summary: WatchEventSummary = {
      motion_start: new Date(event.start).toISOString(), motion_end: new Date(motionEnd).toISOString(),
      clip_start: null, clip_end: null, outcome: 'failed', id: null, error: null,
    };
    const signal = this.aborter.signal;
    // a segment closes at the keyframe after segment_s; a stream that is down gives what it has after the timeout
    const deadline = to + (3 * w.segmentS + camera.timeoutS) * 1000;
    while (this.ring.newestEnd < to && Date.now() < deadline && !signal.aborted) await new Promise((r) => setTimeout(r, 200));
    const workDir = path.join(files.incomingDir, `watch-${crypto.randomUUID()}`);
    try {
      if (signal.aborted) throw new CancelledError();
      const segments = this.ring.covering(from, to);
      if (!segments.length) throw new Error('the record stream gave no video for the event');
      summary.clip_start = new Date(segments[0]!.start).toISOString();
      summary.clip_end = new Date(segments.at(-1)!.end).toISOString();
      await fs.promises.mkdir(workDir, { recursive: true });
      const name = clipName(camera.id, new Date(segments[0]!.start));
      const file = path.join(workDir, name);
      await joinSegments(segments, file, signal);
      const { size } = await fs.promises.stat(file);
      const fields: Record<string, string> = {
        camera_id: camera.id,
        metadata: JSON.stringify({ watch: { motion_start: summary.motion_start, motion_end: summary.motion_end, clip_start: summary.clip_start, clip_end: summary.clip_end, split } }),
      };
      if (camera.flow) fields.flow = camera.flow;
      const accepted = await intake.accept(camera.tenant, { file, originalName: name, contentType: 'video/mp4', size, fields });
      summary.outcome = 'accepted';
      summary.id = accepted.id;
      log.info('motion event clip accepted', {
        camera: camera.id, id: accepted.id, motion_start: summary.motion_start, motion_end: summary.motion_end,
        clip_start: summary.clip_start, clip_end: summary.clip_end, segments: segments.length, bytes: size,
      });
      event.resolve(accepted);
      bus.emit('capture.finished', { camera: camera.id, outcome: 'recorded' });
    } catch (err) {
      event.reject(err);
      if (signal.aborted) return;
      summary.error = errorMessage(err);
      log.error('motion event clip not made', { camera: camera.id, motion_start: summary.motion_start, error: summary.error });
    } finally {
      await fs.promises.rm(workDir, { recursive: true, force: true });
    }
    this.lastEvents.unshift(summary);
    this.lastEvents.length = Math.min(this.lastEvents.length, LAST_EVENTS);
    bus.emit('camera.event', { camera: camera.id, outcome: summary.outcome, ...(summary.id ? { id: summary.id } : {}), motionS: (motionEnd - event.start) / 1000 });
  }

  private streamDown(role: string, reason: string): void {
    const { camera, log } = this.deps;
    // an event under way ends with the video there is
    if (role !== 'record') this.apply(this.events.interrupt(Date.now() / 1000));
    log.warn('camera down', { camera: camera.id, role, reason });
    this.refreshState(`${role} stream: ${reason}`);
  }

  private streamUp(role: string): void {
    this.deps.log.info('camera back', { camera: this.deps.camera.id, role });
    this.refreshState();
  }

  /** The state from the streams and the event rules; downReason when a stream just went down. */
  private refreshState(downReason?: string): void {
    const down = this.streams.some((s) => s.isDown);
    let next: WatchStateName;
    if (down) next = 'down';
    else if (this.current) next = 'event';
    else if (this.events.state === 'pending') next = 'motion';
    else next = 'watching';
    const reason = down ? downReason ?? this.reason : null;
    if (next === this.stateName && reason === this.reason) return;
    this.stateName = next;
    this.stateSince = new Date();
    this.reason = reason;
    this.deps.bus.emit('camera.watch', { camera: this.deps.camera.id, state: next, ...(reason ? { reason } : {}) });
  }

  private setState(state: WatchStateName): void {
    this.stateName = state;
    this.stateSince = new Date();
    this.reason = null;
    this.deps.bus.emit('camera.watch', { camera: this.deps.camera.id, state });
  }
}
