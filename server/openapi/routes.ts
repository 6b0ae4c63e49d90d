// GET /api/openapi.json and the reference page at /api/docs, both without a
// key (as PostgREST's root is). The page is Swagger UI from the
// swagger-ui-dist package, served from node_modules: no CDN, and its
// online validator badge switched off, so a browser fetches nothing from
// outside this server.
import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Router } from 'express';
import type { OpenRoute } from '../gateway.ts';
import { openApiDocument } from './document.ts';

const ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png'] as const;
const assetDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The page and its start script; `base` is where /api is mounted. */
const page = (base: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>pgbase /api reference</title>
<link rel="stylesheet" href="${base}/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="${base}/docs/favicon-32x32.png">
</head>
<body>
<div id="reference"></div>
<script src="${base}/docs/swagger-ui-bundle.js"></script>
<script src="${base}/docs/start.js"></script>
</body>
</html>
`;
const start = (base: string) => `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(`${base}/openapi.json`)}, dom_id: '#reference', deepLinking: true, validatorUrl: null });\n`;

const OPEN = new Set(['/openapi.json', '/docs', '/docs/', '/docs/start.js', ...ASSETS.map((a) => `/docs/${a}`)]);
/** The paths of this router open without a key (the gateway asks). */
export const openApiOpenRoute: OpenRoute = (req) => (req.method === 'GET' || req.method === 'HEAD') && OPEN.has(req.path);

export function openApiRoutes(): Router {
  const r = express.Router();
  r.get('/openapi.json', (_req, res) => {
    res.set('cache-control', 'no-cache').json(openApiDocument());
  });
  r.get('/docs', (req, res) => {
    res.type('html').set('cache-control', 'no-cache').send(page(req.baseUrl));
  });
  // The page's own files only: its start script and three files of swagger-ui-dist.
  r.get('/docs/:asset', (req, res, next) => {
    const asset = String(req.params.asset);
    if (asset === 'start.js') return void res.type('js').send(start(req.baseUrl));
    if (!(ASSETS as readonly string[]).includes(asset)) return next();
    res.set('cache-control', 'public, max-age=86400').sendFile(path.join(assetDir, asset));
  });
  return r;
}
