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

interface Seen {
  topic: string;
  text: string;
  retain: boolean;
}

/** A subscriber to everything under the prefix, recording what it receives. */
class Watcher {
  readonly seen: Seen[] = [];
  private constructor(readonly client: MqttClient) {}

  static async connect(url: string): Promise<Watcher> {
    const client = await mqtt.connectAsync(url, { reconnectPeriod: 100, connectTimeout: 5000 });
    const watcher = new Watcher(client);
    client.on('message', (topic, payload, packet) => watcher.seen.push({ topic, text: payload.toString(), retain: packet.retain }));
    await client.subscribeAsync(`${PREFIX}/#`, { qos: 1 });
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

const AVAILABILITY = `${PREFIX}/gateway/availability`;
const STATUS = `${PREFIX}/gateway/status`;

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
    daemon = await new TestDaemon({
      config: {
        mqtt: {
          enabled: true,
          url: `mqtt://127.0.0.1:${gate.port}`,
          prefix: PREFIX,
          qos: 1,
          status_interval_s: 1,
          reconnect: { initial_s: 0.2, max_s: 1 },
        },
      },
    }).start();
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

  it('publishes each final result on <prefix>/<tenant>/result, the JSON of GET /api/result/<id>', async () => {
    const w = await watch();
    const id = await submit(daemon, clip, 'default');
    const msg = await w.waitFor((m) => m.topic === `${PREFIX}/tenant-a/result` && JSON.parse(m.text).id === id, 'the result');
    const res = await fetch(`${daemon.url}/api/result/${id}`, { headers: daemon.auth() });
    expect(res.status).to.equal(200);
    expect(JSON.parse(msg.text)).to.deep.equal(await res.json());
    await waitForDeliveries(daemon, id, (d) => d.some((x) => x.target === 'mqtt' && x.state === 'delivered'));
    // the other tenant's results go to its own topic
    const other = await submit(daemon, clip, 'default', daemon.otherTenantKey);
    await w.waitFor((m) => m.topic === `${PREFIX}/tenant-b/result` && JSON.parse(m.text).id === other, "tenant-b's result");
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
    await w.waitFor((m) => m.topic === `${PREFIX}/tenant-a/result` && JSON.parse(m.text).id === id, 'the result held in the outbox');
    await waitForDeliveries(daemon, id, (d) => d.find((x) => x.target === 'mqtt')?.state === 'delivered');
    // a subscriber arriving later finds the retained "online"
    const late = await watch();
    await late.waitFor((m) => m.topic === AVAILABILITY && m.retain && m.text === 'online', 'retained online');
  });

  it('turns a message on <prefix>/cameras/<id>/capture into a capture request', async () => {
    const w = await watch();
    await w.client.publishAsync(`${PREFIX}/cameras/cam-7/capture`, '{}', { qos: 1 });
    const record = await daemon.waitForLog((r) => r.msg === 'capture requested over MQTT');
    expect(record.camera).to.equal('cam-7');
  });

  it('leaves the last will "offline" on kill -9 and says "stopped" on a clean shutdown', async () => {
    const w = await watch();
    await w.waitFor((m) => m.topic === AVAILABILITY && m.text === 'online', 'online');
    await daemon.kill();
    await w.waitFor((m) => m.topic === AVAILABILITY && m.text === 'offline', 'the last will');
    const before = w.seen.length;
    await daemon.restart();
    await w.waitFor((m) => w.seen.indexOf(m) >= before && m.topic === AVAILABILITY && m.text === 'online', 'online after the restart');
    expect(await daemon.stop()).to.equal(0);
    await w.waitFor((m) => m.topic === AVAILABILITY && m.text === 'stopped', 'stopped');
  });
});
