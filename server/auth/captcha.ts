// The optional captcha check (hCaptcha or Cloudflare Turnstile), as GoTrue does
// it: the client's token travels in gotrue_meta_security.captcha_token
// (supabase-js) or auth_meta_security.captcha_token, and is checked with the
// provider's siteverify endpoint before the request does anything.
import type { RequestHandler } from 'express';
import type { Config } from '../config.ts';
import { authErrors } from './errors.ts';

const VERIFY_URLS = {
  hcaptcha: 'https://hcaptcha.com/siteverify',
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
} as const;

export function captchaCheck(config: Config): RequestHandler {
  const provider = config.AUTH_CAPTCHA_PROVIDER;
  if (!provider) return (_req, _res, next) => next();
  const verifyUrl = config.AUTH_CAPTCHA_VERIFY_URL ?? VERIFY_URLS[provider];
  return (req, _res, next) => {
    const body = (req.body ?? {}) as Record<string, { captcha_token?: unknown } | undefined>;
    const token = body.gotrue_meta_security?.captcha_token ?? body.auth_meta_security?.captcha_token;
    if (typeof token !== 'string' || token === '') {
      next(authErrors.captchaMissing());
      return;
    }
    const form = new URLSearchParams({ secret: config.AUTH_CAPTCHA_SECRET!, response: token, remoteip: req.ip ?? '' });
    fetch(verifyUrl, { method: 'POST', body: form, signal: AbortSignal.timeout(10_000) })
      .then(async (res) => {
        const verdict = (await res.json().catch(() => ({}))) as { success?: boolean; 'error-codes'?: string[] };
        if (verdict.success === true) return next();
        const reasons = verdict['error-codes']?.join(', ') || `verifier answered ${res.status}`;
        next(authErrors.captchaRefused(reasons));
      })
      .catch(() => next(authErrors.captchaUnavailable()));
  };
}
