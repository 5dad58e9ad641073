// ffprobe a clip: the facts about its video stream that the result's specs,
// the analysis and the highlight need.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClipInfo } from '../core/analysis.js';
import { ErrorCode, PipelineError } from '../core/errors.js';
import { runTool, type ToolRun } from '../core/spawn.js';
import { ffmpegPath, ffprobePath } from '../core/tools.js';

interface ProbeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  nb_frames?: string;
  duration?: string;
  start_time?: string;
  /** the shape of a pixel, width:height (an analog camera's 720x576 is shown 4:3 or 16:9) */
  sample_aspect_ratio?: string;
  /** progressive, or which field comes first (tt, bb, tb, bt): an interlaced stream */
  field_order?: string;
  disposition?: { attached_pic?: number };
  /** a phone's or a turned camera's rotation, as older writers tag it */
  tags?: { rotate?: string };
  /** ...and as a display matrix, which ffprobe reads out as degrees */
  side_data_list?: Array<{ rotation?: number }>;
}

/**
 * Whether the stream is shown turned a quarter: a phone held upright stores its frames on
 * their side and says so. ffmpeg turns the frames as it decodes them (its autorotate), so
 * what the pipeline sees is the clip as shown, its width and height swapped.
 */
function turnedAQuarter(video: ProbeStream): boolean {
  const degrees = Number(video.tags?.rotate ?? video.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? 0);
  return Math.abs(Math.round(degrees / 90)) % 2 === 1;
}

