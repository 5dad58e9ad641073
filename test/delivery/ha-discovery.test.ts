// Home Assistant discovery (delivery/ha-discovery.ts) on a gateway and cameras made here: every
// payload as Home Assistant documents it (ha-schema.ts), the topics and ids it uses, the
// devices and their links, and the stale topics cleared with a removed camera's configs.
// mqtt.test.ts checks the same messages through a real broker.
import { expect } from 'chai';
import { RISKS } from '../../runtime/core/analysis.js';
import { DETECTION_KINDS, EVENT_TYPES } from '../../runtime/delivery/camera-signals.js';
import {
  discoveryMessages, discoveryNode, discoveryPattern, staleStateTopics, type DiscoveryInput,
} from '../../runtime/delivery/ha-discovery.js';
import { haId } from '../../runtime/core/ids.js';
import { mqttTopics } from '../../runtime/delivery/mqtt-topics.js';
import { discoveryProblems } from './ha-schema.js';
import { topicMatches } from './helpers.js';

const topics = mqttTopics('vigil', 'gw-1');
const input: DiscoveryInput = {
  discoveryPrefix: 'homeassistant',
  gatewayId: 'gw-1',
  topics,
  cameras: [
    { id: 'yard', name: 'Yard', records: true },
    { id: 'gate.1', name: 'Gate', records: false },
  ],
  swVersion: '1.2.3',
  offDelayS: 30,
  configurationUrl: 'http://127.0.0.1:8080/',
};

interface Config { topic: string; component: string; object: string; body: Record<string, any> }
function configs(i: DiscoveryInput = input): Config[] {
  return [...discoveryMessages(i)].map(([topic, text]) => {
    const [, component, , object] = topic.split('/');
    return { topic, component: component!, object: object!, body: JSON.parse(text) as Record<string, any> };
  });
}
const byObject = (list: Config[], object: string) => list.find((c) => c.object === object)!;

