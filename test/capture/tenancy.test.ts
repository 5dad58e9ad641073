// A camera belongs to its tenant: through the real daemon with two tenants, a
// real broker and the real models, a clip that names another tenant's camera
// is treated as a clip of an unknown camera (no camera rules, no camera
// topic), the owner's Home Assistant topics never see it, MQTT triggers can be
// turned off per camera, and a camera URL's query never reaches the log.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import mqtt, { type MqttClient } from 'mqtt';
import { TestBroker } from '../support/broker.js';
import { tempDir, walkerClip } from '../support/clips.js';
import { TestDaemon, freePort } from '../support/daemon.js';
import { waitForDeliveries } from '../delivery/helpers.js';

const BASE = 'vigil-tenancy/gw';
const WHOLE = [[0, 0], [1, 0], [1, 1], [0, 1]];

describe("cameras stay with their tenant", function () {
  this.timeout(300_000);
  let broker: TestBroker;
  let daemon: TestDaemon;
  let subscriber: MqttClient;
  const seen: Array<{ topic: string; text: string }> = [];
  let walker: string;
  const dir = tempDir('vigil-tenancy-');

  const classify = (key: string, fields: Record<string, string>) => daemon.classified(walker, fields, key);
  const published = async (id: string) => waitForDeliveries(daemon, id, (d) => d.find((x) => x.target === 'mqtt')?.state === 'delivered');

  before(async () => {
    broker = await new TestBroker().start();
    const closed = await freePort(); // the cameras' streams: nothing listens there
    daemon = await new TestDaemon({
      config: {
        mqtt: { enabled: true, url: broker.url, prefix: 'vigil-tenancy', gateway_id: 'gw', qos: 1 },
        cameras: [
          // tenant-b's camera masks the whole frame: nothing it sees counts
          { id: 'yard-b', tenant: 'tenant-b', masks: [WHOLE], url: `http://127.0.0.1:${closed}/video?token=cam-query-s3cret`, mqtt_capture: false },
          { id: 'gate-a', tenant: 'tenant-a', url: `http://127.0.0.1:${closed}/video?pwd=other-query-s3cret`, timeout_s: 1, record_s: 1 },
        ],
      },
    }).start();
    subscriber = await mqtt.connectAsync(broker.url, { connectTimeout: 5000 });
    subscriber.on('message', (topic, payload) => seen.push({ topic, text: payload.toString() }));
    await subscriber.subscribeAsync(`${BASE}/#`, { qos: 1 });
    walker = await walkerClip('grace_hopper.png', path.join(dir, 'walker.mp4'));
  });
  after(async () => {
    await subscriber?.endAsync(true);
    await daemon?.cleanup();
    await broker?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("gives a clip that names another tenant's camera neither that camera's rules nor its topics, as for an unknown camera", async () => {
    // tenant-b's own clip gets its camera's mask and goes to its camera's topics
    const own = await classify(daemon.otherTenantKey, { camera_id: 'yard-b' });
    expect(own.risk).to.equal('safe');
    await published(own.id);
    const stateTopic = `${BASE}/cameras/yard-b/state`;
    const ownState = seen.find((m) => m.topic === stateTopic && JSON.parse(m.text).result_id === own.id);
    expect(ownState, "tenant-b's own state").to.not.equal(undefined);

    // tenant-a: the same clip without a camera, with an unknown camera id, and with tenant-b's camera id
    const plain = await classify(daemon.tenantKey, {});
    const unknown = await classify(daemon.tenantKey, { camera_id: 'nowhere' });
    const foreign = await classify(daemon.tenantKey, { camera_id: 'yard-b' });
    expect(plain.risk).to.equal('intrusion');
    for (const r of [unknown, foreign]) {
      expect({ risk: r.risk, labels: r.labels, scores: r.scores }, r.camera_id).to.deep.equal({ risk: plain.risk, labels: plain.labels, scores: plain.scores });
    }
    expect(foreign.camera_id).to.equal('yard-b'); // the clip keeps what it was sent with
    for (const r of [unknown, foreign]) await published(r.id);

    // delivered on tenant-a's own topic, and on no camera topic at all
    for (const r of [unknown, foreign]) {
      expect(seen.some((m) => m.topic === `${BASE}/tenant-a/result` && JSON.parse(m.text).id === r.id), `${r.camera_id} on tenant-a/result`).to.equal(true);
    }
    const onCameraTopics = seen.filter((m) => m.topic.startsWith(`${BASE}/cameras/`) && [unknown.id, foreign.id].some((id) => m.text.includes(id)));
    expect(onCameraTopics.map((m) => m.topic)).to.deep.equal([]);
    expect(seen.some((m) => m.topic.startsWith(`${BASE}/cameras/nowhere/`))).to.equal(false);
    // what tenant-b's Home Assistant finds now: still its own result
    const late = await mqtt.connectAsync(broker.url, { connectTimeout: 5000 });
    try {
      const retained = new Promise<string>((resolve) => late.on('message', (topic, payload) => topic === stateTopic && resolve(payload.toString())));
      await late.subscribeAsync(stateTopic, { qos: 1 });
      expect(JSON.parse(await retained).result_id).to.equal(own.id);
    } finally {
      await late.endAsync(true);
    }
  });

  it('ignores MQTT capture messages for a camera whose MQTT triggers are off, and records for the others', async () => {
    await subscriber.publishAsync(`${BASE}/cameras/yard-b/capture`, '{}', { qos: 1 });
    await subscriber.publishAsync(`${BASE}/cameras/gate-a/capture`, '{}', { qos: 1 });
    await daemon.waitForLog((r) => r.msg === 'capture failed' && r.camera === 'gate-a'); // tried, and its closed port answered
    const ignored = await daemon.waitForLog((r) => /MQTT triggers are off/.test(r.msg));
    expect(ignored.camera).to.equal('yard-b');
    expect(daemon.logs.some((r) => r.msg === 'recording' && r.camera === 'yard-b')).to.equal(false);
    // the HTTP trigger of its own tenant still records (and fails on the closed port with 3001)
    const res = await fetch(`${daemon.url}/api/cameras/yard-b/capture?sync=true`, { method: 'POST', headers: daemon.auth(daemon.otherTenantKey) });
    expect(res.status).to.equal(200);
    const failed = (await res.json()) as { error_code: number; error_msg: string };
    expect(failed.error_code).to.equal(3001);
    // its reason names the camera's URL without the query's values
    expect(failed.error_msg).to.include('/video?token=').and.not.include('cam-query-s3cret');
  });

  it("never logs a camera URL's query values", async () => {
    const ready = await daemon.waitForLog((r) => r.msg === 'cameras ready');
    expect(JSON.stringify(ready)).to.include('/video?token=');
    const logged = daemon.logs.map((r) => JSON.stringify(r)).join('\n');
    for (const secret of ['cam-query-s3cret', 'other-query-s3cret']) expect(logged, secret).to.not.include(secret);
  });
});
