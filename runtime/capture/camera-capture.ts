// The capture feature: a trigger (HTTP, or 'capture.requested' from MQTT)
// records a clip from a camera and hands it to the intake like an
// upload, with camera_id set. A camera that cannot be recorded from gives a
// stored final result with error_code 3001 that says why, never a hung job.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { BusEvents, EventBus } from '../core/bus.js';
import { ErrorCode, PipelineError, Refusal } from '../core/errors.js';
import type { Feature } from '../core/feature.js';
import type { Logger } from '../core/log.js';
import { parseFields, type Acceptance, type Intake } from '../ingest/intake.js';
import type { ClassificationStore } from '../store/classifications.js';
import type { MediaFiles } from '../store/media-files.js';
import { redactedUrl } from '../core/redact.js';
import { recordClip } from './recorder.js';
import type { Camera } from './resolve.js';

export type CaptureSource = BusEvents['capture.requested']['source'];

/** What a trigger may add to the result (HTTP query parameters). */
export interface CaptureFields {
  parent_id?: string;
  analyse_id?: string;
  flow?: string;
}

export interface CameraCaptureDeps {
  cameras: Camera[];
  intake: Intake;
  store: ClassificationStore;
  files: MediaFiles;
  bus: EventBus;
  /** tenant -> default flow */
  defaultFlows: Map<string, string>;
  log: Logger;
  /** the result of a watched camera's event under way, which a trigger joins instead of recording */
  joinEvent?: (cameraId: string) => Promise<Acceptance> | undefined;
}

const NO_SPECS = { width: 0, height: 0, duration: 0, fps: 0, nframes: 0 };

/** e.g. cam-1-20261123T031000Z.mp4 */
export function clipName(camera: string, at = new Date()): string {
  return `${camera}-${at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}.mp4`;
}

export class CameraCapture implements Feature {
  readonly name = 'capture';
  private readonly byId = new Map<string, Camera>();
  /** one recording per camera at a time: a trigger during a recording gets that recording's result */
  private readonly inFlight = new Map<string, Promise<Acceptance>>();
  private aborter = new AbortController();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: CameraCaptureDeps) {}

  async start(): Promise<void> {
    for (const c of this.deps.cameras) this.byId.set(c.id, c);
    this.aborter = new AbortController();
    this.unsubscribe = this.deps.bus.on('capture.requested', async ({ camera, source }) => {
      const known = this.byId.get(camera);
      if (!known) {
        this.deps.log.warn('capture requested for an unknown camera', { camera, source });
        return;
      }
      if (source === 'mqtt' && !known.mqttCapture) {
        this.deps.log.warn('ignored an MQTT capture request: MQTT triggers are off for this camera (cameras[].mqtt_capture)', { camera });
        return;
      }
      await this.capture(camera, source).catch((err) => {
        if (!this.aborter.signal.aborted) this.deps.log.error('capture failed', { camera, source, err });
      });
    });
    if (this.byId.size) this.deps.log.info('cameras ready', { cameras: [...this.byId.values()].map((c) => ({ id: c.id, url: redactedUrl(c.url), tenant: c.tenant })) });
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.aborter.abort(new Error('the daemon is stopping'));
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /** The camera of this id when it is the tenant's: another tenant's camera is as good as unknown. */
  camera(id: string, tenant: string): Camera | undefined {
    const camera = this.byId.get(id);
    return camera?.tenant === tenant ? camera : undefined;
  }

  /**
   * Records from the camera and accepts the clip; on a camera failure stores
   * the 3001 result instead. Either way resolves with the acceptance record.
   * Bad fields reject with a Refusal before anything is recorded.
   */
  capture(cameraId: string, source: CaptureSource, fields: CaptureFields = {}): Promise<Acceptance> {
    const camera = this.byId.get(cameraId);
    if (!camera) return Promise.reject(new Refusal('not_found', 'not_found', 'no camera with this id'));
    const running = this.inFlight.get(cameraId);
    if (running) return running;
    const event = this.deps.joinEvent?.(cameraId);
    if (event) {
      this.deps.log.info('trigger joins the motion event under way', { camera: cameraId, source });
      // an event whose clip could not be made: the trigger records as it would have
      return event.catch(() => this.capture(cameraId, source, fields));
    }
    const submitted: Record<string, string> = { ...fields, camera_id: camera.id };
    if (!submitted.flow && camera.flow) submitted.flow = camera.flow;
    try {
      parseFields(submitted, this.deps.defaultFlows.get(camera.tenant) ?? 'default');
    } catch (err) {
      return Promise.reject(err);
    }
    const job = this.record(camera, source, submitted).finally(() => this.inFlight.delete(cameraId));
    this.inFlight.set(cameraId, job);
    return job;
  }

  private async record(camera: Camera, source: CaptureSource, fields: Record<string, string>): Promise<Acceptance> {
    const log = this.deps.log;
    const name = clipName(camera.id);
    const workDir = path.join(this.deps.files.incomingDir, `capture-${crypto.randomUUID()}`);
    await fs.promises.mkdir(workDir, { recursive: true });
    const file = path.join(workDir, name);
    const started = Date.now();
    log.info('recording', { camera: camera.id, source, seconds: camera.recordS });
    try {
      try {
        await recordClip(camera, file, this.aborter.signal);
        const { size } = await fs.promises.stat(file);
        const accepted = await this.deps.intake.accept(camera.tenant, { file, originalName: name, contentType: 'video/mp4', size, fields });
        log.info('recorded', { camera: camera.id, source, id: accepted.id, bytes: size, ms: Date.now() - started });
        this.deps.bus.emit('capture.finished', { camera: camera.id, outcome: 'recorded' });
        return accepted;
      } catch (err) {
        if (this.aborter.signal.aborted) throw err;
        if (err instanceof PipelineError && err.code === ErrorCode.CAPTURE_FAILED) return await this.fail(camera, name, fields, err.message);
        if (err instanceof Refusal && err.code === 'invalid_video') {
          return await this.fail(camera, name, fields, `camera ${camera.id} (${redactedUrl(camera.url)}) sent no usable video: ${err.message}`);
        }
        this.deps.bus.emit('capture.finished', { camera: camera.id, outcome: 'refused' });
        throw err;
      }
    } finally {
      await fs.promises.rm(workDir, { recursive: true, force: true });
    }
  }

  /** Stores the final 3001 result and announces it like any final result (so it is delivered). */
  private async fail(camera: Camera, name: string, fields: Record<string, string>, message: string): Promise<Acceptance> {
    const parsed = parseFields(fields, this.deps.defaultFlows.get(camera.tenant) ?? 'default');
    const id = crypto.randomUUID();
    const acceptedAt = await this.deps.store.recordFailure(
      {
        id,
        tenant: camera.tenant,
        flow: parsed.flow,
        parentId: parsed.parentId,
        cameraId: camera.id,
        analyseId: parsed.analyseId,
        metadata: parsed.metadata,
        videoname: name,
        filename: '',
        filesize: 0,
        originalSpecs: NO_SPECS,
      },
      ErrorCode.CAPTURE_FAILED,
      message,
    );
    this.deps.log.warn('capture failed', { camera: camera.id, id, error: message });
    this.deps.bus.emit('capture.finished', { camera: camera.id, outcome: 'camera_failed' });
    this.deps.bus.emit('result.final', { id, tenant: camera.tenant, flow: parsed.flow, errorCode: ErrorCode.CAPTURE_FAILED });
    return { id, accepted_at: acceptedAt };
  }
}
