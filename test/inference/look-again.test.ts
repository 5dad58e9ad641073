// Looking again, with the real models on real footage: a sighting one detector step from its
// threshold (margins), and a small mover that could be a far walker at night (in the rain too),
// are looked at closer before they decide anything. Through `vigil classify`, whose JSON carries the frames
// the networks saw and how many inferences ran, and through the daemon for the result.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { ffmpeg, panClip, pannedClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';
import { farNightWalkerClip } from '../support/night.js';
import { media, PROJECT_ROOT, SHARED_MODELS } from '../support/paths.js';
import { weatherClip } from '../support/weather.js';

const run = promisify(execFile);

interface KeyFrame { t: number; detections: Array<{ label: string; score: number; box: { x: number; y: number; w: number; h: number } }> }

describe('looking again (default pack, real models)', function () {
  this.timeout(300_000);
  const dir = tempDir('vigil-look-again-');
  const config = path.join(dir, 'vigil.yaml');
  let daemon: TestDaemon;
  let farWalker: string;
  let fainterWalker: string;

  before(async () => {
    fs.writeFileSync(config, `storage:\n  data_dir: ${JSON.stringify(path.join(dir, 'data'))}\nmodels:\n  source: ${JSON.stringify(SHARED_MODELS)}\n`);
    // A real worker walking away, cut out of its warehouse and carried into the far side of a
    // real parking lot at night: about 45 px tall in a 1280x720 infrared view.
    farWalker = await farNightWalkerClip(media('real/worker_hardhat_walking.mp4'), media('real/parking_overhead_cars.mp4'), path.join(dir, 'far-walker.mp4'), { scale: 0.35, at: { x: 0.3, y: 0.55 } });
    // Farther still, about 32 px tall: too faint against the night to be followed as a creature
    fainterWalker = await farNightWalkerClip(media('real/worker_hardhat_walking.mp4'), media('real/parking_overhead_cars.mp4'), path.join(dir, 'fainter-walker.mp4'), { scale: 0.25, at: { x: 0.55, y: 0.35 } });
    daemon = await new TestDaemon().start();
  });
  after(async () => {
    await daemon?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function vigilClassify(file: string): Promise<{ labels: string[]; risk: string; keyframes: KeyFrame[]; stats: { inferences?: Record<string, number> } }> {
    const { stdout } = await run(process.execPath, [path.join(PROJECT_ROOT, 'dist/runtime/cli.js'), 'classify', file, '--config', config], { cwd: PROJECT_ROOT });
    return JSON.parse(stdout);
  }

  it('a lone frame is framed closer: the fisheye clip\'s people at the far edge, in the one frame the clip affords, are seen surely by one inference: person and intrusion', async () => {
    const r = await vigilClassify(media('real/fisheye_people_edge.mp4'));
    expect(r.labels).to.include.members(['person', 'intrusion']);
    expect(r.stats.inferences?.detector, JSON.stringify(r)).to.equal(1);
    // framed at the first look's least (270 px) the detector scored them 0.58, a step from 0.55, and looked again
    const person = r.keyframes.flatMap((k) => k.detections.filter((d) => d.label === 'person'));
    expect(Math.max(...person.map((d) => d.score))).to.be.at.least(0.63);
  });

  // Grace Hopper's portrait panned, at twice its size (a recorder's upscale): the detector sees her
  // once at 0.58, a step over 0.55, her box too large for a closer view. (The car driving down the
  // parking lot in rain on its puddles was this test's clip until pack 2.9: the classifier, seeing
  // a car's body styles together, is now sure of it in two frames, and nothing is left in doubt.)
  it('margins: a person seen once one step over the threshold, too large for a closer view, is looked at again a few tenths of a second away and confirmed: person, and a risk that is not safe', async () => {
    const panned = await panClip('grace_hopper.png', path.join(dir, 'grace-hopper-pan.mp4'));
    const larger = path.join(dir, 'grace-hopper-pan-larger.mp4');
    await ffmpeg(['-i', panned, '-an', '-vf', 'scale=trunc(iw*2/2)*2:trunc(ih*2/2)*2', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p', larger]);
    const r = await vigilClassify(larger);
    expect(r.labels, JSON.stringify(r)).to.include('person');
    expect(r.risk).to.not.equal('safe');
    const seen = r.keyframes.flatMap((k) => k.detections.filter((d) => d.label === 'person').map((d) => ({ t: k.t, ...d })));
    expect(seen.length, JSON.stringify(r.keyframes)).to.be.at.least(2);
    // the first look's sighting and the look again: close in time, overlapping where she is
    const [a, b] = [...seen].sort((x, y) => x.t - y.t).slice(-2);
    expect(Math.abs(a!.t - b!.t)).to.be.at.most(0.5);
    expect(Math.abs(a!.box.x - b!.box.x)).to.be.below(0.1);
    expect(Math.min(a!.score, b!.score), 'one of them within a step of 0.55').to.be.below(0.63);
    expect(r.stats.inferences?.detector, 'the first look and the look again').to.equal(2);
  });

  // 1.2 s of the room as the woman walks away from the camera: a clip that affords one look, and
  // the detector sees no one in it. The fisheye clip at twice its resolution was such a clip until
  // its lone look came to be in the middle of the samples where she stands out of the background
  // (frame-choice.ts), where the detector finds her.
  it('a lone look that finds nothing looks at another moment: 1.2 s of a woman walking away in a room comes out person and intrusion', async () => {
    const short = path.join(dir, 'room-walking-away.mp4');
    await ffmpeg(['-ss', '8.4', '-t', '1.2', '-i', media('real/indoor_one_by_one.mp4'), '-an', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p', short]);
    const r = await vigilClassify(short);
    expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion']);
    expect(r.stats.inferences?.detector, 'the first look and the other moment').to.equal(2);
    const moments = new Set(r.keyframes.map((k) => k.t));
    expect(moments.size, 'two moments of the clip').to.equal(2);
  });

  // The fisheye clip as a recorder keeping 7.5 frames a second stores it: its lone look, in the
  // middle of where the two people stand out, sees no one, nor does the other moment framed as
  // a longer clip's frames are (the people 80 px tall in a view 300 px wide). Framed as closely
  // as the lone look, the other moment shows a person a step over the threshold, and the look
  // again at her margin confirms her.
  it('a lone look that finds nothing, nor the other moment framed wider, looks at it framed closer: the fisheye clip at 7.5 frames a second comes out person and intrusion', async () => {
    const sparse = path.join(dir, 'fisheye-7.5fps.mp4');
    await ffmpeg(['-i', media('real/fisheye_people_edge.mp4'), '-vf', 'fps=7.5', '-an', '-c:v', 'libx264', '-crf', '23', '-pix_fmt', 'yuv420p', sparse]);
    const r = await vigilClassify(sparse);
    expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion']);
    expect(r.stats.inferences?.detector, 'the lone look, the other moment twice, a look again').to.be.at.least(4);
    const seen = r.keyframes.filter((k) => k.detections.some((d) => d.label === 'person'));
    expect(seen.length, 'seen at two moments at least').to.be.at.least(2);
  });

  it('a far walker at night, too small for the motion grid, is looked at closer: person and intrusion, never animal', async () => {
    const r = await vigilClassify(farWalker);
    expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion']);
    expect(r.labels).to.not.include('animal');
    expect(r.stats.inferences?.detector, 'the closer looks ran').to.be.at.least(2);
    const res = await daemon.upload(farWalker, {}, '?sync=true');
    const result = (await res.json()) as Record<string, any>;
    expect(result.risk).to.equal('intrusion');
    expect(result.labels).to.include('person');
  });

  // The converse: a real mouse, cut out of its arena and carried onto the lot at night (about 25 px
  // long in the 1280x720 view), is a small mover looked at closer too, and stays what it is.
  it('a mouse running about the lot at night is looked at closer as a far walker would be, and is an animal, never a person: safe', async () => {
    const mouse = await farNightWalkerClip(media('nuisance/mouse_arena_topdown.mp4'), media('real/parking_overhead_cars.mp4'), path.join(dir, 'night-mouse.mp4'), { scale: 0.5, at: { x: 0.2, y: 0.35 }, bodyOnly: true });
    const r = await vigilClassify(mouse);
    expect(r.labels, JSON.stringify(r)).to.include('animal');
    for (const label of ['person', 'vehicule', 'intrusion']) expect(r.labels).to.not.include(label);
    expect(r.risk).to.equal('safe');
    expect(r.stats.inferences?.detector, 'the closer looks ran').to.be.at.least(2);
  });

  /** The far walker as a camera of another resolution films him: the clip re-encoded at width x height, classified. */
  async function farWalkerFilmedAt(width: number, height: number) {
    const file = path.join(dir, `far-walker-${width}x${height}.mp4`);
    await ffmpeg(['-i', farWalker, '-vf', `scale=${width}:${height}`, '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p', file]);
    const r = await vigilClassify(file);
    expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion']);
    expect(r.labels).to.not.include('animal');
    return r;
  }

  it('the far walker filmed at 1080p is looked at as at 720p (regions are sized in the pixels they are cut from), and found on his path walking away: person and intrusion', async () => {
    await farWalkerFilmedAt(1920, 1080);
  });

  it('the far walker from a camera of twice its resolution is looked at closer along his way (half way too where one of two looks misses him): person and intrusion', async () => {
    const r = await farWalkerFilmedAt(2560, 1440);
    expect(r.stats.inferences?.detector, 'two closer looks, and the one half way if needed').to.be.within(2, 3);
  });

  it('a farther walker at night, too faint to be a creature, is a faint mover looked at closer: person and intrusion', async () => {
    const r = await vigilClassify(fainterWalker);
    expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion']);
    expect(r.labels).to.not.include('animal');
    expect(r.risk).to.equal('intrusion');
    expect(r.stats.inferences?.detector, 'the closer looks ran').to.be.at.least(2);
  });

  it('the farther walker on the lot\'s near side recorded at a low bitrate, seen by the closer looks at both moments a step short of the threshold, is looked at the moments between: person and intrusion', async () => {
    const walker = await farNightWalkerClip(media('real/worker_hardhat_walking.mp4'), media('real/parking_overhead_cars.mp4'), path.join(dir, 'farther-walker-near-side.mp4'), { scale: 0.25, at: { x: 0.25, y: 0.55 } });
    const low = path.join(dir, 'farther-walker-crf28.mp4');
    await ffmpeg(['-i', walker, '-an', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '28', '-pix_fmt', 'yuv420p', low]);
    const r = await vigilClassify(low);
    expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion']);
    expect(r.labels).to.not.include('animal');
    // the two closer looks saw him at 0.42 and 0.5 (the threshold is 0.55): half way, then the two moments between
    expect(new Set(r.keyframes.map((k) => k.t)).size, JSON.stringify(r.keyframes)).to.equal(5);
    // each moment looked at once, and once more exposed for him where nothing there was sure (a dim view)
    expect(r.stats.inferences?.detector).to.be.within(5, 10);
  });

  it('the far walker recorded at a very low bitrate (crf 34), a few levels off the night\'s ground, is looked at exposed for him as a camera zoomed on him would: person and intrusion, never animal', async () => {
    const low = path.join(dir, 'far-walker-crf34.mp4');
    await ffmpeg(['-i', farWalker, '-an', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '34', '-pix_fmt', 'yuv420p', low]);
    const r = await vigilClassify(low);
    expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion']);
    expect(r.labels).to.not.include('animal');
    expect(r.risk).to.equal('intrusion');
  });

  it('the far walker at night in a drizzle lit by the illuminator: followed and looked at with the drops taken out, person and intrusion, and rain', async () => {
    // every frame holds hundreds of drops: too busy to follow anything in as it is
    const wet = await weatherClip(farWalker, path.join(dir, 'far-walker-drizzle.mp4'), { kind: 'rain', density: 'drizzle' });
    const r = await vigilClassify(wet);
    expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion', 'rain']);
    expect(r.labels).to.not.include('animal');
    expect(r.risk).to.equal('intrusion');
  });

  it('the far walker in heavy rain at night, the drops lit by the illuminator over a third of the view: the drops taken out as what brightens, he is found: person and intrusion', async () => {
    const wet = await weatherClip(farWalker, path.join(dir, 'far-walker-rain.mp4'), { kind: 'rain', density: 'rain' });
    const r = await vigilClassify(wet);
    expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion', 'rain']);
    expect(r.labels).to.not.include('animal');
  });

  it('the far and the fainter walker at night in light snow lit by the illuminator: the flakes, slow enough to stay two frames of three, taken out as what brightens, each is followed and found: person and intrusion', async () => {
    // the median of three kept the flakes: every frame too busy with them to follow anything in
    for (const [name, walker] of [['far', farWalker], ['fainter', fainterWalker]] as const) {
      const wet = await weatherClip(walker, path.join(dir, `${name}-walker-light-snow.mp4`), { kind: 'snow', density: 'light' });
      const r = await vigilClassify(wet);
      expect(r.labels, `${name}: ${JSON.stringify(r)}`).to.include.members(['person', 'intrusion', 'rain']);
      expect(r.labels, name).to.not.include('animal');
      expect(r.risk, name).to.equal('intrusion');
    }
  });

  // Nearer, about 128 px tall: in the time the heavy rain's drops are taken out over (a fifth of a
  // second either side) he swings his limbs across his own width, and his darkest over it is a
  // ghost the detector calls an animal. The same moments over a tenth of a second either side
  // show him.
  let nearWalker: Promise<string> | undefined;
  const near = () => (nearWalker ??= farNightWalkerClip(media('real/worker_hardhat_walking.mp4'), media('real/parking_overhead_cars.mp4'), path.join(dir, 'near-walker.mp4'), { scale: 1, at: { x: 0.35, y: 0.2 } }));
  for (const weather of [{ kind: 'rain', density: 'rain' }, { kind: 'snow', density: 'heavy' }] as const) {
    it(`a nearer walker in ${weather.kind === 'rain' ? 'heavy rain' : 'heavy snow'} at night, lit by the illuminator: person and intrusion, no animal`, async () => {
      const wet = await weatherClip(await near(), path.join(dir, `near-walker-${weather.kind}.mp4`), weather);
      const r = await vigilClassify(wet);
      expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion', 'rain']);
      expect(r.labels).to.not.include('animal');
      expect(r.risk).to.equal('intrusion');
    });
  }

  /** A made clip of the tests above, made here when this test runs alone. */
  const once = async (name: string, make: (out: string) => Promise<string>) => {
    const out = path.join(dir, name);
    return fs.existsSync(out) ? out : make(out);
  };
  // As recorders send them: re-encoded as the bench's variants table does.
  const reencoded = async (clip: string, name: string, args: string[]) => {
    const out = path.join(dir, name);
    await ffmpeg(['-i', clip, '-an', ...args, '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', out]);
    return out;
  };

  it('the nearer walker in heavy rain at a low bitrate (crf 34): the first look, at frames with the drops taken out, finds him, and the small movers show he went somewhere; his smeared trail is no animal', async () => {
    const wet = await once('near-walker-rain.mp4', async (out) => weatherClip(await near(), out, { kind: 'rain', density: 'rain' }));
    const r = await vigilClassify(await reencoded(wet, 'near-walker-rain-crf34.mp4', ['-crf', '34']));
    expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion', 'rain']);
    expect(r.labels).to.not.include('animal');
    expect(r.risk).to.equal('intrusion');
  });

  it('in lighter rain, a worker walking near the camera at two thirds of the size: seen in the frames as they are (the median that takes the drops out blurs his limbs): person and intrusion', async () => {
    const wet = await weatherClip(media('real/worker_hardhat_walking.mp4'), path.join(dir, 'rain-worker.mp4'), { kind: 'rain', density: 'rain' });
    const r = await vigilClassify(await reencoded(wet, 'rain-worker-2-3.mp4', ['-vf', 'scale=trunc(iw*0.67/2)*2:-2', '-crf', '23']));
    expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion', 'rain']);
    expect(r.risk).to.equal('intrusion');
  });

  it('a woman walking near the camera in a downpour: the frames with the drops taken out leave her a ghost, the frames as they are show her: person and intrusion, and rain', async () => {
    // the first 8 s of the real clip: she comes in near the camera, half the height of the view
    const wet = await weatherClip(media('real/indoor_one_by_one.mp4'), path.join(dir, 'near-woman-downpour.mp4'), { kind: 'rain', density: 'downpour' }, { seconds: 8 });
    const r = await vigilClassify(wet);
    expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion', 'rain']);
    expect(r.risk).to.equal('intrusion');
  });

  it('the woman in the downpour, the camera panning: found as she is, and her trail in the frame with the drops taken out at that moment is her, not an animal', async () => {
    const wet = await weatherClip(media('real/indoor_one_by_one.mp4'), path.join(dir, 'near-woman-downpour-8.mp4'), { kind: 'rain', density: 'downpour' }, { seconds: 8 });
    const r = await vigilClassify(await pannedClip(wet, path.join(dir, 'near-woman-downpour-panned.mp4')));
    expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion', 'rain']);
    expect(r.labels).to.not.include('animal');
    expect(r.risk).to.equal('intrusion');
  });

  it('the woman in a downpour falling across a slowly panning view: seen once unsure where she comes in (the drops hide another part of her in each frame), looked at again a moment later, she is confirmed: person and intrusion, and rain', async () => {
    const wet = await weatherClip(media('real/indoor_one_by_one.mp4'), path.join(dir, 'near-woman-downpour-slow-pan.mp4'), { kind: 'rain', density: 'downpour' }, { seconds: 8, pan: true });
    const r = await vigilClassify(wet);
    expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion', 'rain']);
    expect(r.risk).to.equal('intrusion');
  });

  /** The woman in the downpour across the slowly panning view (made once), re-encoded at `scale` by an encoder at `preset`, classified. */
  const womanSent = async (name: string, scale: string, preset: string) => {
    const wet = await once('near-woman-downpour-slow-pan.mp4', (out) => weatherClip(media('real/indoor_one_by_one.mp4'), out, { kind: 'rain', density: 'downpour' }, { seconds: 8, pan: true }));
    const sent = path.join(dir, name);
    await ffmpeg(['-i', wet, '-an', '-vf', scale, '-c:v', 'libx264', '-preset', preset, '-crf', '23', '-pix_fmt', 'yuv420p', sent]);
    return vigilClassify(sent);
  };

  // The woman re-encoded as cameras and recorders send her; every one must come out a person.
  const womanSends = [
    {
      // an encoder at its default preset (the bench's variants, at a faster one, leave her a person in the first look)
      title: 'at 1080p: the look again a moment later takes the drops out over the samples either side only (over a fifth of a second either side, her limbs near the camera are a ghost)',
      name: '1080p', scale: 'scale=1920:-2', preset: 'medium',
    },
    {
      title: 'at twice its size: the detector names her a person where she comes in and an animal a moment later; the animal\'s box stands upright on her, so it is her seen again, no animal',
      name: 'x2', scale: 'scale=trunc(iw*2/2)*2:trunc(ih*2/2)*2', preset: 'veryfast', noAnimal: true,
    },
    {
      // the look 0.4 s on saw nothing, the look 0.1 s before a person
      title: 'at two thirds of its size: the detector names her an animal (upright) once; looked at again on both sides of that moment, she is a person',
      name: 'two-thirds', scale: 'scale=trunc(iw*0.67/2)*2:-2', preset: 'veryfast',
    },
    {
      title: 'at twice its size as an encoder at its default preset sends it: unsure once with the drops taken out (0.42), that sighting looked at again',
      name: 'x2-medium', scale: 'scale=trunc(iw*2/2)*2:trunc(ih*2/2)*2', preset: 'medium',
    },
  ];
  for (const send of womanSends) {
    it(`the woman in the downpour across the slowly panning view, ${send.title}: person and intrusion, and rain`, async () => {
      const r = await womanSent(`near-woman-downpour-slow-pan-${send.name}.mp4`, send.scale, send.preset);
      expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion', 'rain']);
      if (send.noAnimal) expect(r.labels).to.not.include('animal');
      expect(r.risk).to.equal('intrusion');
    });
  }

  it('the woman in the downpour across the slowly panning view at a low bitrate (crf 34): with the drops taken out over time the table\'s foot is a ghost "animal" (0.5), and the same moment as it is, the streaks opened out, shows none: person and intrusion, and rain, no animal', async () => {
    const wet = await once('near-woman-downpour-slow-pan.mp4', (out) => weatherClip(media('real/indoor_one_by_one.mp4'), out, { kind: 'rain', density: 'downpour' }, { seconds: 8, pan: true }));
    const r = await vigilClassify(await reencoded(wet, 'near-woman-downpour-slow-pan-crf34.mp4', ['-crf', '34']));
    expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion', 'rain']);
    expect(r.labels).to.not.include('animal');
    expect(r.risk).to.equal('intrusion');
  });

  it('a downpour while the camera pans across a room: the frames about each chosen one are laid onto its view before the drops are taken out, so the darkest of the sliding view smears no dark edge into an animal: rain, no animal, safe', async () => {
    // the room of the real clip before anyone comes in (5 s), zoomed to 1280 x 900 and panned
    // across a fifth of it, the drops with it (the camera turns); taken out unaligned, the
    // table's foot smeared into an "animal" (0.5)
    const wet = await weatherClip(media('real/indoor_one_by_one.mp4'), path.join(dir, 'room-downpour.mp4'), { kind: 'rain', density: 'downpour' }, { seconds: 5 });
    const r = await vigilClassify(await pannedClip(wet, path.join(dir, 'room-downpour-panned.mp4')));
    expect(r.labels, JSON.stringify(r)).to.include('rain');
    expect(r.labels).to.not.include('animal');
    expect(r.risk).to.equal('safe');
  });

  it('produce on a conveyor in a downpour: the "bird" the streaks make over a cauliflower, looked at again with the streaks opened out of its frame, is not there: rain, no animal, safe', async () => {
    // as it is, the detector called the cauliflower under the streaks a bird (0.66; dry, nothing)
    const wet = await weatherClip(media('real/conveyor_produce.mp4'), path.join(dir, 'conveyor-downpour.mp4'), { kind: 'rain', density: 'downpour' });
    const r = await vigilClassify(wet);
    expect(r.labels, JSON.stringify(r)).to.include('rain');
    for (const label of ['animal', 'person', 'vehicule']) expect(r.labels).to.not.include(label);
    expect(r.risk).to.equal('safe');
  });

  it('a mouse in an arena under heavy snow, seen as it is too: the detector\'s unsure "person" among the flakes is no one, the mouse is an animal', async () => {
    const wet = await weatherClip(media('nuisance/mouse_arena_topdown.mp4'), path.join(dir, 'mouse-heavy-snow.mp4'), { kind: 'snow', density: 'heavy' }, { seconds: 8 });
    const r = await vigilClassify(wet);
    expect(r.labels, JSON.stringify(r)).to.include.members(['animal', 'rain']);
    expect(r.labels).to.not.include('person');
    expect(r.risk).to.equal('safe');
  });

  it('a spider on a wall under heavy snow, looked at closer: the detector\'s "person" as small as the spider and as wide as tall is no one, no intrusion', async () => {
    // 8 s of it: the closer looks at the spider, the flakes taken out, called it "person" 0.34 and 0.58
    const wet = await weatherClip(media('nuisance/spider_on_wall.mp4'), path.join(dir, 'spider-heavy-snow.mp4'), { kind: 'snow', density: 'heavy' }, { seconds: 8 });
    const r = await vigilClassify(wet);
    expect(r.labels, JSON.stringify(r)).to.include('rain');
    expect(r.labels).to.not.include('person');
    expect(r.risk).to.equal('safe');
  });

  it('the fisheye clip in a drizzle: the cells the drops flicker are no moving region, its one frame is where the people walk out, framed closer; unsure there under the drops, they are looked at again: person and intrusion, and rain', async () => {
    const wet = await weatherClip(media('real/fisheye_people_edge.mp4'), path.join(dir, 'fisheye-drizzle.mp4'), { kind: 'rain', density: 'drizzle' });
    const r = await vigilClassify(wet);
    expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion', 'rain']);
    const boxes = r.keyframes.flatMap((k) => k.detections.filter((d) => d.label === 'person').map((d) => d.box));
    expect(Math.min(...boxes.map((b) => b.x)), 'at the far left edge').to.be.below(0.1);
    // its one frame, framed closer, where the detector is unsure of them under the drops (0.42
    // or 0.58 from one x86 CPU to another: a step either side of the threshold): in rain a margin,
    // looked at again on both sides of its moment, and where those do not settle it, framed wider
    // at the same moment (0.58 to 0.66): the first look, two looks again and one wider at most,
    // and in rain the one with the streaks opened out (decide.ts, streakDoubts)
    expect(r.stats.inferences?.detector, JSON.stringify(r)).to.be.at.most(5);
    expect(r.keyframes.filter((k) => k.detections.some((d) => d.label === 'person')), 'two looks').to.have.length(2);
  });

  it('a mouse in an arena in a drizzle: animal, never person, safe', async () => {
    const wet = await weatherClip(media('nuisance/mouse_arena_topdown.mp4'), path.join(dir, 'mouse-drizzle.mp4'), { kind: 'rain', density: 'drizzle' }, { seconds: 8 });
    const r = await vigilClassify(wet);
    expect(r.labels, JSON.stringify(r)).to.include.members(['animal', 'rain']);
    for (const label of ['person', 'intrusion']) expect(r.labels).to.not.include(label);
    expect(r.risk).to.equal('safe');
  });

  // The far walker in the drizzle as recorders send him. At two thirds of the size he is too dim
  // for the detector under the drops: looked at again with the drops taken out. At 12 frames a
  // second the first looks find him, unsure, at two moments 2.2 s apart where his boxes hardly
  // move (going away from the camera), and no closer look follows: the small mover followed on
  // his boxes, its path about them, shows he went somewhere (decide.ts, riskOf), not danger.
  const drizzleSends: Array<[string, string, string[]]> = [
    ['at two thirds of the size, too dim for the detector under the drops: looked at again with the drops taken out', 'far-walker-drizzle-2-3.mp4', ['-vf', 'scale=trunc(iw*0.67/2)*2:-2', '-crf', '23']],
    ['at 12 frames a second, found at one place twice: the small mover on his boxes went somewhere', 'far-walker-drizzle-12fps.mp4', ['-vf', 'fps=12', '-crf', '23']],
  ];
  for (const [name, file, args] of drizzleSends) {
    it(`the far walker in a drizzle ${name}: person and intrusion`, async () => {
      const wet = await once('far-walker-drizzle.mp4', (out) => weatherClip(farWalker, out, { kind: 'rain', density: 'drizzle' }));
      const r = await vigilClassify(await reencoded(wet, file, args));
      expect(r.labels, JSON.stringify(r)).to.include.members(['person', 'intrusion', 'rain']);
      expect(r.labels).to.not.include('animal');
      expect(r.risk).to.equal('intrusion');
    });
  }

  it('a spider on a wall, looked at closer, is still a creature: animal, safe', async () => {
    const r = await vigilClassify(media('nuisance/spider_on_wall.mp4'));
    expect(r.labels).to.include('animal');
    for (const label of ['person', 'vehicule', 'intrusion']) expect(r.labels).to.not.include(label);
    expect(r.risk).to.equal('safe');
    expect(r.stats.inferences?.detector, 'the closer looks ran and saw no one').to.be.at.least(1);
  });
});
