// A chat completions request as /api/v1 reads it: the body's schema, what
// the client brings beside its messages (its tools, tool_choice,
// response_format: agents/client-request.ts), the earlier turns a new
// session is seeded with, and the tool results that continue a run waiting
// for its client (sql/0107).
import { z } from 'zod';
import { answerCheck, ClientToolBody, ResponseFormatBody, ToolChoiceBody } from '../agents/client-request.ts';
import { aiErrors } from '../errors.ts';
import { checkSeededHistory } from '../sessions/limits.ts';
import type { ClientRequest } from '../steps/client.ts';

const Part = z.object({ type: z.string(), text: z.string().optional() }).passthrough();
const ToolCallBody = z.object({ id: z.string().min(1).max(200), type: z.literal('function').optional(), function: z.object({ name: z.string().max(64), arguments: z.string().max(200_000) }) });
const Message = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool'], { error: 'each message needs a role: system, developer, user, assistant or tool' }),
  content: z.union([z.string(), z.array(Part)]).nullable().optional(),
  tool_calls: z.array(ToolCallBody).max(128).nullish(),
  tool_call_id: z.string().min(1).max(200).optional(),
}).passthrough();
export type ChatMessageBody = z.infer<typeof Message>;

export const ChatCompletionBody = z.object({
  model: z.string({ error: 'model is required: agent/<name or id> or orchestration/<name or id>' }).min(1, 'model is required'),
  messages: z.array(Message, { error: 'messages is required: an array of {role, content}' }).min(1, 'messages must not be empty').max(1000, 'at most 1000 messages'),
  stream: z.boolean({ error: 'stream must be a boolean' }).nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).passthrough().nullish(),
  tools: z.array(ClientToolBody).max(128, 'at most 128 tools').nullish(),
  tool_choice: ToolChoiceBody.nullish(),
  response_format: ResponseFormatBody.nullish(),
}).passthrough();
export type ChatCompletion = z.infer<typeof ChatCompletionBody>;

/** What the client brings beside its messages, checked (a schema that cannot be used is a 400 now, not a failed run). */
export function clientRequestOf(body: ChatCompletion): ClientRequest | undefined {
  const tools = body.tools && body.tools.length > 0 ? body.tools : undefined;
  const format = body.response_format && body.response_format.type !== 'text' ? body.response_format : undefined;
  const choice = tools ? body.tool_choice ?? undefined : undefined;
  if (choice && typeof choice === 'object' && !tools!.some((t) => t.function.name === choice.function.name)) throw aiErrors.validation(`tool_choice names ${choice.function.name}, which is not among tools`);
  if (new Set(tools?.map((t) => t.function.name)).size !== (tools?.length ?? 0)) throw aiErrors.validation('tools: two tools have the same name');
  answerCheck(format);
  return tools || format ? { ...(tools ? { tools } : {}), ...(choice ? { tool_choice: choice } : {}), ...(format ? { response_format: format } : {}) } : undefined;
}

/**
 * A message's text: a string, or its text parts joined. An earlier turn's
 * image or file (a client resends the whole conversation) stays a marker,
 * `[image]` or `[file: name]`: only the last message's are sent to the model.
 */
export function textOf(m: ChatMessageBody, i: number): string {
  if (typeof m.content === 'string') return m.content;
  if (m.content == null) return '';
  return m.content.map((p) => {
    if (p.type === 'text' && typeof p.text === 'string') return p.text;
    if (p.type === 'image_url') return '[image]';
    if (p.type === 'file') return `[file: ${String((p as { file?: { filename?: unknown } }).file?.filename ?? 'unnamed')}]`;
    throw aiErrors.validation(`messages[${i}]: parts of type ${String(p.type)} are not supported (text, image_url and file are)`);
  }).join('');
}

export type SeededTurn = { role: 'user' | 'assistant' | 'tool'; content: string; tool_calls?: Array<{ id: string; name: string; arguments: string }>; tool_call_id?: string };

/**
 * The earlier turns a new session is seeded with, within bounds: user and
 * assistant messages, an assistant's calls of the client's tools and the
 * tool messages answering them (system messages are the agent's own).
 */
export function seededTurns(earlier: ChatMessageBody[]): SeededTurn[] {
  const turns = earlier.flatMap((m, i): SeededTurn[] => {
    if (m.role === 'tool') {
      if (!m.tool_call_id) throw aiErrors.validation(`messages[${i}]: a tool message needs tool_call_id`);
      return [{ role: 'tool', content: textOf(m, i), tool_call_id: m.tool_call_id }];
    }
    if (m.role === 'assistant' && m.tool_calls && m.tool_calls.length > 0) {
      return [{ role: 'assistant', content: textOf(m, i), tool_calls: m.tool_calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })) }];
    }
    return m.role === 'user' || m.role === 'assistant' ? [{ role: m.role, content: textOf(m, i) }] : [];
  });
  checkSeededHistory(turns);
  return turns;
}

/** The tool messages ending a request: the results of the client's tools a waiting run goes on with (empty: the request is a new turn). */
export function clientResults(messages: ChatMessageBody[]): Array<{ tool_call_id: string; content: string }> {
  const out: Array<{ tool_call_id: string; content: string }> = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--) {
    const m = messages[i]!;
    if (!m.tool_call_id) throw aiErrors.validation(`messages[${i}]: a tool message needs tool_call_id`);
    out.unshift({ tool_call_id: m.tool_call_id, content: textOf(m, i) });
  }
  checkSeededHistory(out);
  return out;
}
