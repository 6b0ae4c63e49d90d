// Cross-origin access for browsers, as Supabase's gateway allows it: any
// origin (the keys and tokens, not the origin, decide), the headers the
// official clients send, and the response headers they read. Preflights are
// answered here, before the key gate, since browsers send them without keys.
import type { RequestHandler } from 'express';

const ALLOW_HEADERS = [
  'authorization', 'apikey', 'content-type', 'x-client-info', 'x-supabase-api-version', 'accept-profile', 'content-profile', 'prefer', 'range',
  'x-upsert', 'x-metadata', 'cache-control', 'if-none-match',
  'tus-resumable', 'upload-length', 'upload-metadata', 'upload-offset', 'upload-defer-length', 'upload-concat', 'x-http-method-override', 'x-requested-with',
  'x-session-id',
].join(', ');
const EXPOSE_HEADERS = [
  'content-range', 'content-length', 'content-disposition', 'etag', 'location', 'preference-applied', 'x-supabase-api-version', 'x-render-cache',
  'upload-offset', 'upload-length', 'upload-metadata', 'upload-expires', 'tus-resumable', 'tus-version', 'tus-max-size', 'tus-extension',
  'x-session-id',
].join(', ');
const ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

export const cors: RequestHandler = (req, res, next) => {
  const origin = req.headers.origin;
  if (!origin) return next();
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
  if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
    res.setHeader('Access-Control-Allow-Methods', ALLOW_METHODS);
    res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
    res.setHeader('Access-Control-Max-Age', '86400');
    return void res.status(204).end();
  }
  next();
};
