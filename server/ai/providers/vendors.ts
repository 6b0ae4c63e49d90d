// The four model vendors (spec 2.12's provider_a..d): where their APIs are,
// how they authenticate, and which model ids go to them. All four serve an
// OpenAI-compatible chat and embeddings API, which the router calls with the
// openai SDK; key validation calls each one's own endpoint in its own auth style.
import type { Config } from '../../config.ts';

export const PROVIDERS = ['openai', 'anthropic', 'gemini', 'openrouter'] as const;
export type Provider = (typeof PROVIDERS)[number];

export function isProvider(value: unknown): value is Provider {
  return typeof value === 'string' && (PROVIDERS as readonly string[]).includes(value);
}

export type Vendor = {
  provider: Provider;
  /** Base URL of the OpenAI-compatible API. */
  openAiBase: string;
  /** A cheap authenticated call that accepts a good key and refuses a bad one. */
  validation: (key: string) => { url: string; headers: Record<string, string> };
  /** The platform's own key, when configuration holds one. */
  platformKey: string | undefined;
};

const trim = (url: string) => url.replace(/\/+$/, '');

export function vendors(config: Config): Record<Provider, Vendor> {
  return {
    openai: {
      provider: 'openai',
      openAiBase: trim(config.OPENAI_BASE_URL),
      validation: (key) => ({ url: `${trim(config.OPENAI_BASE_URL)}/models`, headers: { authorization: `Bearer ${key}` } }),
      platformKey: config.PLATFORM_OPENAI_API_KEY,
    },
    anthropic: {
      provider: 'anthropic',
      openAiBase: trim(config.ANTHROPIC_BASE_URL),
      validation: (key) => ({ url: `${trim(config.ANTHROPIC_BASE_URL)}/models`, headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' } }),
      platformKey: config.PLATFORM_ANTHROPIC_API_KEY,
    },
    gemini: {
      provider: 'gemini',
      // Gemini's OpenAI-compatible API lives under /openai of its native API.
      openAiBase: `${trim(config.GEMINI_BASE_URL)}/openai`,
      validation: (key) => ({ url: `${trim(config.GEMINI_BASE_URL)}/models`, headers: { 'x-goog-api-key': key } }),
      platformKey: config.PLATFORM_GEMINI_API_KEY,
    },
    openrouter: {
      provider: 'openrouter',
      openAiBase: trim(config.OPENROUTER_BASE_URL),
      // OpenRouter lists models without a key; /key answers only to a valid one.
      validation: (key) => ({ url: `${trim(config.OPENROUTER_BASE_URL)}/key`, headers: { authorization: `Bearer ${key}` } }),
      platformKey: config.PLATFORM_OPENROUTER_API_KEY,
    },
  };
}

/** Which vendor a model id goes to, and the id that vendor knows it by. */
export function routeModel(model: string): { provider: Provider; model: string } | null {
  let m: RegExpExecArray | null;
  if ((m = /^gemini\/([A-Za-z0-9][A-Za-z0-9._:-]*)$/.exec(model))) return { provider: 'gemini', model: m[1]! };
  if ((m = /^openrouter\/([A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._:-]*)$/.exec(model))) return { provider: 'openrouter', model: m[1]! };
  if (!/^[A-Za-z0-9][A-Za-z0-9._:-]*$/.test(model)) return null;
  return { provider: model.startsWith('claude-') ? 'anthropic' : 'openai', model };
}

export type Verdict = { outcome: 'accepted' } | { outcome: 'rejected'; reason: string } | { outcome: 'unreachable'; reason: string };

/**
 * Asks the vendor whether a key works: accepted (2xx), rejected (401/403,
 * with the vendor's reason), or unreachable (network error, timeout, 5xx,
 * anything else), which callers store as not yet valid.
 */
export async function validateKey(vendor: Vendor, key: string, timeoutMs: number): Promise<Verdict> {
  const { url, headers } = vendor.validation(key);
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    return { outcome: 'unreachable', reason: (err as Error).name === 'TimeoutError' ? 'the provider did not answer in time' : 'the provider could not be reached' };
  }
  const text = await res.text().catch(() => '');
  if (res.ok) return { outcome: 'accepted' };
  if (res.status === 401 || res.status === 403) return { outcome: 'rejected', reason: vendorMessage(text) ?? `the provider refused the key (${res.status})` };
  return { outcome: 'unreachable', reason: `the provider answered ${res.status}` };
}

/** The error message in a vendor's error body ({error: {message}} or {error: "..."} or {message}). */
function vendorMessage(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const m = typeof body.error === 'string' ? body.error : body.error?.message ?? body.message;
    return typeof m === 'string' && m ? m.slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}
