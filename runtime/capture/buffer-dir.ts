// Where watched cameras keep their record segments when watch.buffer_dir is
// not set: a RAM-backed folder, so that only the ring's few seconds live
// there and no SD card is written all the time: systemd's RuntimeDirectory
// (/run/vigil), else /dev/shm, else (neither writable) the data folder.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

function writable(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** The folder under which each watched camera has its own (named by its id). */
export function defaultBufferRoot(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const runtimeDir = env.RUNTIME_DIRECTORY?.split(':')[0];
  if (runtimeDir && writable(runtimeDir)) return path.join(runtimeDir, 'watch');
  // one folder per data folder: two daemons on one host never share segments
  const tag = crypto.createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12);
  if (writable('/dev/shm')) return path.join('/dev/shm', `vigil-watch-${tag}`);
  return path.join(dataDir, 'watch-buffer');
}
