// The classification result in the shape of spec 2.1: the one JSON body used by
// GET /api/result/<id>, POST /api/classify?sync=true, webhooks and MQTT.
import type { ClassificationRow, ProcessingState, VideoSpecs } from './classifications.js';

export interface ResultJson {
  id: string;
  /** video is "expired" once a rendered highlight is gone from disk (see README, Retention and disk) */
  status: { classify: ProcessingState; video: ProcessingState | 'expired' };
  parent_id: string;
  camera_id: string;
  analyse_id?: number;
  tenant: string;
  duration: number;
  duration_seconds: number;
  model: string;
  version: string;
  error_code: number;
  error_msg: string;
  risk: string;
  labels: string[];
  result: string;
  scores: Record<string, number>;
  video: {
    videoname: string;
    filename: string;
    filesize: number;
    specs: Record<string, number>;
  };
  metadata: Record<string, unknown>;
  created_at: string;
  /** null until processing starts (only ever in a 202 answer) */
  started_at: string | null;
}

export function isFinal(row: ClassificationRow): boolean {
  return row.final === 1;
}

export function toResultJson(row: ClassificationRow): ResultJson {
  const original = JSON.parse(row.original_specs) as VideoSpecs;
  // The processed specs describe the annotated highlight video; until it exists
  // (or when rendering failed) they repeat the original clip's.
  const processed = row.processed_specs ? (JSON.parse(row.processed_specs) as VideoSpecs) : original;
  const result: ResultJson = {
    id: row.id,
    status: { classify: row.status_classify, video: row.status_video === 'done' && row.highlight_deleted === 1 ? 'expired' : row.status_video },
    parent_id: row.parent_id,
    camera_id: row.camera_id,
    tenant: row.tenant,
    duration: row.duration_ms,
    duration_seconds: Math.round(original.duration),
    model: row.model,
    version: row.version,
    error_code: row.error_code,
    error_msg: row.error_msg,
    risk: row.risk,
    labels: JSON.parse(row.labels) as string[],
    result: row.result,
    scores: JSON.parse(row.scores) as Record<string, number>,
    video: {
      videoname: row.videoname,
      filename: row.filename,
      filesize: row.filesize,
      specs: {
        width: processed.width,
        height: processed.height,
        duration: processed.duration,
        fps: processed.fps,
        nframes: processed.nframes,
        'original.width': original.width,
        'original.height': original.height,
        'original.fps': original.fps,
        'original.nframes': original.nframes,
      },
    },
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    created_at: row.created_at,
    started_at: row.started_at,
  };
  if (row.analyse_id !== null) {
    // analyse_id sits after camera_id, as in the spec's table
    const { id, status, parent_id, camera_id, ...rest } = result;
    return { id, status, parent_id, camera_id, analyse_id: row.analyse_id, ...rest };
  }
  return result;
}
