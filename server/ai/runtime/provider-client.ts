// A JSON call to a hosted provider the operator configured (the web search
// provider, the crawl provider) with its key: POST with a body, GET without.
// Provider hosts are the operator's choice, so these calls skip the SSRF
// guard. Failures are worded for the user (and the model).
import { Failure } from '../failures.ts';

export const providerCall = async (url: string, key: string, body: unknown, timeoutMs: number, signal: AbortSignal): Promise<unknown> => {
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
  }).catch((err: Error) => {
    throw new Failure(`the provider at ${new URL(url).origin} could not be reached: ${err.name === 'TimeoutError' ? 'timed out' : err.message}`);
  });
  const text = await res.text();
  if (!res.ok) throw new Failure(`the provider answered HTTP ${res.status}${res.status === 401 || res.status === 403 ? ' (check the key in /api/settings)' : ''}: ${text.slice(0, 300)}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Failure('the provider answered something other than JSON');
  }
};
