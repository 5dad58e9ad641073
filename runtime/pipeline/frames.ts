// Raw frames out of ffmpeg on a pipe: no image files. The caller names the
// filter chain (sampling, selection, scaling); frames come out as RGB or gray
// buffers of a fixed size, one per yielded item.
import fs from 'node:fs';
import type { FrameCopy } from '../core/analysis.js';
import { saysNoSpace } from '../core/disk-full.js';
import { CancelledError, ErrorCode, PipelineError } from '../core/errors.js';
import { spawnTool } from '../core/spawn.js';
import { ffmpegPath } from '../core/tools.js';
import type { BufferPool } from '../core/buffer-pool.js';

/**
 * The scaler's flags besides its algorithm. swscale's default fast paths
 * (x86 SIMD, arm NEON) round differently, so the x64 and arm64 ffmpeg builds
 * gave frames up to 3 levels apart; its exact C path gives the same pixels on
 * both (runtime/release/README.md, "The arm64 check under emulation").
 */
const EXACT_SCALING = 'accurate_rnd+bitexact';

/**
 * The pipeline's decodes run on one thread: ffmpeg's frame threads cost 25 to 35 % more CPU for
 * the same frames (measured on 720p and 768x432 clips, and 10 % on 320x240), and CPU per clip is
 * what a gateway's throughput is; the decode runs beside the interpreter worker anyway. H.264
 * decoding gives the same pixels on any number of threads.
 */
export const DECODE_THREADS = ['-threads', '1'];

/**
 * ffmpeg opens an input by decoding its first frames to learn what its streams are and when its
 * time starts; of a clip probed already whose header says both (ClipInfo.headerDescribed) that
 * repeats ffprobe's work: a decoder opened and closed, a few frames decoded (8 million
 * instructions and 150 page faults of a 3.6 s 768x432 clip's motion pass of 259 million). The
 * frames are the same.
 */
const UNPROBED = ['-nofind_stream_info'];

/**
 * An interlaced frame holds two fields a field's time apart (20 ms in PAL), line by line: where
 * something moves its edges comb, thin lines that are there for one frame only, as a drop's
 * streak is (a car in an analog recorder's 576i came out with `rain` 0.51). yadif makes each
 * frame one moment, a frame for a frame, and leaves a frame not flagged interlaced as it is.
 */
export const DEINTERLACE = 'yadif=mode=send_frame:deint=interlaced';

/** A scale filter to width x height (and the output's pixel format) giving the same pixels on every architecture. */
export function exactScale(width: number, height: number, algorithm: 'bilinear' | 'area' | 'neighbor'): string {
  return `scale=${width}:${height}:flags=${algorithm}+${EXACT_SCALING}`;
}

/** The decode stopped because its copy could not be written (a full volume); nothing is wrong with the clip. */
export class CopyNotWritten extends Error {
  constructor(stderr: string) {
    super(`the frame copy could not be written: ${stderr.trim().split('\n').pop()}`);
  }
}

/** After ffmpeg exited: cancelled, or a decode failure that quotes the end of its error output. */
function checkExit(code: number | null, signal: AbortSignal, stderr: string): void {
  if (signal.aborted) throw new CancelledError();
  if (code !== 0) {
    throw new PipelineError(ErrorCode.DECODE_FAILED, `ffmpeg could not decode the clip: ${stderr.trim().split('\n').slice(-3).join(' ') || `exit ${code}`}`);
  }
}

/** Even dimensions of a frame scaled to `width`, keeping the clip's aspect ratio. */
export function scaledSize(clipWidth: number, clipHeight: number, width: number): { width: number; height: number } {
  const w = Math.min(width, clipWidth) & ~1;
  return { width: w, height: Math.max(2, Math.round((w * clipHeight) / clipWidth / 2) * 2) };
}

export interface FrameSetRequest {
  input: string;
  /** filters applied once, before the frames are split to the outputs (sampling, selection) */
  filters: string;
  /** one RGB output per size: each selected frame comes out once at every size */
  sizes: Array<{ width: number; height: number }>;
  /** an output before the RGB ones: gray at this size, on the exact area scaler (the motion pass's frames) */
  gray?: { width: number; height: number };
  /** the clip's decoded size: an output of that size is only converted (without it, every output is taken as resized) */
  source?: { width: number; height: number };
  signal: AbortSignal;
  /** decoder options placed before -i */
  inputArgs?: string[];
  /** the input's header describes its video and its time starts at 0 (ClipInfo.headerDescribed): decoded without probing */
  headerDescribed?: boolean;
  /** the input is interlaced (ClipInfo.interlaced): its frames are deinterlaced first (DEINTERLACE) */
  interlaced?: boolean;
  /** the same decode also writes this copy of the frames, before `filters` (written whole or not at all) */
  copy?: FrameCopy;
  /**
   * Last outputs of only some frames: each gray at its size (exact area scaler) of the frames its
   * select expression picks (`n` counts the frames after `filters`), handed to its onFrame in order
   * as each is complete, apart from the yielded sets. Picking in ffmpeg spares the scaling and the
   * pipe of the other frames.
   */
  sparseGrays?: SparseGray[];
}

