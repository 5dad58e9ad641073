// One ffmpeg run of the highlight room (the video, the snapshots): killed on
// abort or when stuck, its failure told by the last line of its error output,
// and a full volume reported as ENOSPC whatever ffmpeg's exit code.
import { saysNoSpace } from '../core/disk-full.js';
import { CancelledError } from '../core/errors.js';
import { spawnTool } from '../core/spawn.js';
import { ffmpegPath } from '../core/tools.js';

/** A render that takes longer than this is stuck (a 10 s cut takes seconds even on a Pi). */
const RENDER_TIMEOUT_MS = 5 * 60_000;
/** Keep only the end of ffmpeg's error output: the last lines say what went wrong. */
const STDERR_TAIL = 4096;

export function runFfmpeg(args: string[], signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawnTool(ffmpegPath, args, { pipes: [2], signal, timeoutMs: RENDER_TIMEOUT_MS });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-STDERR_TAIL);
    });
    child.once('error', (err) => {
      if (signal.aborted) reject(signal.reason ?? new CancelledError());
      else reject(err);
    });
    child.once('close', (code, killedBy) => {
      if (signal.aborted) return reject(signal.reason ?? new CancelledError());
      const noSpace = saysNoSpace(stderr);
      if (code === 0 && !noSpace) return resolve();
      const why = stderr.trim().split('\n').filter(Boolean).pop() ?? '';
      const how = killedBy ? `was killed (${killedBy}${killedBy === 'SIGKILL' ? ', timed out' : ''})` : `exited with code ${code}`;
      const failure = new Error(`ffmpeg ${how}${why ? `: ${why.replace(args[args.indexOf('-i') + 1], 'input')}` : ''}`);
      // a full volume may be said before the last line ("Conversion failed!"), or with exit code 0
      if (noSpace) Object.assign(failure, { code: 'ENOSPC' });
      reject(failure);
    });
  });
}
