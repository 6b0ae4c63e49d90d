// pgbase's OAuth consent page on the project API (issue 49): GET
// /auth/v1/oauth/consent answers the built consent.html (studio/consent.html,
// made with the Studio) with its asset paths moved under
// /auth/v1/oauth/consent/assets/ and a short-lived anon token in
// <meta name="pgbase-api-key"> for auth-js's calls (a token, not the project's
// keys: it works while the legacy keys are off, and expires). The Studio's
// policy holds here too: scripts and styles from this origin only, no framing
// (a consent page inside another site's frame is how clicks are stolen).
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import express, { type Router } from 'express';
import type { OpenRoute } from '../gateway.ts';
import type { Keys } from '../keys.ts';
import { securityHeaders, sendBuilt } from './static.ts';

export const CONSENT_PATH = '/oauth/consent';

/** The page and its assets, opened by a browser without a project key. */
export const consentOpen: OpenRoute = (req) => req.path === CONSENT_PATH || req.path.startsWith(`${CONSENT_PATH}/`);

export function consentPage(dist: string, keys: Pick<Keys, 'sign'>): Router {
  const router = express.Router();
  const file = path.join(dist, 'consent.html');
  let cached: { mtime: number; text: string } | undefined;
  const html = () => {
    const mtime = statSync(file).mtimeMs;
    if (cached?.mtime !== mtime) cached = { mtime, text: readFileSync(file, 'utf8').replaceAll('"/assets/', `"/auth/v1${CONSENT_PATH}/assets/`) };
    return cached.text;
  };
  router.get(CONSENT_PATH, (_req, res, next) => {
    if (!existsSync(file)) return next();
    void keys.sign({ role: 'anon' }, 3600).then((token) => {
      securityHeaders(res);
      res.setHeader('Cache-Control', 'no-store');
      res.type('html').send(html().replace('</head>', `<meta name="pgbase-api-key" content="${token}" />\n  </head>`));
    }, next);
  });
  router.get(`${CONSENT_PATH}/assets/:name`, (req, res, next) => {
    const name = req.params.name;
    const target = path.join(dist, 'assets', name);
    // Only files the build wrote, by their own name: no path leaves assets/.
    if (!/^[\w.-]+$/.test(name) || !existsSync(target) || !statSync(target).isFile()) return next();
    securityHeaders(res);
    sendBuilt(req, res, target, 'public, max-age=31536000, immutable');
  });
  return router;
}
