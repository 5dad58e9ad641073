// `vigil doctor`'s look at a camera Vigil records from: is it reachable, does
// its stream give video, and within its timeout_s? Read-only: the ffmpeg that
// records (with the recording's input options) decodes one frame to nowhere.
import { redactedUrl } from '../core/redact.js';
import { runTool } from '../core/spawn.js';
import { whyUnreachable } from '../core/tcp.js';
import { ffmpegPath } from '../core/tools.js';
import { inputArgs, reason, urlWithAddress, urlWithCredentials } from './recorder.js';
import type { Camera } from './resolve.js';

export interface CameraFinding {
  ok: boolean;
  detail: string;
  fix?: string;
}

const DEFAULT_PORTS: Record<string, number> = { 'rtsp:': 554, 'rtsps:': 322, 'http:': 80, 'https:': 443 };

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export async function checkCamera(camera: Camera): Promise<CameraFinding> {
  const shown = `${camera.id} (${redactedUrl(camera.url)})`;
  let addressed: string;
  try {
    addressed = await urlWithAddress(camera.url);
  } catch (err) {
    return { ok: false, detail: `${shown}: cannot resolve the host name (${(err as NodeJS.ErrnoException).code ?? err})`, fix: "check the host name in the camera's url, or give its address" };
  }
  const url = new URL(addressed);
  const port = Number(url.port) || DEFAULT_PORTS[url.protocol]!;
  const unreachable = await whyUnreachable(url.hostname, port, camera.timeoutS * 1000);
  if (unreachable) {
    return { ok: false, detail: `${shown}: unreachable (${unreachable})`, fix: "check that the camera is powered and on the network, and the host and port of its url" };
  }
  const args = [
    '-hide_banner', '-nostdin', '-loglevel', 'info', ...inputArgs(camera),
    '-i', urlWithCredentials({ ...camera, url: addressed }),
    '-map', '0:v:0', '-frames:v', '1', '-f', 'null', '-',
  ];
  const started = Date.now();
  // the recording allows timeout_s of silence: a stream that gives no video in that time would fail it
  const probe = await runTool(ffmpegPath, args, { timeoutMs: camera.timeoutS * 1000 });
  const took = Date.now() - started;
  if (probe.timedOut) {
    return { ok: false, detail: `${shown}: reachable, but no video within timeout_s (${camera.timeoutS} s)`, fix: 'check the stream path in url, or raise the camera\'s timeout_s if it is slow to start' };
  }
  // e.g. "Stream #0:0: Video: h264 (High), yuv420p(progressive), 320x180, 10 fps"
  const video = /Stream #\d+:\d+.*?: Video: (\w+).*?, (\d+)x(\d+)/.exec(probe.stderr);
  if (probe.code !== 0 || !video) {
    const why = reason(probe.stderr, camera, args) || (probe.code === 0 ? 'no video stream' : `ffmpeg exited with ${probe.code ?? probe.signal}`);
    return { ok: false, detail: `${shown}: reachable, stream not readable: ${why}`, fix: "check the camera's username and password (or password_file) and the stream path in url" };
  }
  return {
    ok: true,
    detail: `${shown}: reachable, ${video[1]} ${video[2]}x${video[3]} readable in ${seconds(took)} (timeout_s ${camera.timeoutS} s)`,
  };
}
