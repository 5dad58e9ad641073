// The dashboard's page and files: one HTML page, the app's script and style,
// and the UI library (Preact with htm, about 17 kB) served from node_modules.
// Nothing is loaded from anywhere else: gateways are often offline, and the
// Content-Security-Policy holds the page to its own origin.
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import { ApiError } from '../api/errors.js';
import { sendFile } from '../api/send-file.js';

const STATIC_DIR = fileURLToPath(new URL('./static/', import.meta.url));
const vendorFile = (specifier: string) => fileURLToPath(import.meta.resolve(specifier));

/** name under /assets/ -> [file, content type]; nothing else is served from there */
function assets(): Map<string, [string, string]> {
  const js = 'text/javascript; charset=utf-8';
  return new Map([
    ['app.js', [path.join(STATIC_DIR, 'app.js'), js]],
    ['style.css', [path.join(STATIC_DIR, 'style.css'), 'text/css; charset=utf-8']],
    ['icon.svg', [path.join(STATIC_DIR, 'icon.svg'), 'image/svg+xml']],
    ['preact.mjs', [vendorFile('preact'), js]],
    ['hooks.mjs', [vendorFile('preact/hooks'), js]],
    ['htm.mjs', [vendorFile('htm'), js]],
  ]);
}

// The import map lets the app and Preact's hooks import "preact" by name.
const IMPORT_MAP = JSON.stringify({ imports: { preact: '/assets/preact.mjs', 'preact/hooks': '/assets/hooks.mjs', htm: '/assets/htm.mjs' } });

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Vigil</title>
<link rel="icon" href="/assets/icon.svg">
<link rel="stylesheet" href="/assets/style.css">
<script type="importmap">${IMPORT_MAP}</script>
<script type="module" src="/assets/app.js"></script>
</head>
<body>
<noscript>The Vigil dashboard needs JavaScript.</noscript>
<div id="app"></div>
</body>
</html>
`;

// An inline import map is a script for CSP: allowed by its hash, nothing else inline.
const importMapHash = crypto.createHash('sha256').update(IMPORT_MAP).digest('base64');
const CSP = [
  "default-src 'self'",
  `script-src 'self' 'sha256-${importMapHash}'`,
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function pageRoutes(): Router {
  const router = new Router();
  const files = assets();

  router.get('/', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Security-Policy', CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });

  router.get('/assets/:name', async (ctx) => {
    const entry = files.get(ctx.params.name!);
    if (!entry || !(await sendFile(ctx, entry[0], entry[1]))) throw new ApiError(404, 'not_found', `no dashboard file ${ctx.params.name}`);
    ctx.set('X-Content-Type-Options', 'nosniff');
  });

  return router;
}
