// How the router retries and falls back (router.ts): each model is retried on
// 429, 5xx and lost connections (exponential backoff with jitter, honouring
// Retry-After), then the request's fallback models are tried in order after a
// hard failure; a cancel or a malformed request stops at once.
import OpenAI from 'openai';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import { ApiError } from '../../errors.ts';
import { aiErrors } from '../errors.ts';
import type { Ledger } from '../usage/ledger.ts';
import type { ChatSettings } from './types.ts';
import { routeModel, type Provider } from './vendors.ts';

const MAX_BACKOFF_MS = 30_000;

/** Why an attempt failed, and what to do about it. */
type Failure = { error: ApiError; retryable: boolean; retryAfterMs: number | undefined; fallback: boolean };

export type RetryPolicy = ReturnType<typeof retryPolicy>;

export function retryPolicy(opts: { config: Config; ledger: Ledger; log: Logger }) {
  const { config, ledger, log } = opts;

  const classify = (err: unknown, provider: Provider, signal: AbortSignal | undefined): Failure => {
    if (signal?.aborted || err instanceof OpenAI.APIUserAbortError) return { error: aiErrors.cancelled(), retryable: false, retryAfterMs: undefined, fallback: false };
    if (err instanceof OpenAI.APIConnectionTimeoutError) return { error: aiErrors.providerTimeout(provider), retryable: true, retryAfterMs: undefined, fallback: true };
    if (err instanceof OpenAI.APIConnectionError) return { error: aiErrors.providerFailed(provider, 'connection failed'), retryable: true, retryAfterMs: undefined, fallback: true };
    if (err instanceof OpenAI.APIError) {
      const status = err.status ?? 0;
      const message = err.message.replace(/^\d{3} /, '').slice(0, 300);
      const retryable = status === 429 || status >= 500;
      // A request the vendor refused as malformed fails the same way on any model: no fallback.
      return { error: aiErrors.providerFailed(provider, message, status), retryable, retryAfterMs: retryAfter(err.headers), fallback: status !== 400 && status !== 422 };
    }
    if (err instanceof ApiError) return { error: err, retryable: false, retryAfterMs: undefined, fallback: err.status === 402 };
    return { error: aiErrors.providerFailed(provider, (err as Error)?.message ?? 'unknown error'), retryable: false, retryAfterMs: undefined, fallback: true };
  };

  const backoff = (attempt: number, retryAfterMs: number | undefined): number => {
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, MAX_BACKOFF_MS);
    const base = config.AI_PROVIDER_RETRY_BASE_MS * 2 ** attempt;
    return Math.min(base * (0.75 + Math.random() * 0.5), MAX_BACKOFF_MS);
  };

  /**
   * Runs `attempt` on the model, then on each fallback model after a hard
   * failure; retries each model on 429, 5xx and lost connections first.
   */
  const withPolicy = async <T>(model: string, settings: ChatSettings | undefined, signal: AbortSignal | undefined, attempt: (model: string) => Promise<T>): Promise<T> => {
    await ledger.checkCredits();
    const models = [model, ...(Array.isArray(settings?.fallback_models) ? settings.fallback_models.filter((m): m is string => typeof m === 'string') : [])];
    let last: Failure | undefined;
    for (const candidate of models) {
      for (let tries = 0; ; tries++) {
        try {
          return await attempt(candidate);
        } catch (err) {
          last = classify(err, routeModel(candidate)?.provider ?? 'openai', signal);
          if (!last.retryable || tries >= config.AI_PROVIDER_MAX_RETRIES) break;
          const wait = backoff(tries, last.retryAfterMs);
          log.warn({ model: candidate, attempt: tries + 1, wait_ms: Math.round(wait), error: last.error.message }, 'model call failed; retrying');
          await sleep(wait, signal).catch(() => undefined);
          if (signal?.aborted) throw aiErrors.cancelled();
        }
      }
      if (!last.fallback) break;
      if (candidate !== models.at(-1)) log.warn({ model: candidate, error: last.error.message }, 'model failed; trying the next fallback model');
    }
    throw last!.error;
  };

  return { withPolicy, classify };
}

/** Retry-After (seconds or an HTTP date) or retry-after-ms, in milliseconds. */
function retryAfter(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms >= 0 && headers?.get('retry-after-ms')) return ms;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
