// The MQTT topic builder (delivery/mqtt-publisher.ts, mqttTopics) and the gateway id: every
// topic of a gateway under <prefix>/<gateway id>, a camera's id read back from its topics, and
// the capture subscription matching exactly the capture topics.
import { expect } from 'chai';
import { defaultGatewayId, gatewayIdOf } from '../../runtime/delivery/mqtt-publisher.js';
import { mqttTopics, type MqttTopics } from '../../runtime/delivery/mqtt-topics.js';
import { DETECTION_KINDS } from '../../runtime/delivery/camera-signals.js';
import { topicMatches } from './helpers.js';

const CAMERAS = ['yard', 'gate.1', 'back-door', 'Cam_2'];

/** Every topic the builder makes for a camera. */
const cameraTopics = (t: MqttTopics, camera: string): string[] => [
  t.cameraResult(camera), t.cameraState(camera), t.cameraSnapshot(camera), t.cameraEvent(camera),
  t.cameraProblem(camera), t.cameraCapture(camera), ...DETECTION_KINDS.map((kind) => t.cameraDetection(camera, kind)),
];
const gatewayTopics = (t: MqttTopics): string[] => [t.availability, t.status, t.result('tenant-a'), ...CAMERAS.flatMap((c) => cameraTopics(t, c))];

describe('MQTT topics', () => {
  const topics = mqttTopics('vigil', 'gw-1');

  it('every topic of a gateway lies under <prefix>/<gateway id>, each one distinct, none with a wildcard', () => {
    expect(topics.base).to.equal('vigil/gw-1');
    const all = gatewayTopics(topics);
    for (const topic of all) {
      expect(topic.startsWith(`${topics.base}/`), topic).to.equal(true);
      expect(topic).to.not.match(/[#+]/);
    }
    expect(new Set(all).size).to.equal(all.length);
  });

  it('two gateways under one prefix share no topic, and neither reads the other\'s cameras', () => {
    const other = mqttTopics('vigil', 'gw-2');
    const mine = new Set(gatewayTopics(topics));
    for (const topic of gatewayTopics(other)) {
      expect(mine.has(topic), topic).to.equal(false);
      expect(topics.cameraOf(topic), topic).to.equal(undefined);
      expect(topics.captureCamera(topic), topic).to.equal(undefined);
    }
  });

  it("a camera's id is read back from each of its topics; topics outside cameras/ have none", () => {
    for (const camera of CAMERAS) for (const topic of cameraTopics(topics, camera)) expect(topics.cameraOf(topic), topic).to.equal(camera);
    for (const topic of [topics.availability, topics.status, topics.result('tenant-a'), topics.base, `${topics.base}/cameras/`]) {
      expect(topics.cameraOf(topic), topic).to.equal(undefined);
    }
  });

  it('only a capture topic names a camera to capture from, and the capture subscription matches exactly those', () => {
    for (const camera of CAMERAS) {
      expect(topics.captureCamera(topics.cameraCapture(camera))).to.equal(camera);
      expect(topicMatches(topics.capture, topics.cameraCapture(camera))).to.equal(true);
      for (const topic of cameraTopics(topics, camera).filter((t) => t !== topics.cameraCapture(camera))) {
        expect(topics.captureCamera(topic), topic).to.equal(undefined);
        expect(topicMatches(topics.capture, topic), topic).to.equal(false);
      }
    }
    expect(topicMatches(topics.capture, mqttTopics('vigil', 'gw-2').cameraCapture('yard'))).to.equal(false);
  });

  it('the gateway id: the configured one, else the host name up to its first dot, lower case, in the characters a topic and Home Assistant allow', () => {
    expect(gatewayIdOf({ gateway_id: 'site-7' })).to.equal('site-7');
    expect(gatewayIdOf({ gateway_id: '' })).to.equal(defaultGatewayId());
    expect(defaultGatewayId('Gateway-A.example.org')).to.equal('gateway-a');
    expect(defaultGatewayId('cam+box#1')).to.equal('cam_box_1');
    expect(defaultGatewayId('x'.repeat(80))).to.equal('x'.repeat(64));
    expect(defaultGatewayId('')).to.equal('vigil');
    for (const host of ['Gateway-A.example.org', 'cam+box#1', 'a/b']) {
      const id = defaultGatewayId(host);
      expect(id).to.match(/^[a-z0-9_-]{1,64}$/);
      expect(mqttTopics('vigil', id).cameraOf(mqttTopics('vigil', id).cameraState('yard'))).to.equal('yard');
    }
  });
});

describe('MQTT topic filters in these tests', () => {
  it('+ matches one level, # the rest, anything else itself', () => {
    expect(topicMatches('a/+/c', 'a/b/c')).to.equal(true);
    expect(topicMatches('a/+/c', 'a/b/d/c')).to.equal(false);
    expect(topicMatches('a/#', 'a/b/c')).to.equal(true);
    expect(topicMatches('a/b', 'a/b/c')).to.equal(false);
  });
});
