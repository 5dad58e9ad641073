// The typed event bus the features talk through. A listener that throws or
// rejects is logged and forgotten: it can never crash the daemon or stop the
// other listeners from hearing the event.
import type { AnalysisStats } from './analysis.js';
import type { Logger } from './log.js';

export interface BusEvents {
  /** an upload or capture was accepted and its job queued */
  'job.accepted': { id: string; tenant: string };
  /** a job started processing */
  'job.started': { id: string; tenant: string };
  /** classification and post-processing are both final; the result may be delivered */
  'result.final': { id: string; tenant: string; flow: string; errorCode: number };
  /** a classification and its files were deleted (by the API or by retention) */
  'classification.deleted': { id: string; tenant: string; reason: 'api' | 'retention' };
  /** a model pack became active */
  'model.activated': { name: string; version: string; backend: string };
  /** a clip was classified (emitted by the job runner); feeds the inference metrics */
  'classification.stats': { id: string; backend: string; model: string; stats: AnalysisStats };
  /** outbox rows were written and may be sent */
  'outbox.ready': Record<string, never>;
  /** the store entered (uploads get 507) or left disk pressure; reason says which bound is not met */
  'storage.pressure': { underPressure: boolean; freeBytes: number; minFreeBytes: number; reason: string };
  /** a delivery ended: answered (2xx 'delivered', other status 'failed_status') or dropped by the outbox policy;
   *  latencyMs runs from the result becoming final (the outbox row) to the answer */
  'delivery.finished': { target: 'webhook' | 'mqtt'; outcome: 'delivered' | 'failed_status' | 'dropped'; statusCode?: number; latencyMs?: number };
  /** the MQTT client connected to (true) or lost (false) its broker */
  'mqtt.connection': { connected: boolean };
  /** the HTTP API refused a request (any 4xx or 5xx answer); code is the JSON error's code */
  'request.refused': { status: number; code: string; tenant?: string };
  /** a client stopped sending in the middle of its request headers or body; the connection was closed */
  'request.stalled': { phase: 'headers' | 'body' };
  /** a camera recording was asked for (over HTTP, MQTT or by a schedule) */
  'capture.requested': { camera: string; source: 'http' | 'mqtt' | 'schedule' };
  /** a camera recording ended: its clip accepted, the camera failed (a 3001 result), or the clip refused (storage full, ...) */
  'capture.finished': { camera: string; outcome: 'recorded' | 'camera_failed' | 'refused' };
  /** a watched camera's state changed (README "Watching"); reason says why it is down */
  'camera.watch': { camera: string; state: 'starting' | 'watching' | 'motion' | 'event' | 'down'; reason?: string };
  /** a watched camera's event clip was accepted (its result id) or could not be made; motionS: the event's motion length */
  'camera.event': { camera: string; outcome: 'accepted' | 'failed'; id?: string; motionS: number };
  /** CPU seconds a watched camera's ffmpeg used (decoding, segments) since its last report */
  'camera.cpu': { camera: string; seconds: number };
  /** a watched camera's stream ended and is reconnected */
  'camera.reconnect': { camera: string; role: string };
}

export type BusEvent = keyof BusEvents;
type Listener<E extends BusEvent> = (payload: BusEvents[E]) => void | Promise<void>;

export class EventBus {
  private readonly listeners = new Map<BusEvent, Set<Listener<BusEvent>>>();

  constructor(private readonly log: Logger) {}

  /** Subscribes; returns the function that unsubscribes. */
  on<E extends BusEvent>(event: E, listener: Listener<E>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as Listener<BusEvent>);
    return () => set!.delete(listener as Listener<BusEvent>);
  }

  emit<E extends BusEvent>(event: E, payload: BusEvents[E]): void {
    for (const listener of this.listeners.get(event) ?? []) {
      try {
        const out = listener(payload);
        if (out && typeof (out as Promise<void>).catch === 'function') {
          (out as Promise<void>).catch((err) => this.log.error('event listener failed', { event, err }));
        }
      } catch (err) {
        this.log.error('event listener failed', { event, err });
      }
    }
  }
}
