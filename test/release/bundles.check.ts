// The release bundles as a gateway gets them: each .tar.gz from `make dist` is
// unpacked and installed with its own installer (into a DESTDIR), then the
// arm64 one runs under user-mode emulation (qemu, Debian's arm64 Node.js) and
// the x64 one natively: `vigil models pull` from the shared models, `vigil
// doctor`, `vigil classify` on the same clips, and the arm64 daemon answering a
// sync upload. Both architectures must give the same risk and the same labels,
// and scores within SCORE_TOLERANCE; every difference is printed with both values.
// Not part of `make test` (it needs the bundles and minutes of emulation):
// `make check-bundles` runs it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import YAML from 'yaml';
import { tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';
import { PROJECT_ROOT, SHARED_MODELS, media } from '../support/paths.js';

const run = promisify(execFile);

/**
 * Largest difference allowed between the two architectures' score for a label.
 * The two ffmpeg builds give the same motion frames and model inputs (exact
 * scaling, runtime/pipeline/frames.ts); what is left is the detail frame's fast
 * RGB conversion (up to 3 levels apart) that the crops are cut from, and the arm64
 * TFLite library, whose quantized kernels round differently on identical input.
 * Each moved a clip's score by one step of the detector's output (0.08 at most,
 * around 0.5): runtime/release/README.md, "The arm64 check under emulation". Labels and risk must
 * always be the same.
 */
const SCORE_TOLERANCE = 0.1;

/** Clips of both kinds (NVR recordings and the sample media), a handful for the time emulation takes. */
const CLIPS = [
  'hand_ball.mp4',
  'indoor_plants.mp4',
  'real/corridor_two_walkers.mp4',
  'real/lot_car_cyclist_walker.mp4',
  'real/parking_overhead_cars.mp4',
  'real/indoor_empty_room.mp4',
];
const SYNC_CLIP = 'real/store_aisle_shoppers.mp4';

interface Outcome {
  risk: string;
  labels: string[];
  scores: Record<string, number>;
  model: string;
  version: string;
}

interface Install {
  arch: 'x64' | 'arm64';
  node: string;
  env: NodeJS.ProcessEnv;
  root: string; // the installed runtime (PREFIX inside DESTDIR)
  config: string;
  dataDir: string;
}

const RELEASE_DIR = path.join(PROJECT_ROOT, 'dist', 'release');

function bundleTarball(arch: string): string {
  const { version } = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
  const file = path.join(RELEASE_DIR, `vigil-${version}-linux-${arch}.tar.gz`);
  if (!fs.existsSync(file)) throw new Error(`${file} missing: run make dist`);
  return file;
}

async function install(arch: Install['arch'], node: string, env: NodeJS.ProcessEnv): Promise<Install> {
  const work = tempDir(`vigil-bundle-${arch}-`);
  await run('tar', ['-xzf', bundleTarball(arch), '-C', work]);
  const [bundle] = fs.readdirSync(work);
  const destdir = path.join(work, 'root');
  await run(path.join(work, bundle, 'install.sh'), ['--node', node], { env: { ...process.env, ...env, DESTDIR: destdir } });
  const dataDir = path.join(work, 'data');
  const config = path.join(work, 'gateway.yaml');
  fs.writeFileSync(config, YAML.stringify({ storage: { data_dir: dataDir }, models: { source: SHARED_MODELS }, log: { level: 'warn' } }));
  return { arch, node, env, root: path.join(destdir, 'opt', 'vigil'), config, dataDir };
}

function vigil(at: Install, args: string[]) {
  return run(at.node, [path.join(at.root, 'dist/runtime/cli.js'), ...args, '--config', at.config], {
    env: { ...process.env, ...at.env },
    maxBuffer: 1 << 26,
  });
}

async function classify(at: Install, clip: string): Promise<Outcome> {
  const { stdout } = await vigil(at, ['classify', media(clip)]);
  return JSON.parse(stdout) as Outcome;
}

/** The score differences beyond the tolerance between two outcomes of one clip, each with both values. */
function differences(x64: Outcome, arm64: Outcome): string[] {
  const out: string[] = [];
  for (const label of new Set([...Object.keys(x64.scores), ...Object.keys(arm64.scores)])) {
    const a = x64.scores[label] ?? 0;
    const b = arm64.scores[label] ?? 0;
    if (Math.abs(a - b) > SCORE_TOLERANCE) out.push(`${label} x64 ${a}, arm64 ${b} (|diff| ${Math.abs(a - b).toFixed(3)} > ${SCORE_TOLERANCE})`);
  }
  return out;
}

function scoreLine(o: Outcome): string {
  return Object.entries(o.scores)
    .map(([label, score]) => `${label} ${score}`)
    .join(', ');
}

describe('release bundles: arm64 under emulation against x64', function () {
  this.timeout(900_000);
  let x64: Install;
  let arm64: Install;
  const outcomes = new Map<string, { x64: Outcome; arm64: Outcome }>();

  before(async function () {
    const { stdout } = await run(path.join(PROJECT_ROOT, 'test/release/arm64-node.sh'), [path.join(PROJECT_ROOT, '.tmp', 'arm64')]);
    const armNode = stdout.trim();
    const sysroot = path.resolve(path.dirname(armNode), '..', '..');
    x64 = await install('x64', process.execPath, {});
    // QEMU_LD_PREFIX: where emulated programs find the arm64 loader and libraries
    arm64 = await install('arm64', armNode, { QEMU_LD_PREFIX: sysroot });
  });

  it('installs native parts of each architecture', async () => {
    const { stdout: arch } = await run(arm64.node, ['-p', 'process.arch'], { env: { ...process.env, ...arm64.env } });
    expect(arch.trim(), 'the emulated node').to.equal('arm64');
    for (const at of [x64, arm64]) {
      const contents = fs.readFileSync(path.join(at.root, 'CONTENTS.txt'), 'utf8');
      expect(contents).to.contain(`linux-${at.arch}`);
      expect(fs.existsSync(path.join(at.root, 'node_modules', '@img', `sharp-linux-${at.arch}`)), `sharp for ${at.arch}`).to.equal(true);
    }
  });

  it('pulls the default model pack from the shared models on both', async () => {
    for (const at of [x64, arm64]) {
      const { stdout } = await vigil(at, ['models', 'pull']);
      expect(stdout, at.arch).to.match(/installed and active/);
    }
  });

  it('finds nothing wrong with `vigil doctor` on both', async () => {
    for (const at of [x64, arm64]) {
      const { stdout } = await vigil(at, ['doctor']).catch((err: { stdout?: string }) => {
        throw new Error(`${at.arch} doctor failed:\n${err.stdout ?? err}`);
      });
      expect(stdout, at.arch).to.match(/^ok +model/m);
    }
  });

  it('classifies the same clips on both, with the same model pack, risk and labels', async () => {
    for (const clip of CLIPS) {
      const a = await classify(x64, clip);
      const b = await classify(arm64, clip);
      outcomes.set(clip, { x64: a, arm64: b });
      console.log(`      ${clip}: x64 ${a.risk} [${a.labels}] (${scoreLine(a)}); arm64 ${b.risk} [${b.labels}] (${scoreLine(b)})`);
      expect(`${b.model}@${b.version}`, clip).to.equal(`${a.model}@${a.version}`);
    }
    const sorted = (o: Outcome) => [...o.labels].sort().join(',');
    const answers = [...outcomes].flatMap(([clip, o]) => [
      ...(o.x64.risk !== o.arm64.risk ? [`${clip}: risk x64 ${o.x64.risk}, arm64 ${o.arm64.risk}`] : []),
      ...(sorted(o.x64) !== sorted(o.arm64) ? [`${clip}: labels x64 [${sorted(o.x64)}], arm64 [${sorted(o.arm64)}]`] : []),
    ]);
    expect(answers, `arm64 answers otherwise than x64:\n${answers.join('\n')}`).to.deep.equal([]);
  });

  it(`gives scores within ${SCORE_TOLERANCE} of each other on both`, function () {
    if (outcomes.size === 0) this.skip(); // the classification above failed
    const problems: string[] = [];
    for (const [clip, { x64: a, arm64: b }] of outcomes) {
      const found = differences(a, b);
      const largest = Math.max(0, ...Object.keys({ ...a.scores, ...b.scores }).map((l) => Math.abs((a.scores[l] ?? 0) - (b.scores[l] ?? 0))));
      console.log(`      ${clip}: largest score difference ${largest.toFixed(3)}${found.length ? '; ' + found.join('; ') : ''}`);
      problems.push(...found.map((d) => `${clip}: ${d}`));
    }
    expect(problems, `arm64 differs from x64:\n${problems.join('\n')}`).to.deep.equal([]);
  });

  it('answers a sync upload from the arm64 daemon as x64 classifies the clip', async () => {
    const expected = await classify(x64, SYNC_CLIP);
    // on the data folder of the commands above, with the pack they pulled
    const daemon = new TestDaemon({
      dataDir: arm64.dataDir,
      runtime: { node: arm64.node, root: arm64.root },
      env: arm64.env,
      startTimeoutMs: 300_000,
      config: { jobs: { concurrency: 1 }, log: { level: 'info' }, server: { sync_timeout_s: 600 } },
    });
    try {
      await daemon.start();
      const res = await daemon.upload(media(SYNC_CLIP), {}, '?sync=true');
      const body = (await res.json()) as Record<string, any>;
      expect(res.status, JSON.stringify(body)).to.equal(200);
      expect(body.result).to.equal('classified');
      const got: Outcome = { risk: body.risk, labels: body.labels, scores: body.scores ?? {}, model: body.model, version: body.version };
      console.log(`      ${SYNC_CLIP} (daemon): x64 ${expected.risk} [${expected.labels}]; arm64 ${got.risk} [${got.labels}]`);
      expect(got.risk, `risk x64 ${expected.risk}, arm64 ${got.risk}`).to.equal(expected.risk);
      expect([...got.labels].sort(), `labels x64 [${expected.labels}], arm64 [${got.labels}]`).to.deep.equal([...expected.labels].sort());
    } finally {
      await daemon.cleanup();
    }
  });

  after(() => {
    for (const at of [x64, arm64]) if (at) fs.rmSync(path.dirname(at.dataDir), { recursive: true, force: true });
  });
});
