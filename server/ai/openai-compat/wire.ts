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
/** How a run's part ended: it answered, hit its step cap, or handed calls of the client's tools over (sql/0107). */
export type Finish = 'answered' | 'max_steps' | 'tool_calls';
/** The loop's stop as OpenAI's finish_reason: the step cap reads as a cut answer. */
export const finishReason = (stop: Finish) => (stop === 'max_steps' ? 'length' : stop === 'tool_calls' ? 'tool_calls' : 'stop');
/** Calls of the client's tools as OpenAI's message carries them. */
export type HandedCall = { id: string; name: string; arguments: string };
const toolCallOf = (c: HandedCall) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } });

/** A completion that hands the client calls of its tools (finish_reason tool_calls): the run waits for their results. */
export function toolCallsCompletion(id: string, model: string, created: number, calls: HandedCall[], usage: Usage) {
  return {
    id, object: 'chat.completion' as const, created, model,
    choices: [{ index: 0, message: { role: 'assistant' as const, content: null, refusal: null, tool_calls: calls.map(toolCallOf) }, logprobs: null, finish_reason: 'tool_calls' as const }],
    usage: usageOf(usage),
  };
}

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
    finish: (stop: Finish) => ({ ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason(stop) }] }),
    /** Each call as OpenAI streams one: its id, type and name with empty arguments, then its arguments. */
    toolCalls: (calls: HandedCall[]) => calls.flatMap((c, index) => [
      { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, id: c.id, type: 'function' as const, function: { name: c.name, arguments: '' } }] }, logprobs: null, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: c.arguments } }] }, logprobs: null, finish_reason: null }] },
    ]),
    usage: (usage: Usage) => ({ ...base, choices: [], usage: usageOf(usage) }),
  };
}
