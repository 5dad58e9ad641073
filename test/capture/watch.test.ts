// Watching end to end: the real daemon watches cameras served by a real RTSP
// server, each fed by ffmpeg looping a clip made from the real footage (a
// still empty room, then people walking through). Motion events become clips
// cut from the record segments, with the seconds before the walk; a still
// scene gives none; a camera whose stream is killed is reported down and
// watched again when it comes back; no ffmpeg outlives the daemon.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import mqtt, { type MqttClient } from 'mqtt';
import { descendants } from '../../runtime/ops/children.js';
import { analyseMotion } from '../../runtime/pipeline/motion.js';
import { probeClip } from '../../runtime/pipeline/probe.js';
import type { CameraWatchStatus } from '../../runtime/capture/watch.js';
import { TestBroker } from '../support/broker.js';
import { tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';
import { parseExposition, value } from '../support/prom-text.js';
import { RtspCamera, rtspServerBinary } from '../support/cameras.js';
import { stillLoop, walkLoop, type WalkLoop } from './watch-support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WATCH = { enabled: true, fps: 5, min_cells: 2, min_motion_s: 0.6, quiet_s: 4, cooldown_s: 1, pre_s: 2, post_s: 1, segment_s: 1, reconnect_max_s: 2 };

/** Every process (below `root`) whose command line names the URL. */
function processesFor(url: string, root?: number): number[] {
  const pids = root ? descendants(root).map((p) => p.pid) : fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number);
  return pids.filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(url);
    } catch {
      return false;
    }
  });
}

