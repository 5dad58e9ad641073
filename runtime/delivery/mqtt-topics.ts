// The MQTT topics of one gateway, all under <prefix>/<gateway id>: results by
// tenant and by camera, the cameras' states, sensors, events and capture
// requests. Shared by the publisher and Home Assistant discovery.
import type { DetectionKind } from './camera-signals.js';

export interface MqttTopics {
  /** <prefix>/<gateway id>: the root of every topic of this gateway */
  base: string;
  availability: string;
  status: string;
  /** the subscription for capture requests */
  capture: string;
  result(tenant: string): string;
  cameraResult(camera: string): string;
  /** retained {risk, labels, time, result_id} of the camera's last result */
  cameraState(camera: string): string;
  /** retained JPEG of the camera's last result */
  cameraSnapshot(camera: string): string;
  /** retained ON / OFF of one detection sensor (ON with a result that has it, OFF after the off delay) */
  cameraDetection(camera: string, kind: DetectionKind): string;
  /** every final result of the camera as a Home Assistant event (not retained) */
  cameraEvent(camera: string): string;
  /** retained {problem, error_code, error_msg, time, result_id}: set by a failed capture, cleared by a good result */
  cameraProblem(camera: string): string;
  /** a message here asks for a recording */
  cameraCapture(camera: string): string;
  /** the camera id of any topic under cameras/, or undefined */
  cameraOf(topic: string): string | undefined;
  /** the camera id of a capture request topic, or undefined for any other topic */
  captureCamera(topic: string): string | undefined;
}

export function mqttTopics(prefix: string, gatewayId: string): MqttTopics {
  const base = `${prefix}/${gatewayId}`;
  const cameras = `${base}/cameras/`;
  return {
    base,
    availability: `${base}/availability`,
    status: `${base}/status`,
    capture: `${cameras}+/capture`,
    result: (tenant) => `${base}/${tenant}/result`,
    cameraResult: (camera) => `${cameras}${camera}/result`,
    cameraState: (camera) => `${cameras}${camera}/state`,
    cameraSnapshot: (camera) => `${cameras}${camera}/snapshot`,
    cameraDetection: (camera, kind) => `${cameras}${camera}/${kind}`,
    cameraEvent: (camera) => `${cameras}${camera}/event`,
    cameraProblem: (camera) => `${cameras}${camera}/problem`,
    cameraCapture: (camera) => `${cameras}${camera}/capture`,
    cameraOf: (topic) => (topic.startsWith(cameras) ? topic.slice(cameras.length).split('/')[0] || undefined : undefined),
    captureCamera: (topic) => {
      if (!topic.startsWith(cameras) || !topic.endsWith('/capture')) return undefined;
      return topic.slice(cameras.length, -'/capture'.length);
    },
  };
}
