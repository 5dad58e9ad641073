// MQTT end to end: the real daemon publishing to a real broker (mosquitto, or
// aedes when mosquitto is not installed), watched by a real subscriber.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import mqtt, { type MqttClient } from 'mqtt';
import { TcpGate, TestBroker } from '../support/broker.js';
import { stillClip, tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';
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

/** Waits for the retained discovery configs of the gateway (3 entities) and of the cameras (5 each), as Home Assistant reads them. */
async function discovered(w: Watcher, cameras: string[]): Promise<DiscoveryConfig[]> {
  const objects = ['gateway_online', 'gateway_queue', 'gateway_backend'];
  for (const c of cameras) for (const e of ['intrusion', 'person', 'risk', 'labels', 'snapshot']) objects.push(`${c.replace(/[^A-Za-z0-9_-]/g, '_')}_${e}`);
  const found: DiscoveryConfig[] = [];
  for (const object of objects) {
    const m = await w.waitFor((x) => x.topic.startsWith(`${HA}/`) && x.topic.endsWith(`/vigil_${GATEWAY}/${object}/config`) && x.bytes.length > 0, `discovery of ${object}`);
    found.push({ ...m, body: JSON.parse(m.text) as Record<string, any> });
  }
  return found;
}

const AVAILABILITY = `${BASE}/availability`;
const STATUS = `${BASE}/status`;
const CAMERAS = [{ id: 'yard', name: 'Back yard' }, { id: 'gate.1' }];
const mqttConfig = (url: string) => ({
  enabled: true, url, prefix: PREFIX, gateway_id: GATEWAY, discovery: { prefix: HA },
  qos: 1, status_interval_s: 1, reconnect: { initial_s: 0.2, max_s: 1 },
});

describe('MQTT delivery', function () {
  let broker: TestBroker;
  let gate: TcpGate;
  let daemon: TestDaemon;
  let dir: string;
  let clip: string;
  const watchers: Watcher[] = [];
  const watch = async () => {
    const w = await Watcher.connect(broker.url);
    watchers.push(w);
    return w;
  };

  before(async () => {
    dir = tempDir();
    clip = await stillClip('owl.jpg', path.join(dir, 'owl.mp4'), 1, 5, 160);
    broker = await new TestBroker().start();
    // the daemon reaches the broker through a gate the test opens and closes
    gate = await new TcpGate(broker.port).open();
    daemon = await new TestDaemon({ config: { mqtt: mqttConfig(`mqtt://127.0.0.1:${gate.port}`), cameras: CAMERAS } }).start();
  });
  after(async () => {
    for (const w of watchers) await w.close().catch(() => {});
    await daemon?.cleanup();
    await gate?.close();
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
    const configs = await discovered(first, CAMERAS.map((c) => c.id));
    for (const c of configs) {
      expect(c.retain, c.topic).to.equal(true);
      expect(c.body.device.identifiers, c.topic).to.be.an('array').that.is.not.empty;
    }
    expect(new Set(configs.map((c) => c.body.unique_id)).size).to.equal(configs.length);
    // a camera device per camera, under the gateway's device
    const yard = configs.filter((c) => c.topic.includes('/yard_'));
    expect(yard.map((c) => c.topic.split('/')[1]).sort()).to.deep.equal(['binary_sensor', 'binary_sensor', 'camera', 'sensor', 'sensor']);
    expect(yard[0]!.body.device.name).to.equal('Back yard');
    expect(yard[0]!.body.device.via_device).to.equal(configs.find((c) => c.topic.includes('/gateway_online/'))!.body.device.identifiers[0]);
    expect(configs.find((c) => c.topic.includes('/gate_1_intrusion/'))!.body.device.name).to.equal('gate.1');

    // one result per camera (uploaded with its camera_id), then every state topic holds a retained message
    const ids: Record<string, string> = {};
    for (const camera of CAMERAS) {
      const res = await daemon.upload(clip, { flow: 'default', camera_id: camera.id });
      expect(res.status, await res.clone().text()).to.equal(202);
      ids[camera.id] = ((await res.json()) as { id: string }).id;
      await waitForDeliveries(daemon, ids[camera.id]!, (d) => d.find((x) => x.target === 'mqtt')?.state === 'delivered');
    }
    const late = await watch(); // what Home Assistant finds when it subscribes now
    for (const c of configs) {
      const topic = (c.body.state_topic ?? c.body.topic) as string;
      expect(topic, c.topic).to.be.a('string');
      const state = await late.waitFor((m) => m.topic === topic && m.retain && m.bytes.length > 0, `the retained state of ${c.body.unique_id} on ${topic}`);
      if (c.topic.startsWith(`${HA}/camera/`)) expect([...state.bytes.subarray(0, 2)], 'a JPEG').to.deep.equal([0xff, 0xd8]);
      if (c.body.availability_topic) expect(c.body.availability_topic).to.equal(AVAILABILITY);
    }
    const yardState = JSON.parse((await late.waitFor((m) => m.topic === `${BASE}/cameras/yard/state`, 'yard state')).text);
    expect(yardState).to.include({ result_id: ids.yard });
    expect(yardState.labels).to.be.an('array');
    expect(yardState.risk).to.be.oneOf(['safe', 'danger', 'intrusion']);
    // results per camera as well as per tenant
    const perCamera = await first.waitFor((m) => m.topic === `${BASE}/cameras/gate.1/result` && JSON.parse(m.text).id === ids['gate.1'], 'the per-camera result');
    expect(JSON.parse(perCamera.text).camera_id).to.equal('gate.1');
  });

  it('leaves the last will "offline" on kill -9 and says "offline" (status "stopped") on a clean shutdown', async () => {
    const w = await watch();
    await w.waitFor((m) => m.topic === AVAILABILITY && m.text === 'online', 'online');
    await daemon.kill();
    await w.waitFor((m) => m.topic === AVAILABILITY && m.text === 'offline', 'the last will');
    const before = w.seen.length;
    await daemon.restart();
    await w.waitFor((m) => w.seen.indexOf(m) >= before && m.topic === AVAILABILITY && m.text === 'online', 'online after the restart');
    const beforeStop = w.seen.length;
    expect(await daemon.stop()).to.equal(0);
    await w.waitFor((m) => w.seen.indexOf(m) >= beforeStop && m.topic === STATUS && JSON.parse(m.text).state === 'stopped', 'status stopped');
    await w.waitFor((m) => w.seen.indexOf(m) >= beforeStop && m.topic === AVAILABILITY && m.text === 'offline', 'offline on a clean stop');
  });

  it('removes the Home Assistant entities of a camera no longer configured (empty retained config)', async () => {
    const w = await watch();
    await daemon.kill();
    // the same gateway, started again with one camera fewer
    daemon = await new TestDaemon({ dataDir: daemon.dataDir, config: { mqtt: mqttConfig(`mqtt://127.0.0.1:${gate.port}`), cameras: [CAMERAS[0]] } }).start();
    for (const entity of ['gate_1_intrusion', 'gate_1_person', 'gate_1_risk', 'gate_1_labels', 'gate_1_snapshot']) {
      await w.waitFor((m) => m.topic.endsWith(`/${entity}/config`) && m.bytes.length === 0, `the removal of ${entity}`);
    }
    // the remaining camera and the gateway are still announced
    await discovered(await watch(), ['yard']);
  });
});
