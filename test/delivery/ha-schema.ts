// What Home Assistant's MQTT integration documents for each discovery
// component Vigil announces (binary_sensor, sensor, event, button, image):
// the keys it accepts, their abbreviations and the type of their value. A
// payload with a key Home Assistant does not know, a value of the wrong type, or
// a required key missing is an error. From Home Assistant's MQTT pages
// (integrations/<component>.mqtt) and its list of discovery abbreviations.

type Check = (value: unknown) => boolean;

const string: Check = (v) => typeof v === 'string';
const nonEmpty: Check = (v) => typeof v === 'string' && v.length > 0;
const boolean: Check = (v) => typeof v === 'boolean';
const integer: Check = (v) => Number.isInteger(v);
const positiveInt: Check = (v) => Number.isInteger(v) && (v as number) > 0;
const stringList: Check = (v) => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string');
const oneOf = (...values: unknown[]): Check => (v) => values.includes(v);
/** A topic to subscribe to or publish on: no wildcard in a state or command topic. */
const topic: Check = (v) => nonEmpty(v) && !/[#+]/.test(v as string);

const DEVICE: Record<string, Check> = {
  identifiers: (v) => string(v) || stringList(v),
  connections: (v) => Array.isArray(v),
  configuration_url: (v) => typeof v === 'string' && /^(https?|homeassistant):\/\//.test(v),
  hw_version: string, manufacturer: string, model: string, model_id: string, name: string,
  serial_number: string, suggested_area: string, sw_version: string, via_device: string,
};
const DEVICE_ABBREVIATIONS: Record<string, string> = {
  cu: 'configuration_url', cns: 'connections', ids: 'identifiers', mf: 'manufacturer', mdl: 'model', mdl_id: 'model_id',
  hw: 'hw_version', sw: 'sw_version', sa: 'suggested_area', sn: 'serial_number',
};
const ORIGIN: Record<string, Check> = { name: nonEmpty, sw_version: string, support_url: string };
const ORIGIN_ABBREVIATIONS: Record<string, string> = { sw: 'sw_version', url: 'support_url' };

function nested(keys: Record<string, Check>, abbreviations: Record<string, string>, required: string[]): Check {
  return (v) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
    const body = expand(v as Record<string, unknown>, abbreviations);
    return required.every((k) => k in body) && Object.entries(body).every(([k, x]) => keys[k]?.(x) === true);
  };
}

/** Keys every MQTT entity takes. */
const ENTITY: Record<string, Check> = {
  availability: (v) => Array.isArray(v),
  availability_mode: oneOf('all', 'any', 'latest'),
  availability_template: string,
  availability_topic: topic,
  payload_available: string,
  payload_not_available: string,
  device: nested(DEVICE, DEVICE_ABBREVIATIONS, []),
  enabled_by_default: boolean,
  encoding: string,
  entity_category: oneOf('config', 'diagnostic'),
  entity_picture: string,
  icon: string,
  json_attributes_template: string,
  json_attributes_topic: topic,
  name: (v) => v === null || string(v),
  object_id: string,
  default_entity_id: string,
  origin: nested(ORIGIN, ORIGIN_ABBREVIATIONS, ['name']),
  platform: oneOf('mqtt'),
  qos: oneOf(0, 1, 2),
  unique_id: nonEmpty,
};

const BINARY_SENSOR_CLASSES = [
  'battery', 'battery_charging', 'carbon_monoxide', 'cold', 'connectivity', 'door', 'garage_door', 'gas', 'heat', 'light',
  'lock', 'moisture', 'motion', 'moving', 'occupancy', 'opening', 'plug', 'power', 'presence', 'problem', 'running', 'safety',
  'smoke', 'sound', 'tamper', 'update', 'vibration', 'window',
];
const SENSOR_CLASSES = [
  'apparent_power', 'aqi', 'area', 'atmospheric_pressure', 'battery', 'blood_glucose_concentration', 'carbon_dioxide',
  'carbon_monoxide', 'conductivity', 'current', 'data_rate', 'data_size', 'date', 'distance', 'duration', 'energy',
  'energy_distance', 'energy_storage', 'enum', 'frequency', 'gas', 'humidity', 'illuminance', 'irradiance', 'moisture',
  'monetary', 'nitrogen_dioxide', 'nitrogen_monoxide', 'nitrous_oxide', 'ozone', 'ph', 'pm1', 'pm10', 'pm25', 'power',
  'power_factor', 'precipitation', 'precipitation_intensity', 'pressure', 'reactive_power', 'signal_strength',
  'sound_pressure', 'speed', 'sulphur_dioxide', 'temperature', 'timestamp', 'volatile_organic_compounds',
  'volatile_organic_compounds_parts', 'voltage', 'volume', 'volume_flow_rate', 'volume_storage', 'water', 'weight', 'wind_speed',
];

