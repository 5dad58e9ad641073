// The config sections of local capture: cameras Vigil records from itself and
// watch folders where NVRs and cameras drop alarm clips (FTP or SMB uploads).
// Both lists are empty by default; resolve.ts checks them against the tenants
// section when the daemon is built.
import { z } from 'zod';
import { SERVICE_LABELS } from '../core/analysis.js';
import { CAMERA_ID, haId, NAME } from '../core/ids.js';
import { flowName } from '../delivery/config.js';

/**
 * Also a segment of MQTT topics, so no "/", "+" or "#"; and not "." or ".." (nor
 * only dots), which a topic or a path would read as "this" or "the parent".
 */
export const cameraId = z.string().regex(CAMERA_ID, '1 to 64 letters, digits, ".", "_" or "-", not only dots');
const tenantId = z.string().min(1);

const cameraUrl = z.string().refine((value) => {
  try {
    return ['rtsp:', 'rtsps:', 'http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}, 'an rtsp://, rtsps://, http:// or https:// URL');

/** A point in relative frame coordinates: [x, y], 0..1 of width and height, origin top-left. */
const point = z.tuple([z.number().min(0).max(1), z.number().min(0).max(1)]);
/** A polygon of at least three points, in relative coordinates (as Frigate keeps them). */
export const polygon = z.array(point).min(3, 'a polygon needs at least 3 points');
const serviceLabel = z.enum(SERVICE_LABELS);

export const zoneSchema = z.strictObject({
  /** shown in logs; letters, digits, ".", "_" or "-" */
  name: z.string().regex(NAME, '1 to 64 letters, digits, ".", "_" or "-"'),
  points: polygon,
});

/**
 * Watching: the camera's detect stream decoded all the time at a low rate for motion, its record
 * stream kept as short segments, and motion cut into event clips with the seconds before it.
 */
export const watchSchema = z
  .strictObject({
    enabled: z.boolean().default(false),
    /** a substream for motion (small and cheap to decode); empty: the main stream (url), scaled down */
    detect_url: z.union([cameraUrl, z.literal('')]).default(''),
    /** frames per second decoded for motion */
    fps: z.number().min(1).max(15).default(5),
    /** moving cells (of the motion pass's 12 x 9 grid, specks left out) that make a frame count as motion */
    min_cells: z.number().int().min(1).max(108).default(2),
    /** motion must hold this long to start an event */
    min_motion_s: z.number().min(0).max(30).default(0.6),
    /** an event ends after this long without motion */
    quiet_s: z.number().positive().max(300).default(5),
    /** an event longer than this is split: each part is a clip of its own */
    max_clip_s: z.number().min(5).max(600).default(60),
    /** after an event ends, no new one starts for this long (a swaying tree does not start events back to back) */
    cooldown_s: z.number().min(0).max(3600).default(10),
    /** seconds of video before the motion in each event clip */
    pre_s: z.number().min(0).max(30).default(3),
    /** seconds of video after the motion in each event clip */
    post_s: z.number().min(0).max(60).default(2),
    /** length of the record stream's segments (cut at its keyframes, so at least its keyframe interval) */
    segment_s: z.number().min(1).max(10).default(2),
    /** where the segments are kept; empty: a RAM-backed folder (systemd's RuntimeDirectory, else /dev/shm), else the data folder */
    buffer_dir: z.string().default(''),
    /** the longest wait between two reconnection attempts of a stream that dropped */
    reconnect_max_s: z.number().min(1).max(600).default(30),
  })
  .refine((w) => w.post_s <= w.quiet_s, { message: 'post_s must not be longer than quiet_s', path: ['post_s'] });

export const cameraSchema = z
  .strictObject({
    /** the camera's id: camera_id of its results (also of clips it posts), and the <id> of POST /api/cameras/<id>/capture */
    id: cameraId,
    /** shown in Home Assistant; empty: the id */
    name: z.string().max(100).default(''),
    /** RTSP stream or HTTP stream (MJPEG, MPEG-TS, ...); absent: a camera that only posts clips (uploads, watch folders) */
    url: z.union([cameraUrl, z.literal('')]).default(''),
    /** polygons (relative coordinates) where nothing counts: neither motion nor detections */
    masks: z.array(polygon).default([]),
    /** polygons (relative coordinates) where an intrusion counts; empty: the whole frame */
    zones: z.array(zoneSchema).default([]),
    /** labels that count, each from its minimum score (0..1); empty: every label at the pack's thresholds */
    labels: z.partialRecord(serviceLabel, z.number().min(0).max(1)).default({}),
    /** labels that make an intrusion when they move inside a zone; absent: the pack's (risk.intrusion_labels) */
    intrusion_labels: z.array(serviceLabel).optional(),
    username: z.string().default(''),
    password: z.string().default(''),
    /** a file holding the password (keeps it out of the config file) */
    password_file: z.string().default(''),
    /** the tenant its recordings belong to; absent: the first configured tenant ("default" with none) */
    tenant: tenantId.optional(),
    /** flow of its recordings; absent: the tenant's default_flow */
    flow: flowName.optional(),
    /** seconds recorded per trigger */
    record_s: z.number().positive().max(600).default(10),
    /** seconds a silent camera may take before the recording fails; the whole recording is killed after record_s + timeout_s */
    timeout_s: z.number().positive().max(300).default(10),
    /** RTSP only: "auto" tries UDP then TCP */
    rtsp_transport: z.enum(['auto', 'tcp', 'udp']).default('auto'),
    /** a message on <prefix>/<gateway>/cameras/<id>/capture records; false: only the HTTP trigger does (any broker client can publish) */
    mqtt_capture: z.boolean().default(true),
    /** motion on the live stream starts event clips (README "Watching") */
    watch: watchSchema.prefault({}),
  })
  .refine((c) => !(c.password && c.password_file), { message: 'give password or password_file, not both', path: ['password_file'] })
  .refine((c) => !(c.watch.enabled && !c.url), { message: 'a watched camera needs its url (the record stream)', path: ['watch', 'enabled'] });

export const camerasSchema = z.array(cameraSchema).superRefine((cameras, ctx) => {
  const seen = new Set<string>();
  /** Home Assistant id -> the camera id that has it: "a.b" and "a_b" would share their entities' unique_ids */
  const haIds = new Map<string, string>();
  cameras.forEach((c, i) => {
    if (seen.has(c.id)) ctx.addIssue({ code: 'custom', message: `camera id "${c.id}" is used twice`, path: [i, 'id'] });
    seen.add(c.id);
    const other = haIds.get(haId(c.id));
    if (other !== undefined && other !== c.id) {
      ctx.addIssue({ code: 'custom', message: `camera ids "${other}" and "${c.id}" give the same Home Assistant id "${haId(c.id)}": rename one`, path: [i, 'id'] });
    }
    if (other === undefined) haIds.set(haId(c.id), c.id);
  });
});

export const watchFolderSchema = z.strictObject({
  /** the folder NVRs or cameras upload into (not searched recursively) */
  path: z.string().min(1),
  /** the tenant its clips belong to; absent: the first configured tenant ("default" with none) */
  tenant: tenantId.optional(),
  /** flow of its clips; absent: the tenant's default_flow */
  flow: flowName.optional(),
  /** camera_id of its clips (a folder per camera); empty for a folder per NVR */
  camera_id: z.union([cameraId, z.literal('')]).default(''),
  /** a file is taken once its size and modification time have not changed for this many seconds */
  settle_s: z.number().positive().max(3600).default(5),
  /** where files that are not videos are moved, with a .reason.txt beside each; relative paths are inside `path` */
  rejected_dir: z.string().min(1).default('rejected'),
});

export type CameraConfig = z.infer<typeof cameraSchema>;
export type WatchConfig = z.infer<typeof watchSchema>;
export type WatchFolderConfig = z.infer<typeof watchFolderSchema>;
