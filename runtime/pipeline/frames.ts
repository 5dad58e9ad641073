// Raw frames out of ffmpeg on a pipe: no image files. The caller names the
// filter chain (sampling, selection, scaling); frames come out as RGB or gray
// buffers of a fixed size, one per yielded item.
import { spawn } from 'node:child_process';
import { CancelledError, ErrorCode, PipelineError } from '../core/errors.js';
import { ffmpegPath } from '../core/tools.js';

export interface FrameRequest {
  input: string;
  /** the -vf chain; it must end at width x height */
  filters: string;
  width: number;
  height: number;
  pixelFormat: 'rgb24' | 'gray';
  signal: AbortSignal;
  /** decoder options placed before -i */
  inputArgs?: string[];
}

export async function* readFrames(request: FrameRequest): AsyncGenerator<Buffer> {
  const channels = request.pixelFormat === 'rgb24' ? 3 : 1;
  const frameBytes = request.width * request.height * channels;
  const child = spawn(ffmpegPath, [
    '-hide_banner', '-loglevel', 'error', '-nostdin', ...(request.inputArgs ?? []), '-i', request.input,
    '-an', '-sn', '-dn', '-vf', request.filters, '-vsync', '0', '-pix_fmt', request.pixelFormat, '-f', 'rawvideo', 'pipe:1',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr = (stderr + chunk).slice(-2000); });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
  spawnError.catch(() => undefined);
  const kill = () => child.kill('SIGKILL');
  request.signal.addEventListener('abort', kill, { once: true });
  try {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes < frameBytes) continue;
      let all = Buffer.concat(pending, pendingBytes);
      while (all.length >= frameBytes) {
        yield all.subarray(0, frameBytes);
        all = all.subarray(frameBytes);
      }
      pending = all.length ? [Buffer.from(all)] : [];
      pendingBytes = all.length;
    }
    const code = await Promise.race([exited, spawnError]);
    if (request.signal.aborted) throw new CancelledError();
    if (code !== 0) {
      throw new PipelineError(ErrorCode.DECODE_FAILED, `ffmpeg could not decode the clip: ${stderr.trim().split('\n').slice(-3).join(' ') || `exit ${code}`}`);
    }
  } finally {
    request.signal.removeEventListener('abort', kill);
    if (child.exitCode === null) kill();
  }
}

/** Even dimensions of a frame scaled to `width`, keeping the clip's aspect ratio. */
export function scaledSize(clipWidth: number, clipHeight: number, width: number): { width: number; height: number } {
  const w = Math.min(width, clipWidth) & ~1;
  return { width: w, height: Math.max(2, Math.round((w * clipHeight) / clipWidth / 2) * 2) };
}
