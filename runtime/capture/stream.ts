// One live camera stream kept open by ffmpeg: small gray frames on a pipe (the
// detect output), its packets copied into segments (the record output), or
// both from one connection. A run that ends or stalls is started again after a
// backoff that doubles up to a limit; a stream silent for longer than the
// camera's timeout (and ffmpeg's probing time) is reported down, and up again
// with its next output.
import { redactedUrl } from '../core/redact.js';
import type { Logger } from '../core/log.js';
import { spawnTool, type ToolProcess } from '../core/spawn.js';
import { readStat } from '../ops/children.js';
import { ffmpegPath } from '../core/tools.js';
import { exactScale, frameReader } from '../pipeline/frames.js';
import { inputArgs, urlWithAddress, urlWithCredentials } from './recorder.js';
import type { Camera } from './resolve.js';
import { parseSegmentLine } from './segments.js';

export interface FrameOutput {
  fps: number;
  width: number;
  height: number;
  /** a gray frame (its own buffer) and when it came (wall-clock ms) */
  onFrame: (gray: Buffer, at: number) => void;
}

export interface SegmentOutput {
  segmentS: number;
  /** the muxer's output pattern for the next run and its first number */
  pattern: () => string;
  startNumber: () => number;
  /** a segment closed just now */
  onSegment: (name: string, seconds: number, at: number) => void;
}

export interface StreamHealth {
  /** the stream is reported down (silent for longer than the camera's timeout) */
  onDown: (reason: string) => void;
  /** output again after being down */
  onUp: () => void;
  /** a run ended and the next one is planned (a reconnect) */
  onRestart?: (reason: string, delayMs: number) => void;
}

export interface CameraStreamOptions {
  camera: Pick<Camera, 'id' | 'url' | 'username' | 'password' | 'timeoutS' | 'rtspTransport'>;
  /** the URL opened (the camera's url, or its detect_url) */
  url: string;
  /** shown in logs: "detect", "record" or "detect+record" */
  role: string;
  frames?: FrameOutput;
  segments?: SegmentOutput;
  reconnectMaxS: number;
  health: StreamHealth;
  log: Logger;
}

const BACKOFF_FIRST_MS = 1000;
const WATCHDOG_MS = 1000;
/** what a run may take before its first output, on top of the camera's timeout */
const STARTUP_MS = 5000;

export class CameraStream {
  private child: ToolProcess | undefined;
  private closed: Promise<void> = Promise.resolve();
  private stopped = true;
  private restartTimer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  /** when output last came (or the watching began): silence is measured from it */
  private lastOutputAt = 0;
  private failures = 0;
  private runStartedAt = 0;
  /** the run under way has given output */
  private runOutput = false;
  private down = false;
  private stderr = '';
  /** runs started since the start, the first included */
  runs = 0;
  /** CPU seconds of its ffmpeg runs so far (read from /proc every second while one runs) */
  cpuSeconds = 0;
  private runCpuSeen = 0;

  constructor(private readonly options: CameraStreamOptions) {}

  get isDown(): boolean {
    return this.down;
  }

  /** The pid of the ffmpeg run under way, if any. */
  get pid(): number | undefined {
    return this.child?.exitCode === null ? this.child.pid : undefined;
  }

  start(): void {
    this.stopped = false;
    this.lastOutputAt = Date.now();
    this.watchdog = setInterval(() => this.check(), WATCHDOG_MS);
    this.watchdog.unref();
    this.run();
  }

  /** Stops for good: no restart, the run under way killed and waited for. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    clearInterval(this.watchdog);
    this.child?.kill('SIGKILL');
    await this.closed;
  }

  /**
   * Silence longer than the limit: the run under way is killed (it restarts), and the stream is
   * reported down. A run that has given nothing yet is given longer: ffmpeg probes a stream for
   * up to its analyzeduration (5 s) before its first output.
   */
  private check(): void {
    const now = Date.now();
    const pid = this.pid;
    const cpu = pid ? readStat(pid)?.cpuSeconds : undefined;
    if (cpu !== undefined && cpu >= this.runCpuSeen) {
      this.cpuSeconds += cpu - this.runCpuSeen;
      this.runCpuSeen = cpu;
    }
    const { camera, segments, frames } = this.options;
    // a record-only run speaks once per segment: a keyframe interval longer than segment_s makes them longer
    const stallMs = Math.max(camera.timeoutS * 1000, frames ? 0 : 3 * segments!.segmentS * 1000);
    const runSilentMs = now - Math.max(this.lastOutputAt, this.runStartedAt);
    const grace = this.runOutput ? 0 : STARTUP_MS;
    if (this.child?.exitCode === null && runSilentMs > stallMs + grace) this.child.kill('SIGKILL');
    const silentMs = now - this.lastOutputAt;
    if (silentMs > stallMs + STARTUP_MS && !this.down) {
      this.down = true;
      const last = this.lastError();
      this.options.health.onDown(`no video for ${Math.round(silentMs / 1000)} s${last ? `; ffmpeg: ${last}` : ''}`);
    }
  }

