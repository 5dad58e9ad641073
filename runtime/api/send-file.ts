// Serves a file from disk with the headers browsers and NVR players seek with:
// Content-Length, Accept-Ranges, single byte ranges (206/416), ETag and
// conditional GET. The body is a stream, never the whole file in memory.
import fs from 'node:fs';
import type { Context } from 'koa';

export async function sendFile(ctx: Context, file: string, contentType: string): Promise<boolean> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(file);
  } catch {
    return false;
  }
  const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('ETag', etag);
  ctx.set('Last-Modified', stat.mtime.toUTCString());
  ctx.set('Cache-Control', 'private, max-age=0, must-revalidate');
  ctx.type = contentType;

  const ifNoneMatch = ctx.get('if-none-match');
  if (ifNoneMatch && ifNoneMatch.split(',').some((t) => t.trim() === etag || t.trim() === '*')) {
    ctx.status = 304;
    return true;
  }

  const range = ctx.get('range');
  const ifRange = ctx.get('if-range');
  if (range && (!ifRange || ifRange === etag)) {
    const bounds = parseRange(range, stat.size);
    if (bounds === 'unsatisfiable') {
      ctx.status = 416;
      ctx.set('Content-Range', `bytes */${stat.size}`);
      ctx.body = { error: { code: 'range_not_satisfiable', message: `the file has ${stat.size} bytes` } };
      return true;
    }
    if (bounds) {
      const [start, end] = bounds;
      ctx.status = 206;
      ctx.set('Content-Range', `bytes ${start}-${end}/${stat.size}`);
      ctx.length = end - start + 1;
      // HEAD: the same status and headers, no body (a null body would turn the answer into 204)
      if (ctx.method !== 'HEAD') ctx.body = fs.createReadStream(file, { start, end });
      return true;
    }
  }
  ctx.status = 200;
  ctx.length = stat.size;
  if (ctx.method !== 'HEAD') ctx.body = fs.createReadStream(file);
  return true;
}

/** One "bytes=a-b" range; null (serve the whole file) for forms we don't split, such as several ranges. */
export function parseRange(header: string, size: number): [number, number] | null | 'unsatisfiable' {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return [start, end];
}
