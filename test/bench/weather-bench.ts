// The nuisance scenes in weather: rain and snow over foliage in wind, a flag, the night lot and
// a bush beside a walker, as they come together outdoors. A person watching would name the
// weather or the nuisance and raise nothing; a walker among them is still an intrusion. Then the
// real camera clips in each weather: the outcomes they have dry, and the weather named; and the
// same clips filmed in infrared at night, in weather the camera's illuminator lights.
// Outcomes only (CPU is the quality table's).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/clips.js';
import { infraredClip, nightViewClip } from '../support/night.js';
import { flagClip, foliageOverClip, sunflowerInWindClip, treesInWindClip } from '../support/nuisance-clips.js';
import { media } from '../support/paths.js';
import { weatherClip, type Weather } from '../support/weather.js';
import { outcomeGrid, type Treatment } from './outcome-grid.js';
import { realClips, type Expectation } from './quality-bench.js';
import { formatTable } from './table.js';

/** The weathers each scene is seen in, by name. */
export const WEATHERS: Record<string, Weather> = {
  drizzle: { kind: 'rain', density: 'drizzle' },
  rain: { kind: 'rain', density: 'rain' },
  'light snow': { kind: 'snow', density: 'light' },
  'heavy snow': { kind: 'snow', density: 'heavy' },
};

const NO_ONE: Pick<Expectation, 'mustNot' | 'risks'> = { mustNot: ['person', 'vehicule', 'animal', 'intrusion'], risks: ['safe'] };

/** The scenes, dry, with what they must come out as in any weather. */
export async function weatherScenes(dir: string): Promise<Expectation[]> {
  return [
    { name: 'trees swaying in wind', file: await treesInWindClip(path.join(dir, 'trees.mp4')), must: [], anyOf: ['plant', 'wind', 'rain'], ...NO_ONE },
    { name: 'sunflowers swaying in wind', file: await sunflowerInWindClip(path.join(dir, 'sunflowers.mp4')), must: [], anyOf: ['plant', 'wind', 'rain'], ...NO_ONE },
    { name: 'a flag fluttering on a pole', file: await flagClip(path.join(dir, 'flag.mp4'), { cloth: 'bands' }), must: [], anyOf: ['flag', 'rain'], ...NO_ONE },
    { name: 'the parking lot at night (infrared)', file: await nightViewClip(media('real/parking_overhead_cars.mp4'), path.join(dir, 'night-lot.mp4')), must: ['rain'], ...NO_ONE },
    {
      name: 'a bush swaying beside the worker walking',
      file: await foliageOverClip(media('real/worker_hardhat_walking.mp4'), path.join(dir, 'bush-worker.mp4'), { width: 480, height: 270, fps: 15, corner: 'left' }),
      must: ['person', 'intrusion'], mustNot: ['vehicule', 'animal'], risks: ['intrusion'],
    },
  ];
}

/** Each weather made over a clip (its first `seconds`, where given), as a treatment by the weather's name. */
function inEachWeather(weathers: Record<string, Weather>, seconds?: number): Record<string, Treatment> {
  const over = (weather: Weather): Treatment => (e, out) => weatherClip(e.file, out, weather, seconds ? { seconds } : {});
  return Object.fromEntries(Object.entries(weathers).map(([name, weather]) => [name, over(weather)]));
}

/** The weathers the real camera clips are seen in: the scenes' four and a downpour. */
export const REAL_WEATHERS: Record<string, Weather> = { ...WEATHERS, downpour: { kind: 'rain', density: 'downpour' } };

/** Seconds of each real clip the weather is made over: the two 30 s clips' first cars and walkers are in them. */
const REAL_SECONDS = 10;

/**
 * The ten real camera clips of ../shared/media/real in each weather: each must come out as its
 * README says, and name the rain or snow (the service calls both `rain`); an empty view says
 * `rain` instead of `NOTHING`.
 */
export async function benchRealInWeather(): Promise<{ rows: Array<Record<string, string>>; totals: Array<Record<string, string>> }> {
  const dir = tempDir('vigil-weather-real-');
  const inWeather = realClips().filter((e) => e.file.includes(`${path.sep}real${path.sep}`))
    .map((e) => ({ ...e, must: [...e.must.filter((l) => l !== 'NOTHING'), 'rain' as const] }));
  return outcomeGrid(inWeather, inEachWeather(REAL_WEATHERS, REAL_SECONDS), dir, 'clip');
}

/** The weathers the real clips are seen in at night: rain as fine, as usual and heavy snow. */
export const NIGHT_WEATHERS: Record<string, Weather> = { drizzle: REAL_WEATHERS.drizzle!, rain: REAL_WEATHERS.rain!, 'heavy snow': REAL_WEATHERS['heavy snow']! };

/**
 * The ten real camera clips filmed in infrared at night (infraredClip: gray, a third of the
 * light, a grain drawn anew for each frame) in weather over their first REAL_SECONDS: the drops
 * and flakes at the day's brightness over the dim view, as the illuminator beside the lens lights
 * them far brighter than the scene. Each must come out as its README says, and name the weather.
 */
export async function benchRealAtNightInWeather(): Promise<{ rows: Array<Record<string, string>>; totals: Array<Record<string, string>> }> {
  const dir = tempDir('vigil-weather-night-');
  const inWeather = realClips().filter((e) => e.file.includes(`${path.sep}real${path.sep}`))
    .map((e) => ({ ...e, must: [...e.must.filter((l) => l !== 'NOTHING'), 'rain' as const] }));
  const filmed = new Map<string, Promise<string>>();
  const atNight = (file: string) => filmed.get(file) ?? filmed.set(file, infraredClip(file, path.join(dir, `${path.basename(file, '.mp4')}-infrared.mp4`))).get(file)!;
  const treatments = Object.fromEntries(Object.entries(NIGHT_WEATHERS).map(([name, weather]): [string, Treatment] =>
    [name, async (e, out) => weatherClip(await atNight(e.file), out, weather, { seconds: REAL_SECONDS })]));
  return outcomeGrid(inWeather, treatments, dir, 'clip');
}

/** Each scene in each weather through the default pack: what it got, and whether that is right. */
export async function benchWeather(): Promise<{ rows: Array<Record<string, string>>; totals: Array<Record<string, string>> }> {
  const dir = tempDir('vigil-weather-');
  return outcomeGrid(await weatherScenes(dir), inEachWeather(WEATHERS), dir, 'scene');
}

/** The six tables of this section, printed: the scenes, the real clips, and the real clips at night, each with its totals. */
export async function weatherTables(): Promise<string> {
  const { rows, totals } = await benchWeather();
  const real = await benchRealInWeather();
  const night = await benchRealAtNightInWeather();
  return formatTable('The nuisance scenes in rain and snow made over them (default pack; target: every scene right in every weather)', rows) + '\n'
    + formatTable('Weathers right', totals) + '\n'
    + formatTable(`The real camera clips in rain and snow made over their first ${REAL_SECONDS} s (default pack; target: every clip right, with rain, in every weather)`, real.rows) + '\n'
    + formatTable('Weathers right, real clips', real.totals) + '\n'
    + formatTable(`The real camera clips filmed in infrared at night, in rain and snow the illuminator lights, over their first ${REAL_SECONDS} s (default pack; target: every clip right, with rain, in every weather)`, night.rows) + '\n'
    + formatTable('Weathers right, real clips at night', night.totals) + '\n';
}

// `node dist/test/bench/weather-bench.js`: this section alone
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(await weatherTables());
  process.exit(0);
}
