// Surfaces for clients people already have: /api/v1 (OpenAI's chat
// completions), /api/mcp (MCP Streamable HTTP), /api/database (spec 4.4),
// and this document itself with its reference page.
import { z } from 'zod';
import { ChatCompletionBody } from '../../ai/openai-compat/messages.ts';
import { family, json, type Operation } from '../operation.ts';
import { AnyObject } from '../schemas.ts';

const openai = family({ tag: 'OpenAI-compatible', errorBody: 'openai', access: 'bearer' });
const mcp = family({ tag: 'MCP', errorBody: 'ai', access: 'bearer' });
const database = family({ tag: 'Database', errorBody: 'plain', access: 'project' });
const open = family({ tag: 'Reference', errorBody: 'plain', access: 'none' });

const Model = z.looseObject({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() });
const ToolCall = z.looseObject({ id: z.string(), type: z.literal('function'), function: z.looseObject({ name: z.string(), arguments: z.string() }) })
  .meta({ description: 'A call of one of the client\'s own tools: run it, and send its result as a `tool` message in the next request' });
const Completion = z.looseObject({
  id: z.string(), object: z.literal('chat.completion'), created: z.number().int(), model: z.string(),
  choices: z.array(z.looseObject({ index: z.number().int(), message: z.looseObject({ role: z.literal('assistant'), content: z.string().nullable(), tool_calls: z.array(ToolCall).optional() }), finish_reason: z.string() })),
  usage: z.looseObject({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() }),
});
const Chunk = z.looseObject({
  id: z.string(), object: z.literal('chat.completion.chunk'), created: z.number().int(), model: z.string(),
  choices: z.array(z.looseObject({ index: z.number().int(), delta: z.looseObject({ role: z.string().optional(), content: z.string().optional(), tool_calls: z.array(z.looseObject({ index: z.number().int() })).optional() }), finish_reason: z.string().nullable() })),
}).meta({ description: 'Each `data:` line holds one chunk; the stream ends with `data: [DONE]`' });
const JsonRpc = z.looseObject({ jsonrpc: z.literal('2.0'), method: z.string().optional(), id: z.union([z.string(), z.number()]).optional() });
const mcpSession = 'The Mcp-Session-Id header names the session after initialize; MCP-Protocol-Version the version.';
const Rows = z.array(z.record(z.string(), z.unknown()));
const Row = z.record(z.string(), z.unknown());

export const clientOperations: Operation[] = [
  openai.get('/api/v1/models', 'The agents and orchestrations you may run, as models', { operationId: 'listModels', answers: [json(200, 'agent/<name> and orchestration/<name> models', z.object({ object: z.literal('list'), data: z.array(Model) }))] }),
  openai.get('/api/v1/models/{model}', 'One model', { operationId: 'getModel', pathText: { model: 'agent/<name or id> or orchestration/<name or id>' }, answers: [json(200, 'The model', Model)], errors: [404] }),
  openai.post('/api/v1/chat/completions', 'Run an agent or orchestration as a chat completion', {
    operationId: 'createChatCompletion',
    description: 'The last message is the turn the agent answers, or the `tool` messages answering the calls of your own tools that a run waits on (it then goes on). X-Session-Id continues a session and is answered on every call. `tools`, `tool_choice` and `response_format` (checked: 502 `response_format_mismatch` after one retry) apply to agents. With stream: true the answer is server-sent `chat.completion.chunk` events ending `data: [DONE]`.',
    body: ChatCompletionBody, answers: [json(200, 'The completion', Completion), { status: 200, description: 'With stream: true', events: Chunk }], errors: [400, 402, 404, 409, 502],
  }),
  mcp.post('/api/mcp', 'MCP Streamable HTTP: JSON-RPC requests', { operationId: 'mcpPost', description: mcpSession, body: JsonRpc, answers: [json(200, 'A JSON-RPC answer (or an event stream of them)', JsonRpc), { status: 202, description: 'A notification was accepted', empty: true }], errors: [400, 404] }),
  mcp.get('/api/mcp', 'MCP Streamable HTTP: the server\'s notification stream', { operationId: 'mcpStream', description: mcpSession, answers: [{ status: 200, description: 'JSON-RPC notifications as server-sent events', events: JsonRpc }], errors: [400, 404, 405] }),
  mcp.delete('/api/mcp', 'MCP Streamable HTTP: end the session', { operationId: 'mcpEnd', description: mcpSession, answers: [{ status: 200, description: 'Ended', empty: true }], errors: [400, 404] }),

  database.get('/api/database/tables', 'Tables of the public schema', { operationId: 'listTables', query: z.object({ schema: z.literal('public').optional() }), answers: [json(200, 'Table names', z.object({ tables: z.array(z.string()) }))], errors: [400, 502] }),
  database.get('/api/database/openapi', 'The row REST layer\'s own description of the project\'s tables', { operationId: 'databaseOpenApi', answers: [json(200, 'PostgREST\'s OpenAPI document', AnyObject)], errors: [502] }),
  database.get('/api/database/tables/{table}', 'Rows of a table', { operationId: 'listRows', pathText: { table: 'A table of the public schema' }, query: z.object({ limit: z.number().int().min(0).optional(), offset: z.number().int().min(0).optional(), schema: z.literal('public').optional() }), answers: [json(200, 'Rows', Rows)], errors: [400, 404, 502] }),
  database.get('/api/database/tables/{table}/{id}', 'The row whose id matches', { operationId: 'getRow', pathText: { table: 'A table of the public schema', id: 'The row\'s id' }, answers: [json(200, 'The row', Row)], errors: [400, 404, 502] }),
  database.post('/api/database/tables/{table}', 'Insert a row', { operationId: 'insertRow', pathText: { table: 'A table of the public schema' }, body: Row, answers: [json(201, 'The inserted row', Row)], errors: [400, 409, 502] }),
  database.patch('/api/database/tables/{table}/{id}', 'Change a row', { operationId: 'updateRow', pathText: { table: 'A table of the public schema', id: 'The row\'s id' }, body: Row, answers: [json(200, 'The updated row', Row)], errors: [400, 404, 502] }),
  database.delete('/api/database/tables/{table}/{id}', 'Delete a row', { operationId: 'deleteRow', pathText: { table: 'A table of the public schema', id: 'The row\'s id' }, answers: [json(200, 'The deleted rows', Rows)], errors: [400, 404, 502] }),

  open.get('/api/openapi.json', 'This document (no key needed)', { operationId: 'openApiDocument', answers: [json(200, 'OpenAPI 3.1', AnyObject)] }),
  open.get('/api/docs', 'A browsable reference of this document (no key needed)', { operationId: 'apiReference', answers: [{ status: 200, description: 'An HTML page', html: true }] }),
  open.get('/api/docs/{asset}', 'A file of the reference page', { operationId: 'apiReferenceAsset', pathText: { asset: 'start.js, swagger-ui.css, swagger-ui-bundle.js or favicon-32x32.png' }, answers: [{ status: 200, description: 'The file', bytes: 'application/octet-stream' }], errors: [404] }),
];
