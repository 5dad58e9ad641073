// Home Assistant MQTT discovery: the retained config messages that make the
// gateway and its cameras appear in Home Assistant by themselves. One device
// for the gateway (availability, queue depth, backend) and one per configured
// camera, linked to it by via_device: detection binary sensors that clear by
// themselves, an event entity fired on every result (what automations trigger
// on), the last risk as an enum sensor, a problem sensor, a capture button for
// cameras Vigil records from, and the snapshot as an image entity. unique_ids
// depend only on the gateway and camera ids, so they stay the same across
// restarts (as Zigbee2MQTT's do).
import { RISKS } from '../core/analysis.js';
import { haId } from '../core/ids.js';
import { DETECTION_KINDS, EVENT_TYPES, type DetectionKind } from './camera-signals.js';
import type { MqttTopics } from './mqtt-topics.js';

export interface DiscoveryCamera {
  id: string;
  /** shown in Home Assistant */
  name: string;
  /** Vigil records from it (it has a URL): it gets a capture button */
  records: boolean;
}

export interface DiscoveryInput {
  /** "homeassistant" unless configured otherwise */
  discoveryPrefix: string;
  gatewayId: string;
  topics: MqttTopics;
  cameras: DiscoveryCamera[];
  swVersion: string;
  /** seconds after which Home Assistant sets a detection sensor off by itself (the gateway also sends OFF then) */
  offDelayS: number;
  /** the dashboard's address, shown as the devices' "Visit" link; empty: none */
  configurationUrl: string;
}

/** The node id of every discovery topic of this gateway: <discovery prefix>/<component>/<node id>/<object id>/config. */
export function discoveryNode(gatewayId: string): string {
  return `vigil_${haId(gatewayId)}`;
}

/** The subscription that finds every discovery config this gateway ever published (to clear stale ones). */
export function discoveryPattern(discoveryPrefix: string, gatewayId: string): string {
  return `${discoveryPrefix}/+/${discoveryNode(gatewayId)}/+/config`;
}

const DETECTION_NAMES: Record<DetectionKind, { name: string; device_class: string }> = {
  intrusion: { name: 'Intrusion', device_class: 'motion' },
  person: { name: 'Person', device_class: 'occupancy' },
  vehicle: { name: 'Vehicle', device_class: 'occupancy' },
  animal: { name: 'Animal', device_class: 'occupancy' },
};

/** topic -> JSON payload of every entity that should exist now. */
export function discoveryMessages(input: DiscoveryInput): Map<string, string> {
  const { discoveryPrefix, gatewayId, topics } = input;
  const node = discoveryNode(gatewayId);
  const availability = { availability_topic: topics.availability, payload_available: 'online', payload_not_available: 'offline' };
  const origin = { name: 'Vigil', sw_version: input.swVersion };
  const visit = input.configurationUrl ? { configuration_url: input.configurationUrl } : {};
  const gatewayDevice = {
    identifiers: [node],
    name: `Vigil ${gatewayId}`,
    manufacturer: 'Vigil',
    model: 'Vigil gateway',
    sw_version: input.swVersion,
    ...visit,
  };
  const out = new Map<string, string>();
  const add = (component: string, objectId: string, config: Record<string, unknown>) => {
    const object = haId(objectId);
    out.set(`${discoveryPrefix}/${component}/${node}/${object}/config`, JSON.stringify({ ...config, unique_id: `${node}_${object}`, origin }));
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
    const device = { identifiers: [`${node}_${haId(camera.id)}`], name: camera.name, manufacturer: 'Vigil', model: 'Camera', via_device: node, ...visit };
    const base = { ...availability, device };
    for (const kind of DETECTION_KINDS) {
      // ON with each result that has it, OFF after off_delay: every detection is a new state change
      add('binary_sensor', `${camera.id}_${kind}`, {
        ...DETECTION_NAMES[kind], state_topic: topics.cameraDetection(camera.id, kind),
        payload_on: 'ON', payload_off: 'OFF', off_delay: input.offDelayS, ...base,
      });
    }
    add('event', `${camera.id}_result`, {
      name: 'Result', device_class: 'motion', state_topic: topics.cameraEvent(camera.id), event_types: [...EVENT_TYPES], ...base,
    });
    add('binary_sensor', `${camera.id}_problem`, {
      name: 'Problem', device_class: 'problem', entity_category: 'diagnostic', state_topic: topics.cameraProblem(camera.id),
      value_template: "{{ 'ON' if value_json.problem else 'OFF' }}", json_attributes_topic: topics.cameraProblem(camera.id), ...base,
    });
    add('sensor', `${camera.id}_risk`, {
      name: 'Last risk', device_class: 'enum', options: [...RISKS, 'error'], state_topic: state,
      value_template: "{{ value_json.risk if value_json.error_code == 0 else 'error' }}", json_attributes_topic: state, ...base,
    });
    add('sensor', `${camera.id}_labels`, {
      name: 'Last labels', state_topic: state, value_template: "{{ value_json.labels | join(', ') }}", ...base,
    });
    add('sensor', `${camera.id}_last_result`, {
      name: 'Last result', device_class: 'timestamp', state_topic: state, value_template: '{{ value_json.time }}', ...base,
    });
    add('image', `${camera.id}_snapshot`, { name: 'Snapshot', image_topic: topics.cameraSnapshot(camera.id), content_type: 'image/jpeg', ...base });
    if (camera.records) {
      add('button', `${camera.id}_capture`, { name: 'Capture', command_topic: topics.cameraCapture(camera.id), payload_press: 'capture', ...base });
    }
  }
  return out;
}

/**
 * The topics a stale discovery config read from (a removed camera's state,
 * snapshot, ...), to clear with it. Only camera topics under this gateway, never
 * a command topic, and never those of a camera still configured.
 */
export function staleStateTopics(config: string, topics: MqttTopics, configured: Set<string>): string[] {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(config) as Record<string, unknown>;
  } catch {
    return [];
  }
  const keys = ['state_topic', 'stat_t', 'json_attributes_topic', 'json_attr_t', 'image_topic', 'img_t', 'topic', 't'];
  const found = new Set<string>();
  for (const key of keys) {
    const topic = body[key];
    if (typeof topic !== 'string') continue;
    const camera = topics.cameraOf(topic);
    if (camera === undefined || configured.has(camera) || topics.captureCamera(topic) !== undefined) continue;
    found.add(topic);
  }
  return [...found];
}
