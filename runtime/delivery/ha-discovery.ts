// Home Assistant MQTT discovery: the retained config messages that make the
// gateway and its cameras appear in Home Assistant by themselves. One device
// for the gateway (availability, queue depth, backend) and one per configured
// camera (intrusion, person, last risk, labels, snapshot), linked to it by
// via_device. unique_ids depend only on the gateway and camera ids, so they
// stay the same across restarts (as Zigbee2MQTT's do).
import type { MqttTopics } from './mqtt-publisher.js';

export interface DiscoveryCamera {
  id: string;
  /** shown in Home Assistant */
  name: string;
}

export interface DiscoveryInput {
  /** "homeassistant" unless configured otherwise */
  discoveryPrefix: string;
  gatewayId: string;
  topics: MqttTopics;
  cameras: DiscoveryCamera[];
  swVersion: string;
}

/** Home Assistant's object and node ids allow only these characters. */
export function haId(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The node id of every discovery topic of this gateway: <discovery prefix>/<component>/<node id>/<object id>/config. */
export function discoveryNode(gatewayId: string): string {
  return `vigil_${haId(gatewayId)}`;
}

/** The subscription that finds every discovery config this gateway ever published (to clear stale ones). */
export function discoveryPattern(discoveryPrefix: string, gatewayId: string): string {
  return `${discoveryPrefix}/+/${discoveryNode(gatewayId)}/+/config`;
}

/** topic -> JSON payload of every entity that should exist now. */
export function discoveryMessages(input: DiscoveryInput): Map<string, string> {
  const { discoveryPrefix, gatewayId, topics } = input;
  const node = discoveryNode(gatewayId);
  const availability = { availability_topic: topics.availability, payload_available: 'online', payload_not_available: 'offline' };
  const gatewayDevice = {
    identifiers: [node],
    name: `Vigil ${gatewayId}`,
    manufacturer: 'Vigil',
    model: 'Vigil gateway',
    sw_version: input.swVersion,
  };
  const out = new Map<string, string>();
  const add = (component: string, objectId: string, config: Record<string, unknown>) => {
    const object = haId(objectId);
    out.set(`${discoveryPrefix}/${component}/${node}/${object}/config`, JSON.stringify({ ...config, unique_id: `${node}_${object}` }));
  };

  // the gateway: its availability is the entity itself, so it has none of its own
  add('binary_sensor', 'gateway_online', {
    name: 'Online', device_class: 'connectivity', entity_category: 'diagnostic',
    state_topic: topics.availability, payload_on: 'online', payload_off: 'offline', device: gatewayDevice,
  });
  add('sensor', 'gateway_queue', {
    name: 'Queue depth', ...availability, state_topic: topics.status, unit_of_measurement: 'clips', state_class: 'measurement',
    value_template: '{{ value_json.queue.queued }}', json_attributes_topic: topics.status, device: gatewayDevice,
  });
  add('sensor', 'gateway_backend', {
    name: 'Backend', ...availability, state_topic: topics.status, entity_category: 'diagnostic',
    value_template: "{{ value_json.backend or 'none' }}", device: gatewayDevice,
  });

  for (const camera of input.cameras) {
    const state = topics.cameraState(camera.id);
    const device = { identifiers: [`${node}_${haId(camera.id)}`], name: camera.name, manufacturer: 'Vigil', model: 'Camera', via_device: node };
    const base = { ...availability, device };
    add('binary_sensor', `${camera.id}_intrusion`, {
      name: 'Intrusion', device_class: 'motion', state_topic: state,
      value_template: "{{ 'ON' if value_json.risk == 'intrusion' else 'OFF' }}", ...base,
    });
    add('binary_sensor', `${camera.id}_person`, {
      name: 'Person', device_class: 'occupancy', state_topic: state,
      value_template: "{{ 'ON' if 'person' in value_json.labels else 'OFF' }}", ...base,
    });
    add('sensor', `${camera.id}_risk`, {
      name: 'Last risk', state_topic: state, value_template: '{{ value_json.risk }}', json_attributes_topic: state, ...base,
    });
    add('sensor', `${camera.id}_labels`, {
      name: 'Last labels', state_topic: state, value_template: "{{ value_json.labels | join(', ') }}", ...base,
    });
    add('camera', `${camera.id}_snapshot`, { name: 'Snapshot', topic: topics.cameraSnapshot(camera.id), ...base });
  }
  return out;
}
