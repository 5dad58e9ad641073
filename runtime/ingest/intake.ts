// Acceptance: validates what came with a clip, probes it, and records the
// classification and its job. The clip is moved into place before the row is
// written, so a crash in between leaves at worst a folder without a row, which
// the start-up reconciliation removes; an accepted job always has its clip.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EventBus } from '../core/bus.js';
import { PipelineError, Refusal } from '../core/errors.js';
import { NAME } from '../core/ids.js';
import type { Logger } from '../core/log.js';
import { probeClip } from '../pipeline/probe.js';
import type { ClassificationStore } from '../store/classifications.js';
import type { MediaFiles } from '../store/media-files.js';
import { isoNow } from '../store/time.js';

/** What a classification request may carry besides the clip (form fields or query parameters). */
export interface Submission {
  file: string;
  originalName: string;
  contentType: string;
  size: number;
  fields: Record<string, string>;
}

export interface Acceptance {
  id: string;
  accepted_at: string;
}

/** metadata is stored and returned as submitted: bounded so a hostile sender cannot exhaust the stack or the store */
export const METADATA_MAX_BYTES = 64 * 1024;
export const METADATA_MAX_DEPTH = 32;
/** a file name as file systems allow it; also the bound of camera_id and parent_id */
const NAME_MAX = 255;
const EXTENSION = /^\.[A-Za-z0-9]{1,8}$/;
const TYPE_EXTENSIONS: Record<string, string> = {
  'video/mp4': '.mp4', 'video/quicktime': '.mov', 'video/x-msvideo': '.avi', 'video/avi': '.avi',
  'video/x-matroska': '.mkv', 'video/webm': '.webm', 'video/mp2t': '.ts', 'video/mpeg': '.mpg',
};

export class Intake {
  constructor(
    private readonly store: ClassificationStore,
    private readonly files: MediaFiles,
    private readonly bus: EventBus,
    private readonly defaultFlows: Map<string, string>,
    private readonly log: Logger,
  ) {}

  async accept(tenant: string, s: Submission): Promise<Acceptance> {
    const fields = parseFields(s.fields, this.defaultFlows.get(tenant) ?? 'default');
    if (s.originalName.length > NAME_MAX) throw new Refusal('invalid', 'invalid_videoname', `the video's name is longer than ${NAME_MAX} characters`);
    let clip;
    try {
      clip = await probeClip(s.file);
    } catch (err) {
      if (err instanceof PipelineError) throw new Refusal('unprocessable', 'invalid_video', err.message);
      throw err;
    }
    const id = crypto.randomUUID();
    const ext = extensionOf(s.originalName, s.contentType);
    const filename = `${id}${ext}`;
    const { path: _path, ...specs } = clip;
    let acceptedAt: string;
    try {
      await this.files.adopt(id, s.file, filename);
      acceptedAt = await this.store.accept({
        id,
        tenant,
        flow: fields.flow,
        parentId: fields.parentId,
        cameraId: fields.cameraId,
        analyseId: fields.analyseId,
        metadata: fields.metadata,
        videoname: s.originalName || filename,
        filename,
        filesize: s.size,
        originalSpecs: specs,
      });
    } catch (err) {
      // The clip may already sit in media/<id>/: with no row it must not stay there.
      await this.files.remove(id).catch((rmErr: unknown) => this.log.error('could not remove a clip that was not accepted', { id, err: rmErr }));
      throw err;
    }
    this.log.info('clip accepted', { id, tenant, flow: fields.flow, bytes: s.size, codec: clip.codec, duration: clip.duration });
    this.bus.emit('job.accepted', { id, tenant });
    return { id, accepted_at: acceptedAt ?? isoNow() };
  }

  /** A request that was rejected after bytes were written leaves nothing behind. */
  static async discard(file: string): Promise<void> {
    await fs.promises.rm(path.dirname(file), { recursive: true, force: true });
  }
}

interface ParsedFields {
  metadata: Record<string, unknown>;
  analyseId: number | null;
  parentId: string;
  cameraId: string;
  flow: string;
}

/** Checks the optional fields; each bad one is a 400 naming the field. */
export function parseFields(fields: Record<string, string>, defaultFlow: string): ParsedFields {
  let metadata: Record<string, unknown> = {};
  if (fields.metadata !== undefined && fields.metadata.trim() !== '') {
    if (Buffer.byteLength(fields.metadata) > METADATA_MAX_BYTES) {
      throw new Refusal('invalid', 'invalid_metadata', `metadata is larger than the limit of ${METADATA_MAX_BYTES} bytes`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(fields.metadata);
    } catch (err) {
      throw new Refusal('invalid', 'invalid_metadata', `metadata is not valid JSON: ${(err as Error).message}`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new Refusal('invalid', 'invalid_metadata', 'metadata must be a JSON object, e.g. {"camera_id": "cam-1", "site_id": 12}');
    }
    const depth = nestingDepth(parsed);
    if (depth > METADATA_MAX_DEPTH) {
      throw new Refusal('invalid', 'invalid_metadata', `metadata nests objects and arrays ${depth} deep, over the limit of ${METADATA_MAX_DEPTH}`);
    }
    metadata = parsed as Record<string, unknown>;
  }
  let analyseId: number | null = null;
  if (fields.analyse_id !== undefined && fields.analyse_id !== '') {
    if (!/^-?\d+$/.test(fields.analyse_id) || !Number.isSafeInteger(Number(fields.analyse_id))) {
      throw new Refusal('invalid', 'invalid_analyse_id', `analyse_id must be an integer, got "${fields.analyse_id.slice(0, 40)}"`);
    }
    analyseId = Number(fields.analyse_id);
  }
  const parentId = fields.parent_id ?? '';
  if (parentId.length > 256) throw new Refusal('invalid', 'invalid_parent_id', 'parent_id is longer than 256 characters');
  if ((fields.camera_id ?? '').length > NAME_MAX) throw new Refusal('invalid', 'invalid_camera_id', `camera_id is longer than ${NAME_MAX} characters`);
  const flow = fields.flow || defaultFlow;
  if (!NAME.test(flow)) throw new Refusal('invalid', 'invalid_flow', 'flow must be 1 to 64 letters, digits, ".", "_" or "-"');
  return { metadata, analyseId, parentId, cameraId: cameraIdOf(metadata, fields), flow };
}

/** How deep objects and arrays nest, counted without recursion (the input is hostile). */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > METADATA_MAX_DEPTH) return deepest;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** camera_id: metadata.camera_id, else a camera_id field or query parameter, else empty. */
export function cameraIdOf(metadata: Record<string, unknown>, fields: Record<string, string>): string {
  const fromMetadata = metadata.camera_id;
  if (typeof fromMetadata === 'string' || typeof fromMetadata === 'number') return String(fromMetadata);
  return fields.camera_id ?? '';
}

function extensionOf(originalName: string, contentType: string): string {
  const ext = path.extname(originalName).toLowerCase();
  if (EXTENSION.test(ext)) return ext;
  return TYPE_EXTENSIONS[contentType.toLowerCase()] ?? '.video';
}