  private output(): void {
    this.lastOutputAt = Date.now();
    this.runOutput = true;
    this.failures = 0;
    if (this.down) {
      this.down = false;
      this.options.health.onUp();
    }
  }

  private lastError(): string {
    const { camera, url } = this.options;
    let line = this.stderr.trim().split('\n').filter(Boolean).pop() ?? '';
    for (const secret of [urlWithCredentials({ ...camera, url }), url]) line = line.split(secret).join(redactedUrl(url));
    if (camera.password) line = line.split(camera.password).join('***');
    return line.replace(/^\[[^\]]*\]\s*/, '').slice(0, 300);
  }

  private run(): void {
    if (this.stopped) return;
    this.runs++;
    this.stderr = '';
    this.runStartedAt = Date.now();
    this.runOutput = false;
    this.runCpuSeen = 0;
    let settle: () => void = () => undefined;
    this.closed = new Promise((resolve) => (settle = resolve));
    void this.open().then(
      (child) => {
        if (this.stopped) {
          child.kill('SIGKILL');
        }
        child.once('close', (code, signal) => {
          this.child = undefined;
          settle();
          this.ended(signal ? `ffmpeg was killed by ${signal}` : `ffmpeg exited with ${code}`);
        });
      },
      (err: Error) => {
        settle();
        this.ended(err.message);
      },
    );
  }

  private async open(): Promise<ToolProcess> {
    const { camera, url, frames, segments } = this.options;
    const input = await urlWithAddress(urlWithCredentials({ ...camera, url }));
    const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', ...inputArgs({ ...camera, url })];
    // frames only for motion: one decoding thread, no deblocking (as the motion pass decodes)
    if (frames) args.push('-threads', '1', '-skip_loop_filter', 'all', '-flags2', '+fast');
    args.push('-i', input);
    if (segments) {
      args.push(
        '-map', '0:v:0', '-c:v', 'copy', '-an', '-sn', '-dn',
        '-f', 'segment', '-segment_time', String(segments.segmentS), '-segment_format', 'mpegts',
        '-reset_timestamps', '1', '-segment_start_number', String(segments.startNumber()),
        '-segment_list', 'pipe:3', '-segment_list_type', 'csv', segments.pattern(),
      );
    }
    if (frames) {
      args.push(
        '-map', '0:v:0', '-an', '-sn', '-dn',
        '-vf', `fps=${frames.fps},${exactScale(frames.width, frames.height, 'area')}`,
        '-pix_fmt', 'gray', '-f', 'rawvideo', 'pipe:1',
      );
    }
    const frameBytes = frames ? frames.width * frames.height : 0;
    const reader = frameReader(frameBytes, (whole) => {
      this.output();
      frames!.onFrame(whole, Date.now());
    });

    const pipes = [...(frames ? [{ fd: 1, reader }] : []), 2, ...(segments ? [3] : [])];
    const child = spawnTool(ffmpegPath, args, { pipes });
    this.child = child;
    child.once('error', () => undefined); // its close says it
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-2000)));
    if (segments) {
      let pending = '';
      child.stdio[3]?.setEncoding('utf8').on('data', (chunk: string) => {
        pending += chunk;
        let nl: number;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const parsed = parseSegmentLine(pending.slice(0, nl));
          pending = pending.slice(nl + 1);
          if (!parsed) continue;
          this.output();
          segments.onSegment(parsed.name, parsed.seconds, Date.now());
        }
      });
    }
    this.options.log.debug('stream opened', { camera: camera.id, role: this.options.role, url: redactedUrl(url), pid: child.pid, run: this.runs });
    return child;
  }

  /** A run ended: started again after the backoff, unless stopping. */
  private ended(why: string): void {
    if (this.stopped) return;
    const delayMs = Math.min(this.options.reconnectMaxS * 1000, BACKOFF_FIRST_MS * 2 ** this.failures);
    this.failures++;
    const reason = this.lastError() || why;
    this.options.health.onRestart?.(reason, delayMs);
    this.options.log.warn('stream ended; reconnecting', { camera: this.options.camera.id, role: this.options.role, reason, in_ms: delayMs });
    this.restartTimer = setTimeout(() => this.run(), delayMs);
  }
}
