// MQTT end to end: the real daemon publishing to a real broker (mosquitto, or
// aedes when mosquitto is not installed), watched by a real subscriber.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import mqtt, { type MqttClient } from 'mqtt';
import { MjpegCamera } from '../support/cameras.js';
import { TcpGate, TestBroker } from '../support/broker.js';
import { stillClip, tempDir, walkerClip } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';
import { discoveryProblems } from './ha-schema.js';
import { submit, waitForDeliveries } from './helpers.js';

const PREFIX = 'vigil-test';
const GATEWAY = 'gw1';
const BASE = `${PREFIX}/${GATEWAY}`;
const HA = 'ha-test';

interface Seen {
  topic: string;
  text: string;
  retain: boolean;
  bytes: Buffer;
}

/** A subscriber to everything under the prefix, recording what it receives. */
class Watcher {
  readonly seen: Seen[] = [];
  private constructor(readonly client: MqttClient) {}

  static async connect(url: string): Promise<Watcher> {
    const client = await mqtt.connectAsync(url, { reconnectPeriod: 100, connectTimeout: 5000 });
    const watcher = new Watcher(client);
    client.on('message', (topic, payload, packet) => watcher.seen.push({ topic, text: payload.toString(), retain: packet.retain, bytes: payload }));
    await client.subscribeAsync([`${PREFIX}/#`, `${HA}/#`], { qos: 1 });
    return watcher;
  }

