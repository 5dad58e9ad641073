// Turns the cameras and watch_folders sections into what the features use:
// the tenant decided (and checked against the tenants section), passwords read
// from their files, paths made absolute. Problems are a ConfigError (exit 78).
import path from 'node:path';
import { ConfigError } from '../config/load.js';
import { readKeyFile } from '../config/secrets.js';
import type { Config } from '../config/schema.js';
import type { WatchConfig } from './config.js';

/** A camera with its tenant decided and its password read. */
export interface Camera {
  id: string;
  url: string;
  username: string;
  password: string;
  tenant: string;
  /** empty: the tenant's default flow */
  flow: string;
  recordS: number;
  timeoutS: number;
  rtspTransport: 'auto' | 'tcp' | 'udp';
  /** whether a message on its MQTT capture topic records (cameras[].mqtt_capture) */
  mqttCapture: boolean;
  /** the relative polygons where nothing counts (motion included) */
  masks: Array<Array<[number, number]>>;
  /** absent: the camera is only recorded on trigger */
  watch?: WatchSettings;
}

/** A watched camera's settings (config cameras[].watch), in seconds as configured. */
export interface WatchSettings {
  detectUrl: string;
  fps: number;
  minCells: number;
  minMotionS: number;
  quietS: number;
  maxClipS: number;
  cooldownS: number;
  preS: number;
  postS: number;
  segmentS: number;
  /** empty: decided by the wiring (a RAM-backed folder, else the data folder) */
  bufferDir: string;
  reconnectMaxS: number;
}

export interface WatchFolder {
  path: string;
  tenant: string;
  flow: string;
  cameraId: string;
  settleS: number;
  rejectedDir: string;
}

function tenantIds(config: Pick<Config, 'tenants'>): string[] {
  return config.tenants.length ? config.tenants.map((t) => t.id) : ['default'];
}

function tenantOf(config: Config, wanted: string | undefined, where: string, problems: string[]): string {
  const known = tenantIds(config);
  if (wanted === undefined) return known[0];
  if (!known.includes(wanted)) problems.push(`${where}.tenant: no tenant "${wanted}" is configured (tenants: ${known.join(', ')})`);
  return wanted;
}

/**
 * camera id -> its tenant, for every configured camera (recording or only
 * posting). A clip's camera_id names one of these cameras only when the clip is
 * of the same tenant: every lookup of a camera goes through this map with the tenant.
 */
export function cameraOwners(config: Pick<Config, 'cameras' | 'tenants'>): Map<string, string> {
  const first = tenantIds(config)[0]!;
  return new Map(config.cameras.map((c) => [c.id, c.tenant ?? first]));
}

/** The configured cameras that have a stream, ready to record; a ConfigError names every bad entry. */
export function resolveCameras(config: Config): Camera[] {
  const problems: string[] = [];
  const cameras = config.cameras.flatMap((c, i) => {
    if (!c.url) return []; // a camera that only posts clips: nothing to record
    const tenant = tenantOf(config, c.tenant, `cameras[${i}]`, problems);
    let password = c.password;
    if (c.password_file) {
      try {
        password = readKeyFile(c.password_file);
      } catch (err) {
        problems.push(`cameras[${i}].password_file: ${(err as Error).message}`);
      }
    }
    return [{
      id: c.id, url: c.url, username: c.username, password, tenant, flow: c.flow ?? '',
      recordS: c.record_s, timeoutS: c.timeout_s, rtspTransport: c.rtsp_transport, mqttCapture: c.mqtt_capture, masks: c.masks,
      ...(c.watch.enabled ? { watch: watchSettings(c.watch) } : {}),
    }];
  });
  if (problems.length) throw new ConfigError(problems, 'cameras');
  return cameras;
}

function watchSettings(w: WatchConfig): WatchSettings {
  return {
    detectUrl: w.detect_url, fps: w.fps, minCells: w.min_cells, minMotionS: w.min_motion_s, quietS: w.quiet_s,
    maxClipS: w.max_clip_s, cooldownS: w.cooldown_s, preS: w.pre_s, postS: w.post_s, segmentS: w.segment_s,
    bufferDir: w.buffer_dir ? path.resolve(w.buffer_dir) : '', reconnectMaxS: w.reconnect_max_s,
  };
}

/** The configured watch folders with absolute paths; a ConfigError names every bad entry. */
export function resolveWatchFolders(config: Config): WatchFolder[] {
  const problems: string[] = [];
  const folders = config.watch_folders.map((w, i) => {
    const folder = path.resolve(w.path);
    return {
      path: folder,
      tenant: tenantOf(config, w.tenant, `watch_folders[${i}]`, problems),
      flow: w.flow ?? '',
      cameraId: w.camera_id,
      settleS: w.settle_s,
      rejectedDir: path.resolve(folder, w.rejected_dir),
    };
  });
  const owners = cameraOwners(config);
  folders.forEach((f, i) => {
    const owner = f.cameraId ? owners.get(f.cameraId) : undefined;
    if (owner !== undefined && owner !== f.tenant) {
      problems.push(`watch_folders[${i}].camera_id: camera "${f.cameraId}" belongs to tenant "${owner}", not to the folder's tenant "${f.tenant}"`);
    }
    if (f.rejectedDir === f.path) problems.push(`watch_folders[${i}].rejected_dir: must not be the watched folder itself`);
  });
  const paths = folders.map((f) => f.path);
  paths.forEach((p, i) => {
    if (paths.indexOf(p) !== i) problems.push(`watch_folders[${i}].path: ${p} is watched twice`);
  });
  if (problems.length) throw new ConfigError(problems, 'watch_folders');
  return folders;
}
