// What an OpenAI client (/api/v1) brings to an agent's run beside its
// messages, kept on the run (ai.agent_runs.client, sql/0107) so a run
// resumed anywhere offers the same:
//   tools, tool_choice  the client's own tools, offered beside the agent's;
//                       a call to one is handed to the client (loop.ts)
//   response_format     OpenAI's structured output: `text`, `json_object`, or
//                       `json_schema`. It reaches the model as sent, and the
//                       answer is checked against it (loop.ts checkAnswer:
//                       one retry, then RESPONSE_FORMAT_MISMATCH)
// The schema is the client's, so it is bounded (schema-check.ts); the model
// is still asked its `pattern`s.
import { z } from 'zod';
import { aiErrors } from '../errors.ts';
import { schemaCheck } from '../schema-check.ts';
import type { ChatRequest } from '../providers/router.ts';
import type { LoopTool } from './loop.ts';
import type { ClientRequest, ResponseFormat } from '../steps/client.ts';

export const ResponseFormatBody = z.union([
  z.object({ type: z.literal('text') }).passthrough(),
  z.object({ type: z.literal('json_object') }).passthrough(),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'json_schema.name: letters, digits, _ and -, at most 64'),
      description: z.string().max(2000).optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullish(),
    }),
  }),
], { error: 'response_format must be {"type": "text"}, {"type": "json_object"} or {"type": "json_schema", "json_schema": {...}}' });

/** How an answer is checked against a response format: undefined for `text` (nothing to check). Throws 400 for a schema that cannot be used. */
export function answerCheck(format: ResponseFormat | undefined): ((output: string) => string | undefined) | undefined {
  if (!format || format.type === 'text') return undefined;
  const parsed = (output: string): { value?: unknown; wrong?: string } => {
    try {
      return { value: JSON.parse(output) };
    } catch {
      return { wrong: 'it is not JSON' };
    }
  };
  if (format.type === 'json_object') {
    return (output) => {
      const { value, wrong } = parsed(output);
      return wrong ?? (value && typeof value === 'object' && !Array.isArray(value) ? undefined : 'it is not a JSON object');
    };
  }
  const check = schemaCheck(format.json_schema.schema ?? {}, 'response_format', 'the answer');
  return (output) => {
    const { value, wrong } = parsed(output);
    return wrong ?? check(value);
  };
}

/** The format as the model router sends it. */
export const modelFormat = (format: ResponseFormat | undefined): ChatRequest['response_format'] =>
  format && format.type !== 'text' ? (format as ChatRequest['response_format']) : undefined;

const FunctionName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a tool\'s function.name: letters, digits, _ and -, at most 64');
export const ClientToolBody = z.object({
  type: z.literal('function', { error: 'tools: only {"type": "function"} tools are supported' }),
  function: z.object({
    name: FunctionName,
    description: z.string().max(4000).optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});
export const ToolChoiceBody = z.union([
  z.enum(['none', 'auto', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: FunctionName }) }),
], { error: 'tool_choice must be "none", "auto", "required" or {"type": "function", "function": {"name": ...}}' });


/** The client's tools as the loop offers them: never called here (the client runs them). */
export function clientTools(client: ClientRequest | undefined, own: LoopTool[]): LoopTool[] {
  const taken = new Set(own.map((t) => t.chat.function.name));
  return (client?.tools ?? []).map((t) => {
    if (taken.has(t.function.name)) throw aiErrors.validation(`tools: ${t.function.name} is the name of one of the agent's own tools`);
    return {
      client: true as const,
      chat: { type: 'function' as const, function: { name: t.function.name, description: t.function.description ?? '', parameters: t.function.parameters ?? { type: 'object', properties: {} }, ...(t.function.strict ? { strict: true } : {}) } },
      call: () => Promise.reject(new Error('a client tool runs in the client')),
    };
  });
}
