// The per-camera classification rules from the cameras section, looked up by
// the tenant and camera_id of a clip (recorded by Vigil or posted by the camera
// or NVR). A camera_id of another tenant's camera finds nothing, exactly like an
// unknown one: no tenant's zones, masks or labels ever decide another's result.
import type { CameraRules } from '../core/analysis.js';
import type { Config } from '../config/schema.js';
import { cameraOwners } from './resolve.js';

export function cameraRulesOf(config: Pick<Config, 'cameras' | 'tenants'>): (tenant: string, cameraId: string) => CameraRules | undefined {
  const owners = cameraOwners(config);
  const byId = new Map<string, CameraRules>();
  for (const c of config.cameras) {
    const rules: CameraRules = { masks: c.masks, zones: c.zones, labels: c.labels, ...(c.intrusion_labels ? { intrusionLabels: c.intrusion_labels } : {}) };
    // a camera with none of them classifies exactly as the pack does
    if (rules.masks.length || rules.zones.length || Object.keys(rules.labels).length || rules.intrusionLabels) byId.set(c.id, rules);
  }
  return (tenant, cameraId) => (owners.get(cameraId) === tenant ? byId.get(cameraId) : undefined);
}