describe('Home Assistant discovery messages', () => {
  const all = configs();

  it("every payload has only the keys Home Assistant documents for its component, with values of their types", () => {
    expect(all).to.not.be.empty;
    for (const c of all) expect(discoveryProblems(c.component, c.body), c.topic).to.deep.equal([]);
  });

  it('topics are <prefix>/<component>/<node>/<object>/config, all under the pattern that finds them again', () => {
    const node = discoveryNode(input.gatewayId);
    for (const c of all) {
      expect(c.topic).to.equal(`homeassistant/${c.component}/${node}/${c.object}/config`);
      expect(c.object).to.match(/^[A-Za-z0-9_-]+$/);
      expect(topicMatches(discoveryPattern('homeassistant', input.gatewayId), c.topic), c.topic).to.equal(true);
    }
    const elsewhere = configs({ ...input, discoveryPrefix: 'ha-test' });
    expect(elsewhere.map((c) => c.topic.replace(/^ha-test\//, 'homeassistant/'))).to.deep.equal(all.map((c) => c.topic));
  });

  it('unique_ids are distinct, and follow only the gateway and camera ids: names, version and address change none', () => {
    const ids = all.map((c) => c.body.unique_id as string);
    expect(new Set(ids).size).to.equal(ids.length);
    for (const c of all) expect(c.body.unique_id).to.equal(`${discoveryNode(input.gatewayId)}_${c.object}`);
    const renamed = configs({ ...input, swVersion: '9.9.9', configurationUrl: '', cameras: input.cameras.map((c) => ({ ...c, name: `${c.name} (renamed)` })) });
    expect(renamed.map((c) => [c.topic, c.body.unique_id])).to.deep.equal(all.map((c) => [c.topic, c.body.unique_id]));
    const otherGateway = new Set(configs({ ...input, gatewayId: 'gw-2', topics: mqttTopics('vigil', 'gw-2') }).map((c) => c.body.unique_id));
    for (const id of ids) expect(otherGateway.has(id), id).to.equal(false);
  });

  it('the gateway: online, queue depth and backend, on its own device; its availability is the online sensor itself', () => {
    const gateway = all.filter((c) => c.object.startsWith('gateway_'));
    expect(gateway.map((c) => c.object).sort()).to.deep.equal(['gateway_backend', 'gateway_online', 'gateway_queue']);
    const online = byObject(all, 'gateway_online').body;
    expect(online).to.include({ state_topic: topics.availability, payload_on: 'online', payload_off: 'offline' });
    expect(online).to.not.have.property('availability_topic');
    for (const c of gateway) expect(c.body.device.identifiers).to.deep.equal([discoveryNode(input.gatewayId)]);
    for (const object of ['gateway_queue', 'gateway_backend']) expect(byObject(all, object).body.state_topic).to.equal(topics.status);
  });

  it('each camera is a device linked to the gateway, its entities reading its own topics, available with the gateway', () => {
    const node = discoveryNode(input.gatewayId);
    for (const camera of input.cameras) {
      const own = all.filter((c) => c.object.startsWith(`${haId(camera.id)}_`));
      expect(own).to.not.be.empty;
      for (const c of own) {
        expect(c.body.device).to.include({ name: camera.name, via_device: node, configuration_url: input.configurationUrl });
        expect(c.body.device.identifiers).to.deep.equal([`${node}_${haId(camera.id)}`]);
        expect(c.body.availability_topic).to.equal(topics.availability);
        for (const key of ['state_topic', 'json_attributes_topic', 'image_topic', 'command_topic']) {
          if (c.body[key] !== undefined) expect(topics.cameraOf(c.body[key]), `${c.object} ${key}`).to.equal(camera.id);
        }
      }
    }
  });

  it('a detection sensor per kind, clearing itself after the off delay; a result event of every type; the last risk among the risks or error', () => {
    for (const camera of input.cameras) {
      const id = haId(camera.id);
      for (const kind of DETECTION_KINDS) {
        const sensor = byObject(all, `${id}_${kind}`);
        expect(sensor.component).to.equal('binary_sensor');
        expect(sensor.body).to.include({ state_topic: topics.cameraDetection(camera.id, kind), off_delay: input.offDelayS, payload_on: 'ON', payload_off: 'OFF' });
      }
      const event = byObject(all, `${id}_result`);
      expect(event.component).to.equal('event');
      expect(event.body.state_topic).to.equal(topics.cameraEvent(camera.id));
      expect(event.body.event_types).to.deep.equal([...EVENT_TYPES]);
      expect(byObject(all, `${id}_risk`).body.options).to.deep.equal([...RISKS, 'error']);
      expect(byObject(all, `${id}_snapshot`).body).to.include({ image_topic: topics.cameraSnapshot(camera.id), content_type: 'image/jpeg' });
    }
  });

  it('a capture button only for a camera Vigil records from', () => {
    expect(byObject(all, 'yard_capture').body).to.include({ command_topic: topics.cameraCapture('yard'), payload_press: 'capture' });
    expect(all.filter((c) => c.component === 'button').map((c) => c.object)).to.deep.equal(['yard_capture']);
    const gate = all.filter((c) => c.object.startsWith('gate_1_')).map((c) => c.object);
    const yard = all.filter((c) => c.object.startsWith('yard_')).map((c) => c.object.replace(/^yard_/, 'gate_1_'));
    expect(yard.filter((o) => !gate.includes(o))).to.deep.equal(['gate_1_capture']);
  });

  it('without a dashboard address, no "Visit" link; without cameras, the gateway alone', () => {
    for (const c of configs({ ...input, configurationUrl: '' })) expect(c.body.device, c.object).to.not.have.property('configuration_url');
    expect(configs({ ...input, cameras: [] }).map((c) => c.object).sort()).to.deep.equal(['gateway_backend', 'gateway_online', 'gateway_queue']);
  });
});

describe('stale discovery configs', () => {
  const removed = { ...input, cameras: [{ id: 'porch', name: 'Porch', records: true }] };
  const stale = [...discoveryMessages(removed)].filter(([topic]) => topic.includes('/porch_'));
  const configured = new Set(input.cameras.map((c) => c.id));

  it("a removed camera's configs give its retained topics to clear, never its capture topic", () => {
    const cleared = new Set(stale.flatMap(([, text]) => staleStateTopics(text, topics, configured)));
    expect([...cleared].sort()).to.deep.equal([
      topics.cameraState('porch'), topics.cameraSnapshot('porch'), topics.cameraProblem('porch'), topics.cameraEvent('porch'),
      ...DETECTION_KINDS.map((kind) => topics.cameraDetection('porch', kind)),
    ].sort());
  });

  it("a configured camera's configs, the gateway's, and a payload that is not JSON clear nothing", () => {
    for (const [, text] of discoveryMessages(input)) expect(staleStateTopics(text, topics, configured)).to.deep.equal([]);
    expect(staleStateTopics('{not json', topics, configured)).to.deep.equal([]);
    // abbreviated keys are read too
    expect(staleStateTopics(JSON.stringify({ stat_t: topics.cameraState('porch') }), topics, configured)).to.deep.equal([topics.cameraState('porch')]);
  });
});