interface Component {
  keys: Record<string, Check>;
  /** each inner list: one of these keys is required */
  required: string[][];
  /** cross-key rules Home Assistant enforces */
  rules?: Array<[string, (body: Record<string, unknown>) => boolean]>;
}

export const COMPONENTS: Record<string, Component> = {
  binary_sensor: {
    keys: {
      ...ENTITY, state_topic: topic, device_class: oneOf(...BINARY_SENSOR_CLASSES), expire_after: positiveInt, force_update: boolean,
      off_delay: positiveInt, payload_off: string, payload_on: string, value_template: string,
    },
    required: [['state_topic']],
  },
  sensor: {
    keys: {
      ...ENTITY, state_topic: topic, device_class: oneOf(...SENSOR_CLASSES), expire_after: positiveInt, force_update: boolean,
      last_reset_value_template: string, options: stringList, suggested_display_precision: integer,
      state_class: oneOf('measurement', 'measurement_angle', 'total', 'total_increasing'), unit_of_measurement: string, value_template: string,
    },
    required: [['state_topic']],
    rules: [
      ['options only with device_class enum', (b) => (b.options === undefined) === (b.device_class !== 'enum')],
      ['no state_class or unit on an enum sensor', (b) => b.device_class !== 'enum' || (b.state_class === undefined && b.unit_of_measurement === undefined)],
    ],
  },
  event: {
    keys: { ...ENTITY, state_topic: topic, event_types: stringList, device_class: oneOf('doorbell', 'button', 'motion'), value_template: string },
    required: [['state_topic'], ['event_types']],
  },
  button: {
    keys: { ...ENTITY, command_topic: topic, command_template: string, device_class: oneOf('identify', 'restart', 'update'), payload_press: string, retain: boolean },
    required: [['command_topic']],
  },
  image: {
    keys: { ...ENTITY, image_topic: topic, content_type: (v) => typeof v === 'string' && /^image\//.test(v), image_encoding: oneOf('b64'), url_template: string, url_topic: topic },
    required: [['image_topic', 'url_topic']],
    rules: [['image_topic and url_topic exclude each other', (b) => !(b.image_topic && b.url_topic)]],
  },
};

/** Home Assistant's discovery abbreviations of the keys above. */
export const ABBREVIATIONS: Record<string, string> = {
  avty: 'availability', avty_mode: 'availability_mode', avty_t: 'availability_topic', avty_tpl: 'availability_template',
  cmd_t: 'command_topic', cmd_tpl: 'command_template', cont_type: 'content_type', def_ent_id: 'default_entity_id', dev: 'device',
  dev_cla: 'device_class', e: 'encoding', en: 'enabled_by_default', ent_cat: 'entity_category', ent_pic: 'entity_picture',
  evt_typ: 'event_types', exp_aft: 'expire_after', frc_upd: 'force_update', ic: 'icon', img_e: 'image_encoding', img_t: 'image_topic',
  json_attr_t: 'json_attributes_topic', json_attr_tpl: 'json_attributes_template', lrst_val_tpl: 'last_reset_value_template',
  o: 'origin', obj_id: 'object_id', off_dly: 'off_delay', ops: 'options', p: 'platform', pl_avail: 'payload_available',
  pl_not_avail: 'payload_not_available', pl_off: 'payload_off', pl_on: 'payload_on', pl_prs: 'payload_press', ret: 'retain',
  stat_cla: 'state_class', stat_t: 'state_topic', sug_dsp_prc: 'suggested_display_precision', uniq_id: 'unique_id',
  unit_of_meas: 'unit_of_measurement', url_t: 'url_topic', url_tpl: 'url_template', val_tpl: 'value_template',
};

function expand(body: Record<string, unknown>, abbreviations: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) out[abbreviations[k] ?? k] = v;
  return out;
}

/** Every problem Home Assistant would have with this discovery payload of this component; empty when it is valid. */
export function discoveryProblems(component: string, payload: Record<string, unknown>): string[] {
  const spec = COMPONENTS[component];
  if (!spec) return [`Vigil announces no component "${component}"`];
  const body = expand(payload, ABBREVIATIONS);
  const problems: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    const check = spec.keys[key];
    if (!check) problems.push(`unknown key "${key}"`);
    else if (!check(value)) problems.push(`"${key}" has a wrong value ${JSON.stringify(value)}`);
  }
  for (const oneOfKeys of spec.required) if (!oneOfKeys.some((k) => k in body)) problems.push(`missing ${oneOfKeys.join(' or ')}`);
  for (const [what, holds] of spec.rules ?? []) if (!holds(body)) problems.push(what);
  return problems;
}
