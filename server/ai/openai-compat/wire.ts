// OpenAI's chat completions wire format, as the official clients parse it:
// the error body, the completion, the stream's chunks and the model list.
// https://platform.openai.com/docs/api-reference/chat
import type { ApiError, ErrorShape } from '../../errors.ts';
import type { Runnable } from './store.ts';

/** OpenAI's error body: {error: {message, type, param, code}}; the type follows the status as OpenAI's does. */
export const openAiError = (e: ApiError) => ({
  error: {
    message: e.message,
    type: e.status === 402 ? 'insufficient_quota' : e.status === 429 ? 'rate_limit_error' : e.status >= 500 ? 'server_error' : e.status === 401 ? 'authentication_error' : e.status === 403 ? 'permission_error' : 'invalid_request_error',
    param: null,
    code: e.status === 401 ? 'invalid_api_key' : (e.code?.toLowerCase() ?? null),
  },
});

export const openAiShape: ErrorShape = (e) => openAiError(e);

/** The model id of a runnable: `agent/<name>`, or `agent/<id>` when an earlier one of its kind took the name. */
export function modelIds(runnable: Runnable[]): Map<string, Runnable> {
  const ids = new Map<string, Runnable>();
  for (const r of runnable) {
    const byName = `${r.kind}/${r.row.name}`;
    ids.set(ids.has(byName) ? `${r.kind}/${r.row.id}` : byName, r);
  }
  return ids;
}

export const modelObject = (id: string, r: Runnable) => ({
  id, object: 'model' as const, created: Math.floor(new Date(r.created_at).getTime() / 1000), owned_by: r.mine ? 'user' : 'project',
});

type Usage = { tokens_in: number; tokens_out: number };
const usageOf = (u: Usage) => ({ prompt_tokens: u.tokens_in, completion_tokens: u.tokens_out, total_tokens: u.tokens_in + u.tokens_out });
/** The loop's stop as OpenAI's finish_reason: the step cap reads as a cut answer. */
export const finishReason = (stop: 'answered' | 'max_steps') => (stop === 'max_steps' ? 'length' : 'stop');

export function completion(id: string, model: string, created: number, output: string, stop: 'answered' | 'max_steps', usage: Usage) {
  return {
    id, object: 'chat.completion' as const, created, model,
    choices: [{ index: 0, message: { role: 'assistant' as const, content: output, refusal: null }, logprobs: null, finish_reason: finishReason(stop) }],
    usage: usageOf(usage),
  };
}

/** The stream's chunks: the role first, then content deltas, then the finish reason, then (when asked) usage with no choices. */
export function chunks(id: string, model: string, created: number) {
  const base = { id, object: 'chat.completion.chunk' as const, created, model };
  return {
    role: () => ({ ...base, choices: [{ index: 0, delta: { role: 'assistant' as const, content: '' }, logprobs: null, finish_reason: null }] }),
    content: (text: string) => ({ ...base, choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }] }),
    finish: (stop: 'answered' | 'max_steps') => ({ ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason(stop) }] }),
    usage: (usage: Usage) => ({ ...base, choices: [], usage: usageOf(usage) }),
  };
}