function rate(text: string | undefined): number {
  if (!text) return 0;
  const [num, den] = text.split('/').map(Number);
  return den ? num / den : num || 0;
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/**
 * Containers whose header gives each stream's codec and size (ffprobe's format names): MP4 and
 * QuickTime, AVI. A transport stream's are found by reading its packets. Matroska and WebM
 * describe theirs too, but ffmpeg's demuxer opened without probing cannot seek in them ("Cannot
 * determine format of input stream 0:0 after EOF"), and a large clip's chosen frames are decoded
 * again from where they are.
 */
const DESCRIBING_CONTAINERS = [/^mov,/, /^avi$/];

/**
 * The shape of the stream's pixels, width over height, where they are not square: 64:45 for a
 * PAL 720x576 shown 16:9, whose bodies stored so are 30 % narrower than shown, too narrow for
 * the detector. Shapes from a half to twice as wide as tall and 10 % or more from square are
 * taken. Nearer, a body is a few percent narrower or wider, which the networks see through: PAL
 * 4:3's 16:15 (7 %) is left as stored, as it always was (`hand_ball.mp4` is such a clip, and
 * its person sits on the detector's threshold, where a resize moved it), and so is a scaler's
 * rounding (a view scaled to even sides keeps its shape in its pixels: 145:144 at 514x290).
 * Anything else, or none, is square.
 */
function pixelShape(video: ProbeStream): number {
  const [w, h] = (video.sample_aspect_ratio ?? '').split(':').map(Number);
  const shape = w && h ? w / h : 1;
  return shape >= 0.5 && shape <= 2 && Math.abs(shape - 1) >= 0.1 ? shape : 1;
}

/** ffprobe's field orders of an interlaced stream (top or bottom field first, coded and shown) */
const INTERLACED = ['tt', 'bb', 'tb', 'bt'];

export async function probeClip(file: string, signal?: AbortSignal): Promise<ClipInfo> {
  const run = await ffprobe(file, signal);
  // ffprobe crashed, which says nothing of the clip: the static x86-64 build dies on every
  // MPEG-TS file on some CPUs (AMD EPYC), where ffmpeg decodes it. Its video is probed as ffmpeg
  // copies it into Matroska.
  if (run.signal && !run.timedOut) return probeCopied(file, signal);
  return describe(file, run);
}

async function ffprobe(file: string, signal?: AbortSignal): Promise<ToolRun> {
  const run = await runTool(ffprobePath, ['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', file], { signal, maxBytes: 1 << 22, timeoutMs: 60_000 })
    .catch((err: NodeJS.ErrnoException) => {
      throw new PipelineError(ErrorCode.INVALID_VIDEO, `not a readable video: ffprobe could not be started (${err.code ?? err.message})`);
    });
  if (signal?.aborted) throw signal.reason;
  return run;
}

/**
 * The clip's facts from its first video stream copied by ffmpeg (no decoding) into a Matroska
 * file of its own: the same codec, size, rate and duration. Where ffmpeg cannot read the clip
 * either, its own error says why.
 */
export async function probeCopied(file: string, signal?: AbortSignal): Promise<ClipInfo> {
  // the copy's header is not the clip's: ffmpeg probes the clip itself
  return { ...describe(file, await copiedRun(file, signal)), headerDescribed: false };
}

async function copiedRun(file: string, signal?: AbortSignal): Promise<ToolRun> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'vigil-probe-'));
  try {
    const copy = path.join(dir, 'video.mkv');
    const copied = await runTool(ffmpegPath, ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', file, '-map', '0:v:0', '-c', 'copy', '-f', 'matroska', copy], { signal, timeoutMs: 60_000 })
      .catch((err: NodeJS.ErrnoException) => {
        throw new PipelineError(ErrorCode.INVALID_VIDEO, `not a readable video: ffmpeg could not be started (${err.code ?? err.message})`);
      });
    if (signal?.aborted) throw signal.reason;
    // the copy's path is no more the sender's business than the upload's
    const run = copied.code === 0 ? await ffprobe(copy, signal) : copied;
    return { ...run, stderr: run.stderr.replaceAll(copy, 'copy') };
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/** The clip's facts out of ffprobe's answer, or why there are none. */
function describe(file: string, { code, signal, stdout, stderr, timedOut }: ToolRun): ClipInfo {
  if (code !== 0) {
    // never the command line: it holds the binary's and the upload's paths
    const why = stderr.trim().split('\n').pop() || (timedOut ? 'ffprobe was stopped (no answer in time)' : `ffprobe exited with ${code ?? signal ?? 'an error'}`);
    throw new PipelineError(ErrorCode.INVALID_VIDEO, `not a readable video: ${why.replace(file, 'input')}`);
  }
  let parsed: { streams?: ProbeStream[]; format?: { duration?: string; format_name?: string; start_time?: string } };
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new PipelineError(ErrorCode.INVALID_VIDEO, 'not a readable video: ffprobe gave no description');
  }
  const streams = parsed.streams ?? [];
  const video = streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  if (!video || !video.width || !video.height) {
    const found = streams.map((s) => s.codec_type).filter(Boolean);
    throw new PipelineError(ErrorCode.INVALID_VIDEO, `no video stream in the file${found.length ? ` (it holds: ${[...new Set(found)].join(', ')})` : ''}`);
  }
  // ffprobe reads a picture as a one-frame "video"; a still is not a clip.
  const format = parsed.format?.format_name ?? '';
  if (format === 'image2' || format.endsWith('_pipe')) {
    throw new PipelineError(ErrorCode.INVALID_VIDEO, `a still image (${video.codec_name}), not a video clip`);
  }
  const fps = rate(video.avg_frame_rate) || rate(video.r_frame_rate);
  const duration = Number(video.duration) || Number(parsed.format?.duration) || 0;
  const nframes = Number(video.nb_frames) || Math.round(duration * fps);
  // the size shown: a pixel's shape stretches the stored width, a quarter turn swaps the sides
  const shape = pixelShape(video);
  const stretched = shape === 1 ? video.width : Math.round((video.width * shape) / 2) * 2;
  const turned = turnedAQuarter(video);
  return {
    path: file,
    width: turned ? video.height : stretched,
    height: turned ? stretched : video.height,
    ...(stretched !== video.width ? { decoded: turned ? { width: video.height, height: video.width } : { width: video.width, height: video.height } } : {}),
    duration: round3(duration),
    fps: round3(fps),
    nframes,
    codec: video.codec_name ?? 'unknown',
    // ffmpeg shifts a clip's time to start at 0 by what its own probing finds: where it already
    // starts there, the probing only repeats ffprobe's (a few frames decoded, a decoder opened)
    headerDescribed: DESCRIBING_CONTAINERS.some((name) => name.test(format)) && Number(parsed.format?.start_time) === 0 && Number(video.start_time ?? 0) === 0,
    ...(INTERLACED.includes(video.field_order ?? '') ? { interlaced: true } : {}),
  };
}
