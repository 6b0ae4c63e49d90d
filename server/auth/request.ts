// What every /auth/v1 handler reads from a request the same way: the body
// fields GoTrue shares across routes, the caller's address and agent, the
// redirect target and the password rules.
import type { Request } from 'express';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { authErrors } from './errors.ts';
import { allowedRedirect } from './redirect.ts';

export const email = z.string().trim().max(255).nullish();
export const phone = z.string().trim().max(32).nullish();
export const userData = z.record(z.string(), z.unknown()).nullish();

export const pkceFields = {
  code_challenge: z.string().min(43).max(128).nullish(),
  code_challenge_method: z.enum(['s256', 'plain', 'S256', 'PLAIN']).nullish(),
};

export function clientIp(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? '';
}

export function userAgent(req: Request): string | null {
  return typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'].slice(0, 512) : null;
}

/** redirect_to from the query (supabase-js) or body, checked against the allow-list. */
export function redirectTo(config: Config, req: Request): string {
  return allowedRedirect(config, req.query.redirect_to ?? (req.body as { redirect_to?: unknown } | undefined)?.redirect_to);
}

/** How long an e-mailed (or texted) one-time token lives, as an SQL interval. */
export const otpExpiry = (config: Config): string => `${config.AUTH_OTP_EXPIRY} seconds`;
export const smsExpiry = (config: Config): string => `${config.AUTH_SMS_OTP_EXPIRY} seconds`;

/** Phone features need an SMS provider, as on GoTrue. */
export function requireSms(config: Config): void {
  if (!config.AUTH_SMS_PROVIDER) throw authErrors.phoneProviderDisabled();
}

export function checkPassword(config: Config, password: string): void {
  if (password.length < config.AUTH_PASSWORD_MIN_LENGTH) {
    throw authErrors.passwordTooShort(config.AUTH_PASSWORD_MIN_LENGTH);
  }
  if (Buffer.byteLength(password) > 72) {
    throw authErrors.passwordTooLong();
  }
}
