// What an OpenAI client (/api/v1) brings to an agent's run beside its
// messages, kept on the run (ai.agent_runs.client, sql/0107) so a run
// resumed anywhere offers the same:
//   tools, tool_choice  the client's own tools, offered beside the agent's;
//                       a call to one is handed to the client (loop.ts)
//   response_format     OpenAI's structured output: `text`, `json_object`, or
//                       `json_schema`. It reaches the model as sent, and the
//                       answer is checked against it (loop.ts checkAnswer:
//                       one retry, then RESPONSE_FORMAT_MISMATCH)
// The schema is the client's, so it is bounded: at most 64 KB, no
// `patternProperties`, and `pattern` is not run (a regular expression from a
// request never runs in the server: it could backtrack for minutes); the
// model is still asked it.
import { Ajv } from 'ajv';
import { z } from 'zod';
import { aiErrors } from '../errors.ts';
import type { ChatRequest } from '../providers/router.ts';
import type { LoopTool } from './loop.ts';
import type { ClientRequest, ResponseFormat } from '../steps/client.ts';

const MAX_SCHEMA_BYTES = 64 * 1024;

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

/** The schema without what is not checked here (`pattern`), where it is a keyword (not inside const, enum, default or examples). */
function withoutPatterns(node: unknown, depth = 0): unknown {
  if (depth > 64) throw aiErrors.validation('response_format: the schema is nested too deeply');
  if (Array.isArray(node)) return node.map((n) => withoutPatterns(n, depth + 1));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'patternProperties') throw aiErrors.validation('response_format: patternProperties is not supported in a schema');
    if (k === 'pattern' && typeof v === 'string') continue;
    out[k] = ['const', 'enum', 'default', 'examples'].includes(k) ? v : withoutPatterns(v, depth + 1);
  }
  return out;
}

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
  const schema = format.json_schema.schema ?? {};
  if (JSON.stringify(schema).length > MAX_SCHEMA_BYTES) throw aiErrors.validation('response_format: the schema is larger than 64 KB');
  let validate: ReturnType<Ajv['compile']>;
  try {
    // No remote $refs (nothing is loaded), no formats beyond the spec's, unknown keywords allowed (OpenAI's own are).
    validate = new Ajv({ strict: false, allErrors: false, validateSchema: true }).compile(withoutPatterns(schema) as object);
  } catch (err) {
    throw aiErrors.validation(`response_format: the schema cannot be used: ${(err as Error).message.slice(0, 300)}`);
  }
  return (output) => {
    const { value, wrong } = parsed(output);
    if (wrong) return wrong;
    if (validate(value)) return undefined;
    const first = validate.errors?.[0];
    return first ? `${first.instancePath || 'the answer'} ${first.message ?? 'does not match'}` : 'it does not match the schema';
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
