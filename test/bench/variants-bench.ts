// The clips of the quality table as other cameras and recorders would send them: at a low
// bitrate, at 12 frames a second and at the few a recorder keeps, at twice their size, at
// 1080p, at two thirds of their size, interlaced, in PAL's 720x576 with pixels shaped to show the view as it was, and as a phone held
// upright stores them (on their side, tagged to be turned). The answer a person watching would
// give is the same; the runtime's should be too. Outcomes only (CPU is the quality table's).
import { fileURLToPath } from 'node:url';
import { probeClip } from '../../runtime/pipeline/probe.js';
import { ffmpeg, tempDir } from '../support/clips.js';
import { atNightClip, dimClip, infraredClip } from '../support/night.js';
import { outcomeGrid, type Treatment } from './outcome-grid.js';
import { madeClips, realClips, type Expectation } from './quality-bench.js';
import { formatTable } from './table.js';

/** How each variant is encoded (H.264 as recorders send it), by name. */
export const VARIANTS: Record<string, string[]> = {
  'crf 34 (a low bitrate)': ['-crf', '34'],
  '12 fps': ['-vf', 'fps=12', '-crf', '23'],
  // what a recorder keeps of a stream to save space: a few frames a second
  '7.5 fps': ['-vf', 'fps=7.5', '-crf', '23'],
  '5 fps': ['-vf', 'fps=5', '-crf', '23'],
  '3 fps': ['-vf', 'fps=3', '-crf', '23'],
  'twice the size': ['-vf', 'scale=trunc(iw*2/2)*2:trunc(ih*2/2)*2', '-crf', '23'],
  '1080p': ['-vf', 'scale=1920:-2', '-crf', '23'],
  'two thirds the size': ['-vf', 'scale=trunc(iw*0.67/2)*2:-2', '-crf', '23'],
};

/** Each clip and each variant of it through the default pack: what it got, and whether that is right. */
export async function benchVariants(clips: Expectation[]): Promise<{ rows: Array<Record<string, string>>; totals: Array<Record<string, string>> }> {
  const encode = (args: string[]): Treatment => async (e, out) => {
    await ffmpeg(['-i', e.file, '-an', ...args, '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', out]);
    return out;
  };
  const treatments: Record<string, Treatment> = {
    ...Object.fromEntries(Object.entries(VARIANTS).map(([name, args]) => [name, encode(args)])),
    // two fields a frame apart in each frame, as an analog camera's recorder writes them
    'interlaced': encode(['-vf', 'scale=trunc(iw/4)*4:trunc(ih/4)*4,tinterlace=interleave_top,setfield=tff', '-flags', '+ildct+ilme', '-x264opts', 'tff=1', '-crf', '23']),
    // stored 720x576, its pixels shaped so that it shows as the view was
    'PAL 720x576, pixels not square': async (e, out) => {
      const { width, height } = await probeClip(e.file);
      return encode(['-vf', `scale=720:576,setdar=${width}/${height}`, '-crf', '23'])(e, out);
    },
    // stored on its side and tagged to be turned a quarter back when shown
    'a phone held upright': async (e, out) => {
      const sideways = out.replace(/\.mp4$/, '-sideways.mp4');
      await encode(['-vf', 'transpose=clock', '-crf', '23'])(e, sideways);
      await ffmpeg(['-i', sideways, '-c', 'copy', '-metadata:s:v:0', 'rotate=90', out]);
      return out;
    },
  };
  return outcomeGrid(clips, treatments, tempDir('vigil-variants-'), 'clip');
}

/** The two tables of this section, printed. */
export async function variantTables(clips: Expectation[]): Promise<string> {
  const { rows, totals } = await benchVariants(clips);
  return formatTable('The same clips as other cameras and recorders send them (default pack; target: every variant of every clip right)', rows) + '\n'
    + formatTable('Variants right', totals) + '\n';
}

/**
 * The clips as a camera films the same views at night (test/support/night.ts): its illuminator
 * lighting them at 0.65 of the day's levels, at 0.35 (a weak one), and frame by frame in
 * infrared with the sensor's grain drawn anew for each. Gray, grainy, at a night stream's
 * bitrate; what moves in them moves as it did, so the answer is the day's.
 */
export async function nightTables(clips: Expectation[]): Promise<string> {
  const treatments: Record<string, Treatment> = {
    'at night (0.65 of the light)': (e, out) => atNightClip(e.file, out),
    'dim (0.35 of the light)': (e, out) => dimClip(e.file, out),
    'infrared, frame by frame': (e, out) => infraredClip(e.file, out),
  };
  const { rows, totals } = await outcomeGrid(clips, treatments, tempDir('vigil-night-'), 'clip');
  return formatTable('The same views filmed at night (default pack; target: every clip right at night as by day)', rows) + '\n'
    + formatTable('Right at night', totals) + '\n';
}

// `node dist/test/bench/variants-bench.js`: this section alone
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(await variantTables([...realClips(), ...(await madeClips())]));
  process.stdout.write(await nightTables(realClips()));
  process.exit(0);
}
