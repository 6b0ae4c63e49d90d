// The Idempotency-Key of an outbound call a run makes (HTTP and custom
// tools, general_api blocks, HTTP hooks): made from what names the call in
// its run (the run, the step, the tool call, the block, the split item, the
// hook and its event), so each call has its own and the same call made
// again (a block's retry, a run resumed after a crash) has the same one. A
// receiver that keeps the keys it has seen answers a repeat without doing
// the work twice. The platform's key replaces one a tool's configured
// headers carry: a fixed key would make every call look like the first.
import { createHash } from 'node:crypto';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

export function idempotencyKey(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32);
}

/** `headers` (lower-cased names, as outboundRequest makes them) with the call's key, when it has one. */
export function withIdempotencyKey(headers: Record<string, string>, key: string | undefined): Record<string, string> {
  return key ? { ...headers, [IDEMPOTENCY_HEADER]: key } : headers;
}
