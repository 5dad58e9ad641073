// What a camera's final result says to Home Assistant: the event fired for it,
// which detection sensors it turns on, and whether it sets or clears the
// camera's problem. Kept apart from the MQTT client, so the rules
// read in one place.
import { ErrorCode } from '../core/errors.js';
import type { ClassificationRow } from '../store/classifications.js';

/** The detection binary sensors of a camera and what turns each on. */
export const DETECTIONS = {
  intrusion: (risk: string) => risk === 'intrusion',
  person: (_risk: string, labels: string[]) => labels.includes('person'),
  vehicle: (_risk: string, labels: string[]) => labels.includes('vehicule'),
  animal: (_risk: string, labels: string[]) => labels.includes('animal'),
} as const;

export type DetectionKind = keyof typeof DETECTIONS;
export const DETECTION_KINDS = Object.keys(DETECTIONS) as DetectionKind[];

/** event_type of a result event: its risk, or "error" for a result that has none (a failed capture, a broken clip). */
export const EVENT_TYPES = ['safe', 'danger', 'intrusion', 'error'] as const;

export interface CameraSignals {
  /** cameras/<id>/event (not retained): Home Assistant's event entity, the rest of it as attributes */
  event: { event_type: (typeof EVENT_TYPES)[number]; risk: string; labels: string[]; time: string; result_id: string; error_code: number };
  /** the detection sensors this result turns on */
  detected: DetectionKind[];
  /** retained on cameras/<id>/problem; undefined: this result neither sets nor clears it */
  problem: { problem: boolean; error_code: number; error_msg: string; time: string; result_id: string } | undefined;
}

export function cameraSignals(row: ClassificationRow): CameraSignals {
  const labels = JSON.parse(row.labels || '[]') as string[];
  const state = { risk: row.risk, labels, time: row.created_at, result_id: row.id, error_code: row.error_code };
  const ok = row.error_code === ErrorCode.OK;
  const eventType = ok && (EVENT_TYPES as readonly string[]).includes(row.risk) ? (row.risk as CameraSignals['event']['event_type']) : 'error';
  // a camera that could not be recorded from has a problem; any good result shows it works again
  const failed = row.error_code === ErrorCode.CAPTURE_FAILED;
  const problem = failed || ok
    ? { problem: failed, error_code: row.error_code, error_msg: failed ? row.error_msg : '', time: row.created_at, result_id: row.id }
    : undefined;
  return {
    event: { event_type: eventType, ...state },
    detected: ok ? DETECTION_KINDS.filter((kind) => DETECTIONS[kind](row.risk, labels)) : [],
    problem,
  };
}