export interface SparseGray {
  width: number;
  height: number;
  select: string;
  onFrame: (frame: Buffer) => void;
  /** where its frames' buffers come from (the caller gives them back once done with them) */
  pool?: BufferPool;
}

/**
 * The filter of one output. A resized output is bilinear (the scale filter's
 * default) on the exact path. An output at the decoded size is only converted
 * to RGB, with swscale's fast converter as before: the builds' converters differ
 * by up to 3 levels, but every exact one measured (neighbor, bicubic, lanczos,
 * bicublin) moved the outcome of clips whose decision sits on a threshold
 * (runtime/release/README.md, "The arm64 check under emulation").
 */
function outputScale(size: { width: number; height: number }, source?: { width: number; height: number }): string {
  return size.width === source?.width && size.height === source.height ? `scale=${size.width}:${size.height}` : exactScale(size.width, size.height, 'bilinear');
}

/**
 * A pipe reader (net's onread) that reads raw frames of `frameBytes` straight into each frame's
 * own buffer (no buffer per read, no join, no copy; from `pool` when given) and hands over each
 * whole one.
 */
export function frameReader(frameBytes: number, onFrame: (frame: Buffer) => void, pool?: BufferPool): { buffer: () => Buffer; callback: (bytes: number) => void } {
  let frame: Buffer | undefined;
  let filled = 0;
  return {
    buffer: () => {
      frame ??= pool ? pool.take(frameBytes) : Buffer.allocUnsafeSlow(frameBytes);
      return frame.subarray(filled);
    },
    callback: (bytes: number) => {
      filled += bytes;
      if (filled < frameBytes) return;
      const whole = frame!;
      frame = undefined;
      filled = 0;
      onFrame(whole);
    },
  };
}

/**
 * Every selected frame at several sizes from one decode: ffmpeg splits the
 * stream and scales each branch, writing raw frames to its own pipe (fd 1, 3,
 * 4, ...). Yields one buffer per output for each frame, in order: the gray ones
 * first when asked for, then one per size. Each is a buffer of its own (not a
 * view into a larger one), so it can be kept or sent as it is.
 */
export async function* readFrameSets(request: FrameSetRequest): AsyncGenerator<Buffer[]> {
  const outputs = [
    ...(request.gray ? [{ ...request.gray, filter: exactScale(request.gray.width, request.gray.height, 'area'), pixelFormat: 'gray', channels: 1 }] : []),
    ...request.sizes.map((size) => ({ ...size, filter: outputScale(size, request.source), pixelFormat: 'rgb24', channels: 3 })),
  ];
  const sparse = request.sparseGrays ?? [];
  const dense = outputs.length;
  for (const s of sparse) outputs.push({ ...s, filter: `select='${s.select}',${exactScale(s.width, s.height, 'area')}`, pixelFormat: 'gray', channels: 1 });
  const n = outputs.length;
  const { copy } = request;
  const labels = outputs.map((_, i) => `o${i}`);
  // ffmpeg writes the copy itself: through this process it cost twice the decode's own time.
  const part = copy && `${copy.path}.part`;
  const input = request.interlaced ? `[0:v]${DEINTERLACE},` : '[0:v]';
  const graph = (copy ? `${input}split=2[main][c];[c]fps=${copy.fps},scale=${copy.width}:${copy.height}:flags=${copy.scaler}[copy];[main]` : input) +
    `${request.filters},split=${n}${labels.map((l) => `[${l}]`).join('')};` +
    outputs.map((o, i) => `[${labels[i]}]${o.filter}[s${i}]`).join(';');
  const fds = outputs.map((_, i) => (i === 0 ? 1 : i + 2));
  const args = fds.flatMap((fd, i) => ['-map', `[s${i}]`, '-vsync', '0', '-pix_fmt', outputs[i]!.pixelFormat, '-f', 'rawvideo', `pipe:${fd}`]);
  if (part) args.push('-map', '[copy]', '-vsync', '0', '-pix_fmt', 'yuv420p', '-f', 'rawvideo', '-y', part);
  // Every pipe is drained as data comes (ffmpeg would stall on a full one), straight into the
  // frame it belongs to (no buffer per read, no copy); whole frames wait in queues.
  const queues: Buffer[][] = outputs.map(() => []);
  let wake: (() => void) | undefined;
  let handed = false; // a sparse frame went to its onFrame since the last look
  const pipes = outputs.map((output, i) => {
    const frameBytes = output.width * output.height * output.channels;
    const reader = frameReader(frameBytes, (frame) => {
      if (i < dense) queues[i]!.push(frame);
      else {
        sparse[i - dense]!.onFrame(frame);
        handed = true;
      }
      wake?.();
    }, i < dense ? undefined : sparse[i - dense]!.pool);
    return { fd: fds[i]!, reader };
  });
  const child = spawnTool(ffmpegPath, [
    '-hide_banner', '-loglevel', 'error', '-nostdin', ...(request.headerDescribed ? UNPROBED : []), ...(request.inputArgs ?? []), '-i', request.input, '-an', '-sn', '-dn', '-filter_complex', graph, ...args,
  ], { pipes: [...pipes, 2], signal: request.signal });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr = (stderr + chunk).slice(-2000); });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  child.once('error', () => undefined);
  let open = n;
  const ended = () => {
    open--;
    wake?.();
  };
  for (const { fd } of pipes) {
    const stream = child.stdio[fd];
    if (stream) stream.once('end', ended);
    else open--; // ffmpeg did not start: its exit says why
  }
  let copied = false;
  try {
    for (;;) {
      if (dense > 0 && queues.slice(0, dense).every((q) => q.length > 0)) {
        yield queues.slice(0, dense).map((q) => q.shift()!);
        continue;
      }
      if (dense === 0 && handed) {
        // sparse outputs alone: an empty set as their frames are handed over, so the caller can stop the decode
        handed = false;
        yield [];
        continue;
      }
      if (open === 0) break;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
    const code = await exited;
    // a full volume stops the whole decode, not only the copy: the caller decodes again without it
    if (part && code !== 0 && !request.signal.aborted && saysNoSpace(stderr)) throw new CopyNotWritten(stderr);
    checkExit(code, request.signal, stderr);
    if (part) {
      await fs.promises.rename(part, copy.path);
      copied = true;
    }
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL'); // the caller stopped early (a no-op once it exited)
    if (part && !copied) await fs.promises.rm(part, { force: true });
  }
}

