// The per-camera classification rules from the cameras section, looked up by
// the camera_id of a clip (recorded by Vigil or posted by the camera or NVR).
import type { CameraRules } from '../core/analysis.js';
import type { Config } from '../config/schema.js';

export function cameraRulesOf(config: Pick<Config, 'cameras'>): (cameraId: string) => CameraRules | undefined {
  const byId = new Map<string, CameraRules>();
  for (const c of config.cameras) {
    const rules: CameraRules = { masks: c.masks, zones: c.zones, labels: c.labels, ...(c.intrusion_labels ? { intrusionLabels: c.intrusion_labels } : {}) };
    // a camera with none of them classifies exactly as the pack does
    if (rules.masks.length || rules.zones.length || Object.keys(rules.labels).length || rules.intrusionLabels) byId.set(c.id, rules);
  }
  return (cameraId) => byId.get(cameraId);
}
