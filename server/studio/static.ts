// The Studio's built files (studio/dist, made by `npm install` or the first
// start: studio/build.ts), served by the control plane at `/`:
//   /assets/<name>-<hash>.<ext>   a year's cache, immutable; the .br or .gz
//                                 written beside it at build time when the
//                                 client takes it
//   anything else (not /api)      index.html, never cached, so a new build is
//                                 picked up; the app routes in the browser
// Every answer carries a strict Content-Security-Policy: scripts, styles,
// fonts and connections from this origin only (no inline script, nothing
// from a third party), images and media also from blob: (previews of files
// the Studio fetched itself), no framing of the Studio. The one exception is
// a nonce for styles, new with every index.html: CodeMirror writes its
// editor's styles into <style> elements, and takes the nonce from the page
// (<meta property="csp-nonce">); scripts get none.
import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Request, RequestHandler, Response } from 'express';

export const contentSecurityPolicy = (styleNonce?: string) => [
  "default-src 'self'", "script-src 'self'", styleNonce ? `style-src 'self' 'nonce-${styleNonce}'` : "style-src 'self'", "img-src 'self' data: blob:", "media-src 'self' blob:",
  "font-src 'self'", "connect-src 'self'", "frame-src 'self' blob:", "worker-src 'self' blob:", "object-src 'none'", "base-uri 'none'",
  "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.html': 'text/html; charset=utf-8', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json', '.woff2': 'font/woff2', '.txt': 'text/plain; charset=utf-8', '.map': 'application/json',
};

/** Headers every Studio answer carries. */
export function securityHeaders(res: Response, styleNonce?: string): void {
  res.setHeader('Content-Security-Policy', contentSecurityPolicy(styleNonce));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
}

/** The precompressed file the client takes, if one was built: [path, encoding]. */
function encoded(req: Request, file: string): [string, string | null] {
  const accepts = String(req.headers['accept-encoding'] ?? '');
  if (/\bbr\b/.test(accepts) && existsSync(`${file}.br`)) return [`${file}.br`, 'br'];
  if (/\bgzip\b/.test(accepts) && existsSync(`${file}.gz`)) return [`${file}.gz`, 'gzip'];
  return [file, null];
}

/** A built file, precompressed when the client takes it. */
export function sendBuilt(req: Request, res: Response, file: string, cache: string): void {
  const [chosen, encoding] = encoded(req, file);
  res.setHeader('Content-Type', TYPES[path.extname(file)] ?? 'application/octet-stream');
  res.setHeader('Cache-Control', cache);
  res.setHeader('Vary', 'Accept-Encoding');
  if (encoding) res.setHeader('Content-Encoding', encoding);
  res.setHeader('Content-Length', String(statSync(chosen).size));
  if (req.method === 'HEAD') return void res.end();
  createReadStream(chosen).pipe(res);
}

/** index.html with this answer's style nonce in it (the file is read again when a build replaces it). */
function indexPage(file: string): (nonce: string) => string {
  let cached: { mtime: number; text: string } | undefined;
  return (nonce) => {
    const mtime = statSync(file).mtimeMs;
    if (cached?.mtime !== mtime) cached = { mtime, text: readFileSync(file, 'utf8') };
    return cached.text.replace('</head>', `<meta property="csp-nonce" content="${nonce}" />\n  </head>`);
  };
}

export function studioStatic(dist: string): RequestHandler {
  const index = path.join(dist, 'index.html');
  const assets = path.join(dist, 'assets');
  const page = indexPage(index);
  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.path.startsWith('/api/') || req.path === '/health') return next();
    if (!req.path.startsWith('/assets/') && (!path.extname(req.path) || req.path === '/index.html')) {
      if (!existsSync(index)) return next();
      const nonce = randomBytes(18).toString('base64');
      securityHeaders(res, nonce);
      res.setHeader('Cache-Control', 'no-cache');
      res.type('html').send(page(nonce));
      return;
    }
    securityHeaders(res);
    if (req.path.startsWith('/assets/')) {
      const name = path.basename(req.path);
      const file = path.join(assets, name);
      // Only files the build wrote, by their own name: no path leaves assets/.
      if (name !== req.path.slice('/assets/'.length) || !/^[\w.-]+$/.test(name) || !existsSync(file) || !statSync(file).isFile()) return next();
      return sendBuilt(req, res, file, 'public, max-age=31536000, immutable');
    }
    const file = path.join(dist, path.basename(req.path));
    if (/^\/[\w.-]+$/.test(req.path) && existsSync(file) && statSync(file).isFile()) return sendBuilt(req, res, file, 'public, max-age=3600');
    next();
  };
}