  async waitFor(check: (m: Seen) => boolean, what: string, timeoutMs = 30_000): Promise<Seen> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = this.seen.find(check);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${what} not received within ${timeoutMs} ms; got ${JSON.stringify(this.seen.map((m) => [m.topic, m.text.slice(0, 40)]))}`);
  }

  async close(): Promise<void> {
    await this.client.endAsync(true);
  }
}

interface DiscoveryConfig extends Seen {
  body: Record<string, any>;
}

/** Every entity of a camera, and the capture button of one Vigil records from. */
const CAMERA_ENTITIES = ['intrusion', 'person', 'vehicle', 'animal', 'result', 'problem', 'risk', 'labels', 'last_result', 'snapshot'];
const entitiesOf = (camera: string) => [...CAMERA_ENTITIES, ...(camera === 'porch' ? ['capture'] : [])].map((e) => `${camera.replace(/[^A-Za-z0-9_-]/g, '_')}_${e}`);

/** Waits for the retained discovery configs of the gateway (3 entities) and of the cameras, as Home Assistant reads them. */
async function discovered(w: Watcher, cameras: string[]): Promise<DiscoveryConfig[]> {
  const objects = ['gateway_online', 'gateway_queue', 'gateway_backend'];
  for (const c of cameras) objects.push(...entitiesOf(c));
  const found: DiscoveryConfig[] = [];
  for (const object of objects) {
    const m = await w.waitFor((x) => x.topic.startsWith(`${HA}/`) && x.topic.endsWith(`/vigil_${GATEWAY}/${object}/config`) && x.bytes.length > 0, `discovery of ${object}`);
    found.push({ ...m, body: JSON.parse(m.text) as Record<string, any> });
  }
  return found;
}

const AVAILABILITY = `${BASE}/availability`;
const STATUS = `${BASE}/status`;
const OFF_DELAY_S = 1;
const mqttConfig = (url: string) => ({
  enabled: true, url, prefix: PREFIX, gateway_id: GATEWAY, discovery: { prefix: HA, off_delay_s: OFF_DELAY_S },
  // long: every status message the tests wait for is one sent because something changed
  qos: 1, status_interval_s: 3600, reconnect: { initial_s: 0.2, max_s: 1 },
});
const PUBLIC_URL = 'http://gateway.test:8080/';

describe('MQTT delivery', function () {
  let broker: TestBroker;
  let gate: TcpGate;
  let daemon: TestDaemon;
  let dir: string;
  let clip: string;
  let walker: string;
  /** the porch camera (MJPEG over HTTP) sits behind a gate too: closed, it cannot be recorded from */
  let porch: MjpegCamera;
  let porchGate: TcpGate;
  let cameras: Array<Record<string, unknown>>;
  const watchers: Watcher[] = [];
  const watch = async () => {
    const w = await Watcher.connect(broker.url);
    watchers.push(w);
    return w;
  };

  before(async () => {
    dir = tempDir();
    clip = await stillClip('owl.jpg', path.join(dir, 'owl.mp4'), 1, 5, 160);
    walker = await walkerClip('grace_hopper.png', path.join(dir, 'walker.mp4'));
    porch = await new MjpegCamera('installer', 'porch-secret').start(dir);
    porchGate = await new TcpGate(porch.port).open();
    cameras = [
      { id: 'yard', name: 'Back yard' },
      { id: 'gate.1' },
      { id: 'porch', url: `http://127.0.0.1:${porchGate.port}/video.mjpg`, username: porch.username, password: porch.password, record_s: 1, timeout_s: 3 },
    ];
    broker = await new TestBroker().start();
    // the daemon reaches the broker through a gate the test opens and closes
    gate = await new TcpGate(broker.port).open();
    daemon = await new TestDaemon({ config: { mqtt: mqttConfig(`mqtt://127.0.0.1:${gate.port}`), cameras, server: { public_url: PUBLIC_URL } } }).start();
  });
  after(async () => {
    for (const w of watchers) await w.close().catch(() => {});
    await daemon?.cleanup();
    await gate?.close();
    await porchGate?.close();
    await porch?.stop();
    await broker?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`is online (retained) and publishes a retained status message`, async () => {
    const w = await watch();
    await w.waitFor((m) => m.topic === AVAILABILITY && m.text === 'online', 'availability online');
    const status = await w.waitFor((m) => m.topic === STATUS, 'status message');
    const body = JSON.parse(status.text) as Record<string, any>;
    expect(body.state).to.equal('online');
    expect(body.queue).to.have.all.keys('queued', 'running');
    expect(body).to.have.property('model');
    expect(body).to.have.property('backend');
    expect(body.disk.free_bytes).to.be.a('number');
    expect(body.outbox).to.have.all.keys('pending', 'delivered', 'dropped');
  });

  it('shows what /metrics shows, both read from the gateway\'s status: the active pack, its backend, the data volume', async () => {
    const w = await watch();
    const seen = await w.waitFor((m) => m.topic === STATUS && JSON.parse(m.text).model !== null, 'a status with the active pack');
    const status = JSON.parse(seen.text) as Record<string, any>;
    expect(status.model.name).to.be.a('string');
    const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
    expect(metrics).to.include(`vigil_model_info{name="${status.model.name}",version="${status.model.version}"} 1`);
    expect(metrics).to.include(`vigil_inference_backend{backend="${status.backend}"} 1`);
    expect(Number(/^vigil_disk_total_bytes (\d+)$/m.exec(metrics)?.[1])).to.equal(status.disk.total_bytes);
  });

  it('publishes each final result on <prefix>/<gateway>/<tenant>/result, the JSON of GET /api/result/<id>', async () => {
    const w = await watch();
    const id = await submit(daemon, clip, 'default');
    const msg = await w.waitFor((m) => m.topic === `${BASE}/tenant-a/result` && JSON.parse(m.text).id === id, 'the result');
    const res = await fetch(`${daemon.url}/api/result/${id}`, { headers: daemon.auth() });
    expect(res.status).to.equal(200);
    expect(JSON.parse(msg.text)).to.deep.equal(await res.json());
    await waitForDeliveries(daemon, id, (d) => d.some((x) => x.target === 'mqtt' && x.state === 'delivered'));
    // the other tenant's results go to its own topic
    const other = await submit(daemon, clip, 'default', daemon.otherTenantKey);
    await w.waitFor((m) => m.topic === `${BASE}/tenant-b/result` && JSON.parse(m.text).id === other, "tenant-b's result");
  });

  it('publishes results that finished while the broker was away once it is back, and says online again', async () => {
    await gate.close();
    await broker.stop();
    const id = await submit(daemon, clip, 'default');
    await daemon.waitForResult(id);
    const pending = await waitForDeliveries(daemon, id, (d) => d.some((x) => x.target === 'mqtt'));
    expect(pending.find((x) => x.target === 'mqtt')!.state).to.equal('pending');

    await broker.start();
    const w = await watch(); // subscribed before the daemon can reconnect
    await gate.open();
    await w.waitFor((m) => m.topic === AVAILABILITY && m.text === 'online', 'online after the broker restart');
    await w.waitFor((m) => m.topic === `${BASE}/tenant-a/result` && JSON.parse(m.text).id === id, 'the result held in the outbox');
    await waitForDeliveries(daemon, id, (d) => d.find((x) => x.target === 'mqtt')?.state === 'delivered');
    // a subscriber arriving later finds the retained "online"
    const late = await watch();
    await late.waitFor((m) => m.topic === AVAILABILITY && m.retain && m.text === 'online', 'retained online');
  });

  it('turns a message on <prefix>/<gateway>/cameras/<id>/capture into a capture request', async () => {
    const w = await watch();
    await w.client.publishAsync(`${BASE}/cameras/cam-7/capture`, '{}', { qos: 1 });
    const record = await daemon.waitForLog((r) => r.msg === 'capture requested over MQTT');
    expect(record.camera).to.equal('cam-7');
  });

  it('announces the gateway and each configured camera to Home Assistant (retained, stable unique_ids), and every entity gets its state', async () => {
    const first = await watch();
    const configs = await discovered(first, cameras.map((c) => c.id as string));
    for (const c of configs) {
      expect(c.retain, c.topic).to.equal(true);
      expect(c.body.device.identifiers, c.topic).to.be.an('array').that.is.not.empty;
      expect(c.body.device.configuration_url, c.topic).to.equal(PUBLIC_URL);
      expect(c.body.origin, c.topic).to.deep.include({ name: 'Vigil' });
    }
    expect(new Set(configs.map((c) => c.body.unique_id)).size).to.equal(configs.length);
    // a camera device per camera, under the gateway's device
    const yard = configs.filter((c) => c.topic.includes('/yard_'));
    expect(yard.map((c) => c.topic.split('/')[1]).sort()).to.deep.equal([
      'binary_sensor', 'binary_sensor', 'binary_sensor', 'binary_sensor', 'binary_sensor', 'event', 'image', 'sensor', 'sensor', 'sensor',
    ]);
    expect(yard[0]!.body.device.name).to.equal('Back yard');
    expect(yard[0]!.body.device.via_device).to.equal(configs.find((c) => c.topic.includes('/gateway_online/'))!.body.device.identifiers[0]);
    expect(configs.find((c) => c.topic.includes('/gate_1_intrusion/'))!.body.device.name).to.equal('gate.1');
    // only a camera Vigil records from has a capture button, on the topic the gateway listens to
    expect(configs.filter((c) => c.topic.split('/')[1] === 'button').map((c) => c.body.command_topic)).to.deep.equal([`${BASE}/cameras/porch/capture`]);
    const risk = configs.find((c) => c.topic.includes('/yard_risk/'))!.body;
    expect(risk).to.include({ device_class: 'enum' });
    expect(risk.options).to.include.members(['safe', 'danger', 'intrusion']);
    for (const kind of ['intrusion', 'person', 'vehicle', 'animal']) {
      expect(configs.find((c) => c.topic.includes(`/yard_${kind}/`))!.body.off_delay, kind).to.equal(OFF_DELAY_S);
    }

    // one result per posting camera (uploaded with its camera_id), then every state topic holds a retained message
    const ids: Record<string, string> = {};
    for (const camera of ['yard', 'gate.1']) {
      const res = await daemon.upload(clip, { flow: 'default', camera_id: camera });
      expect(res.status, await res.clone().text()).to.equal(202);
      ids[camera] = ((await res.json()) as { id: string }).id;
      await waitForDeliveries(daemon, ids[camera]!, (d) => d.find((x) => x.target === 'mqtt')?.state === 'delivered');
    }
    const late = await watch(); // what Home Assistant finds when it subscribes now
    for (const c of configs.filter((x) => !x.topic.includes('/porch_'))) {
      const component = c.topic.split('/')[1];
      if (component === 'event') continue; // events are not retained
      const topic = (c.body.state_topic ?? c.body.image_topic) as string;
      expect(topic, c.topic).to.be.a('string');
      const state = await late.waitFor((m) => m.topic === topic && m.retain && m.bytes.length > 0, `the retained state of ${c.body.unique_id} on ${topic}`);
      if (component === 'image') expect([...state.bytes.subarray(0, 2)], 'a JPEG').to.deep.equal([0xff, 0xd8]);
      if (c.body.availability_topic) expect(c.body.availability_topic).to.equal(AVAILABILITY);
    }
    const yardState = JSON.parse((await late.waitFor((m) => m.topic === `${BASE}/cameras/yard/state`, 'yard state')).text);
    expect(yardState).to.include({ result_id: ids.yard });
    expect(yardState.labels).to.be.an('array');
    expect(yardState.risk).to.be.oneOf(['safe', 'danger', 'intrusion']);
    // results per camera as well as per tenant, and an event for each
    const perCamera = await first.waitFor((m) => m.topic === `${BASE}/cameras/gate.1/result` && JSON.parse(m.text).id === ids['gate.1'], 'the per-camera result');
    expect(JSON.parse(perCamera.text).camera_id).to.equal('gate.1');
    const event = JSON.parse((await first.waitFor((m) => m.topic === `${BASE}/cameras/gate.1/event`, 'the event')).text);
    expect(event).to.include({ event_type: JSON.parse(perCamera.text).risk, result_id: ids['gate.1'] });
  });

  it("follows Home Assistant's documented keys and value types in every discovery payload, abbreviations included", async () => {
    const configs = await discovered(await watch(), cameras.map((c) => c.id as string));
    for (const c of configs) {
      const component = c.topic.split('/')[1]!;
      expect(discoveryProblems(component, c.body), `${c.topic}: ${c.text}`).to.deep.equal([]);
      // the same payload written with Home Assistant's abbreviations is just as valid
      const abbreviated = Object.fromEntries(Object.entries(c.body).map(([k, v]) => [{ state_topic: 'stat_t', device: 'dev', unique_id: 'uniq_id', off_delay: 'off_dly', event_types: 'evt_typ', image_topic: 'img_t', command_topic: 'cmd_t' }[k] ?? k, v]));
      expect(discoveryProblems(component, abbreviated), c.topic).to.deep.equal([]);
    }
    // the table does find what Home Assistant would refuse
    const intrusion = configs.find((c) => c.topic.includes('/yard_intrusion/'))!.body;
    expect(discoveryProblems('binary_sensor', { ...intrusion, off_delay_s: 5 })).to.deep.equal(['unknown key "off_delay_s"']);
    expect(discoveryProblems('binary_sensor', { ...intrusion, off_delay: '5' })).to.have.length(1);
    expect(discoveryProblems('event', { ...intrusion })).to.not.be.empty;
  });

  it('fires an event for every intrusion, and the intrusion sensor goes on and off again for each (two in a row)', async () => {
    const w = await watch();
    const intrusion = `${BASE}/cameras/yard/intrusion`;
    // the retained status this subscriber got: the figures before the two clips
    const before = JSON.parse((await w.waitFor((m) => m.topic === STATUS, 'the retained status')).text) as Record<string, any>;
    const started = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const from = w.seen.length;
      const id = await daemon.submit(walker, { flow: 'default', camera_id: 'yard' });
      ids.push(id);
      const event = await w.waitFor((m) => m.topic === `${BASE}/cameras/yard/event` && JSON.parse(m.text).result_id === id, `the event of intrusion ${i + 1}`, 60_000);
      // this result's snapshot is there before its event: a notification fired by the event shows it
      const snapshot = w.seen.findIndex((m, at) => at >= from && m.topic === `${BASE}/cameras/yard/snapshot`);
      expect(snapshot, 'the snapshot of this result').to.be.within(from, w.seen.indexOf(event) - 1);
      // the sensor clears by itself, so the next intrusion is a new change Home Assistant triggers on
      for (const sensor of [intrusion, `${BASE}/cameras/yard/person`]) {
        const offs = () => w.seen.filter((x) => x.topic === sensor && !x.retain && x.text === 'OFF').length;
        await w.waitFor((m) => m.topic === sensor && offs() === i + 1, `${sensor} OFF after intrusion ${i + 1}`, 10_000);
      }
    }
    const events = w.seen.filter((m) => m.topic === `${BASE}/cameras/yard/event`).map((m) => JSON.parse(m.text));
    expect(events.map((e) => e.result_id)).to.deep.equal(ids);
    for (const e of events) {
      expect(e.event_type).to.equal('intrusion');
      expect(e.risk).to.equal('intrusion');
      expect(e.labels).to.include.members(['person', 'intrusion']);
    }
    expect(w.seen.filter((m) => m.topic === `${BASE}/cameras/yard/event`).every((m) => !m.retain), 'events are not retained').to.equal(true);
    // ON, OFF, ON, OFF (the retained OFF a new subscriber gets comes first)
    const sequence = w.seen.filter((m) => m.topic === intrusion && !m.retain).map((m) => m.text);
    expect(sequence).to.deep.equal(['ON', 'OFF', 'ON', 'OFF']);
    const person = w.seen.filter((m) => m.topic === `${BASE}/cameras/yard/person` && !m.retain).map((m) => m.text);
    expect(person).to.deep.equal(['ON', 'OFF', 'ON', 'OFF']);
    // the status followed the clips and their deliveries as they happened, not on the (hour-long) interval
    // (a status reads its figures one after another: one read while the second result was
    // finalised and delivered can count both deliveries and still the job running; the status
    // that follows the delivery shows the queue empty)
    const done = (m: { text: string }) => { const q = JSON.parse(m.text).queue; return q.queued === 0 && q.running === 0; };
    const after = await w.waitFor((m) => m.topic === STATUS && !m.retain && JSON.parse(m.text).outbox.delivered >= before.outbox.delivered + 2 && done(m), 'a status with both deliveries and the queue empty', 5_000);
    expect(Date.parse(JSON.parse(after.text).time)).to.be.at.least(started - 1000);
    expect(JSON.parse(after.text).queue).to.deep.equal({ queued: 0, running: 0 });
  });

  it('sets the camera problem sensor on a failed capture and clears it with a good one (capture button)', async () => {
    const w = await watch();
    const configs = await discovered(w, ['porch']);
    const button = configs.find((c) => c.topic.includes('/porch_capture/'))!.body;
    const problem = configs.find((c) => c.topic.includes('/porch_problem/'))!.body;
    expect(problem.device_class).to.equal('problem');
    const press = () => w.client.publishAsync(button.command_topic, button.payload_press, { qos: 1 });
    const next = async (what: string) => {
      const from = w.seen.length;
      const m = await w.waitFor((x) => w.seen.indexOf(x) >= from && x.topic === problem.state_topic, what, 60_000);
      return JSON.parse(m.text) as Record<string, any>;
    };

    await porchGate.close(); // the camera is gone: 3001
    let pending = next('the problem after a failed capture');
    await press();
    const failed = await pending;
    expect(failed).to.include({ problem: true, error_code: 3001 });
    expect(failed.error_msg).to.be.a('string').and.not.include(porch.password);
    const failedEvent = JSON.parse((await w.waitFor((m) => m.topic === `${BASE}/cameras/porch/event` && JSON.parse(m.text).result_id === failed.result_id, 'the error event')).text);
    expect(failedEvent.event_type).to.equal('error');

    await porchGate.open(); // back: a good recording clears the problem
    pending = next('the problem cleared after a good capture');
    await press();
    const cleared = await pending;
    expect(cleared).to.include({ problem: false, error_code: 0 });
    // and a subscriber arriving now (Home Assistant after a restart) finds it cleared
    const late = await watch();
    const retained = await late.waitFor((m) => m.topic === problem.state_topic && m.retain, 'the retained problem state');
    expect(JSON.parse(retained.text).problem).to.equal(false);
  });

  it('leaves the last will "offline" on kill -9 and says "offline" (status "stopped", same shape) on a clean shutdown', async () => {
    const w = await watch();
    await w.waitFor((m) => m.topic === AVAILABILITY && m.text === 'online', 'online');
    await daemon.kill();
    await w.waitFor((m) => m.topic === AVAILABILITY && m.text === 'offline', 'the last will');
    const before = w.seen.length;
    await daemon.restart();
    await w.waitFor((m) => w.seen.indexOf(m) >= before && m.topic === AVAILABILITY && m.text === 'online', 'online after the restart');
    const online = JSON.parse((await w.waitFor((m) => w.seen.indexOf(m) >= before && m.topic === STATUS, 'status after the restart')).text);
    const beforeStop = w.seen.length;
    expect(await daemon.stop()).to.equal(0);
    const stopped = await w.waitFor((m) => w.seen.indexOf(m) >= beforeStop && m.topic === STATUS && JSON.parse(m.text).state === 'stopped', 'status stopped');
    const body = JSON.parse(stopped.text);
    // value_json.queue.queued and the other templates still render
    expect(Object.keys(body).sort()).to.deep.equal(Object.keys(online).sort());
    expect(body.queue.queued).to.be.a('number');
    expect(body.outbox).to.have.all.keys('pending', 'delivered', 'dropped');
    await w.waitFor((m) => w.seen.indexOf(m) >= beforeStop && m.topic === AVAILABILITY && m.text === 'offline', 'offline on a clean stop');
  });

  it('removes the Home Assistant entities and retained states of a camera no longer configured (empty retained messages)', async () => {
    const w = await watch();
    await w.waitFor((m) => m.topic === `${BASE}/cameras/gate.1/state` && m.retain && m.bytes.length > 0, 'the retained state of gate.1');
    // what an earlier version announced for a camera still configured (its snapshot as a camera entity)
    const oldSnapshot = `${HA}/camera/vigil_${GATEWAY}/yard_snapshot/config`;
    await w.client.publishAsync(oldSnapshot, JSON.stringify({ name: 'Snapshot', topic: `${BASE}/cameras/yard/snapshot`, unique_id: 'vigil_gw1_yard_snapshot' }), { qos: 1, retain: true });
    await daemon.kill();
    // the same gateway, started again with one camera fewer
    const remaining = cameras.filter((c) => c.id !== 'gate.1');
    daemon = await new TestDaemon({ dataDir: daemon.dataDir, config: { mqtt: mqttConfig(`mqtt://127.0.0.1:${gate.port}`), cameras: remaining } }).start();
    for (const entity of entitiesOf('gate.1')) {
      await w.waitFor((m) => m.topic.endsWith(`/${entity}/config`) && m.bytes.length === 0, `the removal of ${entity}`);
    }
    for (const state of ['state', 'snapshot', 'intrusion', 'person', 'problem']) {
      await w.waitFor((m) => m.topic === `${BASE}/cameras/gate.1/${state}` && m.bytes.length === 0, `the removal of gate.1's ${state}`);
    }
    // the old entity goes, the snapshot of the camera it showed stays
    await w.waitFor((m) => m.topic === oldSnapshot && m.bytes.length === 0, 'the removal of the old snapshot entity');
    // a late subscriber finds none of gate.1's retained messages, and the others still there
    const late = await watch();
    const configs = await discovered(late, ['yard', 'porch']);
    expect(configs.length).to.be.greaterThan(0);
    await late.waitFor((m) => m.topic === `${BASE}/cameras/yard/state` && m.retain, "yard's retained state");
    await late.waitFor((m) => m.topic === `${BASE}/cameras/yard/snapshot` && m.retain && m.bytes.length > 0, "yard's retained snapshot");
    expect(late.seen.filter((m) => m.topic === oldSnapshot)).to.deep.equal([]);
    expect(late.seen.filter((m) => m.topic.startsWith(`${BASE}/cameras/gate.1/`) || m.topic.includes('/gate_1_'))).to.deep.equal([]);
  });
});