describe('camera watching', function () {
  const rtspBinary = rtspServerBinary();
  let dir: string;
  let short: WalkLoop;
  let long: WalkLoop;
  let rtsp: RtspCamera;
  const urls: Record<string, string> = {};
  let daemon: TestDaemon;
  let broker: TestBroker;
  let subscriber: MqttClient;
  /** what the gateway said on cameras/walk-short/problem (retained: Home Assistant's problem sensor) */
  const problems: Array<{ problem: boolean; error_msg: string }> = [];

  before(async function () {
    if (!rtspBinary) return this.skip();
    this.timeout(120_000);
    dir = tempDir('vigil-watch-');
    [short, long] = await Promise.all([walkLoop(dir, 'short', 8), walkLoop(dir, 'long', 6)]);
    const still = await stillLoop(dir, 6);
    rtsp = await new RtspCamera(rtspBinary, short.file, 'short').start();
    urls['walk-short'] = rtsp.url;
    urls['walk-long'] = await rtsp.publish('long', long.file);
    urls['still'] = await rtsp.publish('still', still);
    // the same walks behind a mask over the whole frame: no motion counts there
    urls['masked'] = urls['walk-short']!;
    // and from a detect substream beside the record stream (two connections)
    urls['substream'] = urls['walk-short']!;
    const cameraConfigs = Object.entries(urls).map(([id, url]) => ({
      id, url, timeout_s: 3,
      watch: { ...WATCH, ...(id === 'substream' ? { detect_url: url } : {}) },
      ...(id === 'masked' ? { masks: [[[0, 0], [1, 0], [1, 1], [0, 1]]] } : {}),
    }));
    broker = await new TestBroker().start();
    subscriber = await mqtt.connectAsync(broker.url);
    await subscriber.subscribeAsync('vigil/watch-test/cameras/walk-short/problem');
    subscriber.on('message', (_topic, payload) => problems.push(JSON.parse(payload.toString()) as { problem: boolean; error_msg: string }));
    const mqttConfig = { enabled: true, url: broker.url, prefix: 'vigil', gateway_id: 'watch-test' };
    daemon = await new TestDaemon({ config: { cameras: cameraConfigs, mqtt: mqttConfig } }).start();
    // The RTSP server of the tests now and then serves a stream's first clients no packets on a
    // loaded machine; a server restarted (as the camera coming back, tested below) serves them.
    const allWatching = async () => {
      const states = await Promise.all(Object.keys(urls).map(async (id) => (await watchStatus(id)).state));
      return states.every((s) => s !== 'starting' && s !== 'down') ? true : undefined;
    };
    try {
      await waitFor('every camera watched', 25_000, allWatching);
    } catch {
      await rtsp.restart();
      await waitFor('every camera watched after the RTSP server restarted', 40_000, allWatching);
    }
  });

  after(async () => {
    await daemon?.stop(); // its shutdown removes the segments it kept in RAM
    await daemon?.cleanup();
    await subscriber?.endAsync();
    await broker?.stop();
    await rtsp?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const watchStatus = async (camera: string): Promise<CameraWatchStatus> => {
    const res = await fetch(`${daemon.url}/api/cameras/${camera}/watch`, { headers: daemon.auth() });
    expect(res.status).to.equal(200);
    return (await res.json()) as CameraWatchStatus;
  };

  /** the last status seen, shown when a wait times out */
  let lastSeen: unknown;
  const watchStatusSeen = async (camera: string) => (lastSeen = await watchStatus(camera)) as CameraWatchStatus;

  async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    lastSeen = undefined;
    for (;;) {
      const found = await probe();
      if (found !== undefined) return found;
      if (Date.now() > deadline) {
        const logs = daemon.logs.filter((l) => /watch/.test(String(l.component))).slice(-15).map((l) => JSON.stringify(l));
        throw new Error(`timed out waiting for ${what}; last seen ${JSON.stringify(lastSeen)}\n${logs.join('\n')}`);
      }
      await sleep(250);
    }
  }

  const accepted = (s: CameraWatchStatus) => s.last_events.filter((e) => e.outcome === 'accepted').reverse(); // oldest first
  const ms = (iso: string | null) => Date.parse(iso!);

  /** The event clip as the daemon stored it. */
  function storedClip(id: string): string {
    const folder = path.join(daemon.dataDir, 'media', id);
    const name = fs.readdirSync(folder).find((f) => f.endsWith('.mp4') && f !== 'highlight.mp4');
    expect(name, `the clip of ${id}`).to.be.a('string');
    return path.join(folder, name!);
  }

  it('makes one event per walk, each clip starting at least pre_s before the walk, and none for a still scene or behind a mask, from the main stream or a substream', async function () {
    this.timeout(90_000);
    const status = await waitFor('two walks', 60_000, async () => {
      const s = await watchStatusSeen('walk-short');
      return accepted(s).length >= 2 ? s : undefined;
    });
    const events = accepted(status);
    for (const event of events) {
      // the walk lasts under 3 s: an event is that walk, not a still stretch or several walks
      expect(ms(event.motion_end) - ms(event.motion_start)).to.be.within(0, (short.walkS + 1) * 1000);
      expect(ms(event.motion_start) - ms(event.clip_start)).to.be.at.least(WATCH.pre_s * 1000);
      expect(ms(event.clip_end)).to.be.at.least(ms(event.motion_end) + WATCH.post_s * 1000);
      // the clip itself: still for at least pre_s, then the walk
      const clip = storedClip(event.id!);
      const info = await probeClip(clip);
      expect(info.duration).to.be.at.least(WATCH.pre_s + 1);
      const motion = await analyseMotion(info, new AbortController().signal);
      const first = motion.samples.find((s) => s.solidCells.reduce((a, b) => a + b, 0) >= WATCH.min_cells);
      expect(first, 'motion in the event clip').to.not.equal(undefined);
      expect(first!.t).to.be.at.least(WATCH.pre_s - 0.2);
    }
    // one event per loop of the stream: walks come every (still + walk) seconds
    const loopMs = (short.stillS + short.walkS) * 1000;
    for (let i = 1; i < events.length; i++) expect(ms(events[i]!.motion_start) - ms(events[i - 1]!.motion_start)).to.be.within(loopMs - 1500, loopMs + 1500);
    const name = (await (await fetch(`${daemon.url}/api/result/${events[0]!.id}`, { headers: daemon.auth() })).json()) as Record<string, any>;
    expect(name.camera_id).to.equal('walk-short');
    expect(name.video.videoname ?? name.videoname).to.match(/^walk-short-\d{8}T\d{6}Z\.mp4$/);
    const still = await watchStatus('still');
    expect(still.events_total).to.equal(0);
    expect(still.state).to.equal('watching');
    expect(still.buffer.segments).to.be.within(1, 12); // only the pre-roll is kept
    expect(still.ffmpeg_cpu_seconds_total).to.be.above(0);
    const substream = accepted(await watchStatus('substream'));
    expect(substream.length).to.be.at.least(1);
    for (const event of substream) expect(ms(event.motion_start) - ms(event.clip_start)).to.be.at.least(WATCH.pre_s * 1000);
    const masked = await watchStatus('masked');
    expect(masked.events_total).to.equal(0);
    expect(masked.motion_seconds_total).to.equal(0);
  });

  it('makes one event, not many, of a long walk, and a trigger during it joins it', async function () {
    this.timeout(90_000);
    const during = await waitFor('the long walk', 45_000, async () => ((await watchStatusSeen('walk-long')).state === 'event' ? true : undefined));
    expect(during).to.equal(true);
    const res = await fetch(`${daemon.url}/api/cameras/walk-long/capture`, { method: 'POST', headers: daemon.auth() });
    expect(res.status).to.equal(202);
    const joined = (await res.json()) as { id: string };
    const event = await waitFor('the long walk\'s clip', 45_000, async () => accepted(await watchStatusSeen('walk-long')).find((e) => e.id === joined.id));
    // the walk there, back and there again is one event of its whole length
    expect(ms(event.motion_end) - ms(event.motion_start)).to.be.at.least(10_000);
    const all = accepted(await watchStatus('walk-long'));
    const loopMs = (long.stillS + long.walkS) * 1000;
    for (let i = 1; i < all.length; i++) expect(ms(all[i]!.motion_start) - ms(all[i - 1]!.motion_start)).to.be.at.least(loopMs - 2000);
  });

  it('reports a camera whose stream server is killed down, reconnects when it is back, and leaves no ffmpeg behind', async function () {
    this.timeout(90_000);
    const url = urls['walk-short']!;
    // one ffmpeg per camera (detect and record from one connection), two for the camera with a substream
    expect(processesFor(url, daemon.pid)).to.have.length(4);
    // the camera goes away: the server and its publishers are killed
    await rtsp.stop();
    const down = await waitFor('the camera reported down', 20_000, async () => {
      const s = await watchStatusSeen('walk-short');
      return s.state === 'down' ? s : undefined;
    });
    expect(down.reason).to.match(/no video for \d+ s/);
    // Home Assistant's problem sensor goes on with the reason, and off when the camera is back
    const on = await waitFor('the problem published', 10_000, async () => problems.find((p) => p.problem));
    expect(on.error_msg).to.match(/no video/);
    const metrics = parseExposition(await (await fetch(`${daemon.url}/metrics`)).text());
    expect(value(metrics, 'vigil_camera_up', { camera: 'walk-short' })).to.equal(0);
    expect(value(metrics, 'vigil_camera_ffmpeg_cpu_seconds_total', { camera: 'walk-short' })).to.be.above(0);
    expect(value(metrics, 'vigil_camera_events_total', { camera: 'walk-short', outcome: 'accepted' })).to.be.at.least(2);
    await rtsp.restart();
    const back = await waitFor('the camera watched again', 30_000, async () => {
      const s = await watchStatusSeen('walk-short');
      return s.state !== 'down' && s.state !== 'starting' ? s : undefined;
    });
    expect(back.reconnects_total).to.be.at.least(1);
    await waitFor('the problem cleared', 10_000, async () => (problems.at(-1)?.problem === false ? true : undefined));
    expect(daemon.logs.some((l) => l.msg === 'camera back' && (l as Record<string, unknown>).camera === 'walk-short')).to.equal(true);
    expect(processesFor(url, daemon.pid)).to.have.length(4);
  });

  it('stops every ffmpeg and removes its segments when the daemon stops', async function () {
    this.timeout(30_000);
    const buffer = (await watchStatus('still')).buffer.dir;
    expect(fs.existsSync(buffer)).to.equal(true);
    expect(await daemon.stop()).to.equal(0);
    for (const url of Object.values(urls)) expect(processesFor(url)).to.deep.equal([]);
    expect(fs.existsSync(buffer)).to.equal(false);
  });
});
