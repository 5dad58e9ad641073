// Records a few seconds from a camera with ffmpeg into an MP4 file, copying the
// video stream (no re-encoding on a small gateway) and dropping audio. It never
// hangs: socket timeouts make ffmpeg give up on a silent camera, and a hard
// timer kills it after record_s + timeout_s whatever it is doing.
import { redactSecrets, redactedUrl } from '../core/redact.js';
import dns from 'node:dns';
import fs from 'node:fs';
import net from 'node:net';
import { CancelledError, ErrorCode, PipelineError } from '../core/errors.js';
import { spawnTool } from '../core/spawn.js';
import { ffmpegPath } from '../core/tools.js';
import type { Camera } from './resolve.js';

/** The URL ffmpeg opens: the configured one with the credentials filled in. */
export function urlWithCredentials(camera: Pick<Camera, 'url' | 'username' | 'password'>): string {
  if (!camera.username && !camera.password) return camera.url;
  const url = new URL(camera.url);
  url.username = camera.username; // the setters percent-encode
  url.password = camera.password;
  return url.toString();
}

/**
 * The URL with its host name replaced by an address. The static ffmpeg build
 * from npm crashes when it has to resolve a name itself (no NSS in a static
 * binary), so Node resolves it first.
 */
export async function urlWithAddress(url: string): Promise<string> {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host)) return url;
  const { address, family } = await dns.promises.lookup(host);
  u.hostname = family === 6 ? `[${address}]` : address;
  return u.toString();
}


/** ffmpeg's input options for the camera: socket timeouts, the RTSP transport, wall-clock timestamps over HTTP. */
export function inputArgs(camera: Pick<Camera, 'url' | 'timeoutS' | 'rtspTransport'>): string[] {
  const timeoutUs = String(Math.round(camera.timeoutS * 1e6));
  const protocol = new URL(camera.url).protocol;
  if (protocol === 'rtsp:' || protocol === 'rtsps:') {
    const transport = camera.rtspTransport === 'auto' ? [] : ['-rtsp_transport', camera.rtspTransport];
    // -stimeout: socket I/O timeout of the RTSP demuxer (ffmpeg 4.x name), microseconds
    return [...transport, '-stimeout', timeoutUs];
  }
  // HTTP cameras stream live (MJPEG above all) and MJPEG carries no timestamps:
  // arrival time is the only true clock, or a 5 fps stream would take 5x as long.
  return ['-rw_timeout', timeoutUs, '-use_wallclock_as_timestamps', '1'];
}

export function recordArgs(camera: Camera, inputUrl: string, outFile: string): string[] {
  return [
    '-hide_banner', '-nostdin', '-loglevel', 'error', '-y',
    ...inputArgs(camera),
    '-i', inputUrl,
    '-t', String(camera.recordS),
    '-map', '0:v:0', '-c:v', 'copy', '-an',
    '-f', 'mp4', outFile,
  ];
}

/** The last meaningful line ffmpeg wrote, with the credentials taken out. */
export function reason(stderr: string, camera: Camera, args: string[]): string {
  let line = stderr.trim().split('\n').filter(Boolean).pop() ?? '';
  const inputUrl = args[args.indexOf('-i') + 1];
  line = line.split(inputUrl).join(redactedUrl(camera.url));
  for (const secret of camera.password ? [camera.password, encodeURIComponent(camera.password)] : []) line = line.split(secret).join('***');
  return redactSecrets(line.replace(/^\[[^\]]*\]\s*/, '')).slice(0, 300);
}

/**
 * Records camera.recordS seconds into outFile. Rejects with a PipelineError
 * CAPTURE_FAILED saying why, or with the signal's reason when aborted.
 */
export async function recordClip(camera: Camera, outFile: string, signal?: AbortSignal): Promise<void> {
  let addressed: Camera;
  try {
    addressed = { ...camera, url: await urlWithAddress(camera.url) };
  } catch (err) {
    throw new PipelineError(ErrorCode.CAPTURE_FAILED, `camera ${camera.id} (${redactedUrl(camera.url)}): cannot resolve the host name: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
  return runFfmpeg(camera, recordArgs(camera, urlWithCredentials(addressed), outFile), outFile, signal);
}

function runFfmpeg(camera: Camera, args: string[], outFile: string, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new CancelledError());
    const child = spawnTool(ffmpegPath, args, { pipes: [2] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4096);
    });
    let killedFor: 'timeout' | 'abort' | undefined;
    const started = Date.now();
    const limitS = camera.recordS + camera.timeoutS;
    const timer = setTimeout(() => {
      killedFor = 'timeout';
      child.kill('SIGKILL');
    }, limitS * 1000);
    const onAbort = () => {
      killedFor = 'abort';
      child.kill('SIGKILL');
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const fail = (message: string) => reject(new PipelineError(ErrorCode.CAPTURE_FAILED, `camera ${camera.id} (${redactedUrl(camera.url)}): ${message}`));
    child.once('error', (err) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      fail(`ffmpeg could not be started: ${err.message}`);
    });
    child.once('close', (code, killSignal) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (killedFor === 'abort') return reject(signal?.reason ?? new CancelledError());
      if (killedFor === 'timeout') return fail(`no complete ${camera.recordS} s recording within ${limitS} s; the recording was stopped`);
      if (code !== 0) {
        const why = reason(stderr, camera, args) || (killSignal ? `ffmpeg was killed by ${killSignal}` : `ffmpeg exited with ${code}`);
        // ffmpeg reports a socket timeout as bad data; say what most likely happened
        const silent = Date.now() - started >= camera.timeoutS * 1000 - 100;
        return fail(silent ? `no answer or no data for timeout_s (${camera.timeoutS} s); ffmpeg: ${why}` : `recording failed: ${why}`);
      }
      fs.promises.stat(outFile).then(
        (st) => (st.size > 0 ? resolve() : fail('the camera sent no video')),
        () => fail('the camera sent no video'),
      );
    });
  });
}