/**
 * A decode of sparse grays alone (readFrameSets with no other output): done once each has had its
 * frames, or stopped as soon as `enough` says so after one was handed over.
 */
export async function readSparseGrays(request: Omit<FrameSetRequest, 'sizes' | 'gray' | 'copy'> & { sparseGrays: SparseGray[] }, enough: () => boolean = () => false): Promise<void> {
  for await (const _handedOver of readFrameSets({ ...request, sizes: [] })) if (enough()) return;
}

/**
 * A decode of samples starts at the whole second at least this many samples before the first
 * (ffmpeg's input seek decodes from the keyframe before it and drops the frames before it), so
 * the sampling has the frames around the first at hand. A camera's clip has a keyframe every
 * second or few: a sample late in a long clip is decoded from the last one, not from the clip's
 * start. A whole second is a whole number of ticks of any stream's time base, so the frames'
 * times from the seek are exact and each sample is the frame the same sampling picks from the
 * start (a fraction of a second, rounded into a 12 fps stream's time base, moved a frame half
 * way between two samples over to the other one).
 */
const SEEK_MARGIN = 2;

export interface SampleRequest {
  input: string;
  /** as FrameSetRequest's */
  headerDescribed?: boolean;
  /** as FrameSetRequest's */
  interlaced?: boolean;
  /** the clip's decoded size (as FrameSetRequest's) */
  source?: { width: number; height: number };
  sizes: Array<{ width: number; height: number }>;
  /** samples a second: sample n is the frame the fps filter picks for n / fps s */
  fps: number;
  /** the samples wanted, in order */
  indices: number[];
  signal: AbortSignal;
}

/**
 * The samples `indices` of a clip (its frames sampled `fps` a second from the start, as the
 * motion pass samples them), each at every size, in order, from one decode that starts at the
 * keyframe before the first (SEEK_MARGIN) and stops after the last. Where the seek gave fewer
 * samples than asked (a transport stream whose seek lands past the last keyframe before it: no
 * frame comes until the next one), the rest are decoded from the start.
 */
export async function* readSamples(request: SampleRequest): AsyncGenerator<{ index: number; views: Buffer[] }> {
  const { fps, indices } = request;
  const from = Math.floor(Math.max(0, indices[0]! - SEEK_MARGIN) / fps) * fps;
  let next = 0;
  for await (const sample of readSamplesFrom(request, from)) {
    next++;
    yield sample;
  }
  if (from > 0 && next < indices.length) yield* readSamplesFrom({ ...request, indices: indices.slice(next) }, 0);
}

async function* readSamplesFrom({ input, headerDescribed, interlaced, source, sizes, fps, indices, signal }: SampleRequest, from: number): AsyncGenerator<{ index: number; views: Buffer[] }> {
  const seconds = from / fps;
  const until = indices[indices.length - 1]! / fps + 2 / fps;
  // From a seek, the samples are picked by their time since it: the sampling's first frame need
  // not fall on the seek's own sample (a source slower than the sampling).
  const select = indices.map((index) => (from ? `eq(round(t*${fps})\\,${index - from})` : `eq(n\\,${index})`)).join('+');
  const inputArgs = [...DECODE_THREADS, ...(from ? ['-ss', String(seconds)] : []), '-t', (until - seconds).toFixed(3)];
  let i = 0;
  for await (const views of readFrameSets({ input, headerDescribed, interlaced, source, filters: `fps=${fps},select='${select}'`, sizes, signal, inputArgs })) {
    const index = indices[i++];
    if (index === undefined) break;
    yield { index, views };
  }
}
