// Receiving a clip over HTTP: multipart/form-data with a `video` part, or the
// raw bytes as the body (many NVRs can only POST a file). Either way the bytes
// stream to a file under the incoming folder, never whole into memory, and
// everything written is removed again if the upload is rejected.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import { isDiskFull } from '../core/disk-full.js';
import { Refusal } from '../core/errors.js';
import { METADATA_MAX_BYTES } from './intake.js';

/** At most this many file parts (one is used: "video"), text fields, and bytes of all text fields together. */
const MAX_FILE_PARTS = 4;
const MAX_FIELDS = 64;
const MAX_FIELDS_BYTES = METADATA_MAX_BYTES + 64 * 1024;

export interface ReceivedUpload {
  /** the temporary file holding the clip */
  file: string;
  /** the folder to remove once the upload is adopted or rejected */
  workDir: string;
  /** the name the sender gave the file, if any */
  originalName: string;
  contentType: string;
  size: number;
  /** form fields, then query parameters for what the form did not give */
  fields: Record<string, string>;
}

const RAW_TYPES = ['video/*', 'application/octet-stream'];

export async function receiveUpload(ctx: Context, incomingDir: string, maxBytes: number): Promise<ReceivedUpload> {
  const declared = Number(ctx.get('content-length'));
  if (declared > maxBytes) throw tooLarge(maxBytes);
  if (!ctx.request.type) throw new Refusal('invalid', 'empty_body', 'no video: send multipart/form-data with a "video" part, or the clip itself as the body with Content-Type video/* or application/octet-stream');
  const workDir = await fs.promises.mkdtemp(path.join(incomingDir, 'upload-'));
  try {
    const upload = ctx.is('multipart') ? await receiveMultipart(ctx, workDir, maxBytes) : await receiveRaw(ctx, workDir, maxBytes);
    if (upload.size === 0) throw new Refusal('invalid', 'empty_body', 'the video is empty (0 bytes)');
    return upload;
  } catch (err) {
    await fs.promises.rm(workDir, { recursive: true, force: true });
    throw err;
  }
}

/** The disk filled while the upload was written: 507, as when admission refuses it up front. */
function diskFull(err: unknown): Refusal | undefined {
  if (!isDiskFull(err)) return undefined;
  return new Refusal('no_storage', 'insufficient_storage', 'the data volume filled up while the upload was written: the clip was not stored');
}

function tooLarge(maxBytes: number): Refusal {
  return new Refusal('too_large', 'too_large', `the upload is larger than the limit of ${maxBytes} bytes (server.max_upload_bytes)`);
}

/** Formidable's error codes (formidable/src/FormidableError.js) that name a limit of ours. */
const FORMIDABLE = { maxFieldsSizeExceeded: 1006, maxFieldsExceeded: 1007, biggerThanTotalMaxFileSize: 1009, maxFilesExceeded: 1015, biggerThanMaxFileSize: 1016 };

/** Each refusal of a multipart body names its real cause. */
function multipartRefusal(err: unknown, maxBytes: number): Refusal {
  if (err instanceof Refusal) return err;
  const e = err as Error & { code?: unknown };
  switch (e.code) {
    case FORMIDABLE.biggerThanMaxFileSize:
    case FORMIDABLE.biggerThanTotalMaxFileSize:
      return tooLarge(maxBytes);
    case FORMIDABLE.maxFilesExceeded:
      return new Refusal('invalid', 'bad_multipart', `the form has more than ${MAX_FILE_PARTS} file parts; send one "video" part`);
    case FORMIDABLE.maxFieldsExceeded:
      return new Refusal('invalid', 'bad_multipart', `the form has more than ${MAX_FIELDS} text fields`);
    case FORMIDABLE.maxFieldsSizeExceeded:
      return new Refusal('too_large', 'fields_too_large', `the form's text fields are larger than ${MAX_FIELDS_BYTES} bytes together (metadata may be at most ${METADATA_MAX_BYTES} bytes)`);
  }
  return diskFull(err) ?? new Refusal('invalid', 'bad_multipart', `the multipart body could not be read: ${e.message}`);
}

function queryFields(ctx: Context): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.query)) if (typeof v === 'string') out[k] = v;
  return out;
}

async function receiveMultipart(ctx: Context, workDir: string, maxBytes: number): Promise<ReceivedUpload> {
  const parse = koaBody({
    multipart: true,
    json: false,
    urlencoded: false,
    text: false,
    formidable: {
      uploadDir: workDir, maxFileSize: maxBytes, maxTotalFileSize: maxBytes, allowEmptyFiles: true, minFileSize: 0,
      maxFiles: MAX_FILE_PARTS, maxFields: MAX_FIELDS, maxFieldsSize: MAX_FIELDS_BYTES,
    },
  });
  try {
    await parse(ctx, async () => {});
  } catch (err) {
    throw multipartRefusal(err, maxBytes);
  }
  const files = ctx.request.files ?? {};
  const part = files.video;
  const video = Array.isArray(part) ? part[0] : part;
  if (!video) {
    const names = Object.keys(files);
    throw new Refusal('invalid', 'missing_video', `no "video" file part in the form${names.length ? ` (got: ${names.join(', ')})` : ''}`);
  }
  const fields: Record<string, string> = queryFields(ctx);
  for (const [k, v] of Object.entries((ctx.request.body ?? {}) as Record<string, unknown>)) {
    const value = Array.isArray(v) ? v[0] : v;
    if (typeof value === 'string') fields[k] = value;
  }
  return {
    file: video.filepath,
    workDir,
    originalName: video.originalFilename ?? '',
    contentType: video.mimetype ?? '',
    size: video.size,
    fields,
  };
}

async function receiveRaw(ctx: Context, workDir: string, maxBytes: number): Promise<ReceivedUpload> {
  if (!ctx.is(RAW_TYPES)) {
    throw new Refusal('unsupported_type', 'unsupported_media_type', `Content-Type ${ctx.request.type} is not accepted: use multipart/form-data, video/* or application/octet-stream`);
  }
  const file = path.join(workDir, crypto.randomUUID());
  let size = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      done(size > maxBytes ? tooLarge(maxBytes) : null, chunk);
    },
  });
  try {
    await pipeline(ctx.req, limit, fs.createWriteStream(file));
  } catch (err) {
    if (err instanceof Refusal) throw err;
    throw diskFull(err) ?? new Refusal('invalid', 'upload_interrupted', `the upload did not complete: ${(err as Error).message}`);
  }
  return { file, workDir, originalName: ctx.query.videoname ? String(ctx.query.videoname) : '', contentType: ctx.request.type, size, fields: queryFields(ctx) };
}
