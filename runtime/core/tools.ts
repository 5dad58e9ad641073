// Paths of the external programs the runtime drives. ffmpeg and ffprobe come
// from npm packages so every install has the same builds; VIGIL_FFMPEG and
// VIGIL_FFPROBE point elsewhere (a distribution build with hardware decoders).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const ffmpegPath: string =
  process.env.VIGIL_FFMPEG || (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
export const ffprobePath: string =
  process.env.VIGIL_FFPROBE || (require('@ffprobe-installer/ffprobe') as { path: string }).path;
