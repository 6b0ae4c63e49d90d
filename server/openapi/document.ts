// The OpenAPI 3.1 document of /api, built from the operations' zod schemas
// (zod 4's JSON Schema output is draft 2020-12, OpenAPI 3.1's dialect).
// Request schemas convert as input (what a client sends), response schemas
// as output; every schema an operation names lands in components.schemas.
import { z } from 'zod';
import type { Access, Answer, ErrorBody, Operation } from './operation.ts';
import { NAMED } from './schemas.ts';
import { agentOperations, orchestrationOperations } from './paths/agents.ts';
import { webhookOperations, workflowOperations } from './paths/workflows.ts';
import { contextOperations, knowledgeBaseOperations, sessionOperations, sourceOperations } from './paths/knowledge.ts';
import { projectOperations } from './paths/project.ts';
import { clientOperations } from './paths/clients.ts';

/** Every operation under /api, in the order the document lists them. */
export const OPERATIONS: Operation[] = [
  ...workflowOperations, ...webhookOperations, ...agentOperations, ...orchestrationOperations, ...projectOperations,
  ...sourceOperations, ...knowledgeBaseOperations, ...contextOperations, ...sessionOperations, ...clientOperations,
];

type Json = Record<string, unknown>;

/** One OpenAPI document: its operations, tags, named schemas, and how each access rule authenticates. */
export type DocumentDef = {
  info: { title: string; version: string; description: string };
  operations: Operation[];
  tags: Array<{ name: string; description: string }>;
  named: Array<[id: string, schema: z.ZodType]>;
  securitySchemes: Record<string, Json>;
  security: Partial<Record<Access, Array<Record<string, string[]>>>>;
  /** Statuses every route of an access rule may answer. */
  always: Partial<Record<Access, number[]>>;
  /** The error schema of a body shape (by name in `named`), where it is not /api's. */
  errorSchemaOf?: (body: ErrorBody, status: number, always: boolean) => string;
};

const TAGS: Array<{ name: string; description: string }> = [
  { name: 'Workflows', description: 'Graphs of blocks, their versions, runs and the webhook trigger (spec 4.7, 4.8)' },
  { name: 'Agents', description: 'Agents, their tools, knowledge bases, MCP servers, hooks and runs (spec 4.9)' },
  { name: 'Orchestrations', description: 'A coordinator delegating to member agents (spec 4.10)' },
  { name: 'Tools', description: 'Builtin and custom tools (spec 4.11)' },
  { name: 'Sources', description: 'Documents and their extraction (spec 4.12)' },
  { name: 'Knowledge bases', description: 'Indexing, search and metadata enrichment (spec 4.13)' },
  { name: 'Context handlers', description: 'Retrieval across knowledge bases (spec 4.15)' },
  { name: 'Sessions', description: 'Conversations with their messages and runs (spec 4.14)' },
  { name: 'Copilot', description: 'The workflow editor\'s assistant (spec 4.16)' },
  { name: 'Settings', description: 'The typed settings registry (spec 4.17)' },
  { name: 'Provider keys', description: 'Model vendors\' keys, stored encrypted (spec 4.18)' },
  { name: 'Usage', description: 'Model calls with tokens and cost' },
  { name: 'OpenAI-compatible', description: 'Agents and orchestrations behind OpenAI\'s chat completions API (docs/ai/openai-compatible.md)' },
  { name: 'MCP', description: 'Deployed workflows, agents and searches as MCP tools (docs/ai/mcp.md)' },
  { name: 'Database', description: 'The authenticated proxy over the row REST layer (spec 4.4)' },
  { name: 'Reference', description: 'This document' },
];

const SECURITY: DocumentDef['security'] = {
  project: [{ apikey: [], bearer: [] }],
  bearer: [{ bearer: [] }, { apikey: [], bearer: [] }],
  webhook: [{ webhookSecret: [] }, { webhookToken: [] }],
  none: [],
};
/** Statuses every route of an access rule may answer (the key gate, the identity check, a fault). */
const ALWAYS: DocumentDef['always'] = { project: [401, 403, 500], bearer: [401, 403, 500], webhook: [401, 500], none: [] };
const STATUS_TEXT: Record<number, string> = {
  400: 'The request breaks a rule (the message names it)', 401: 'No key, or a bad or expired token', 402: 'No usable key or credits for the model\'s provider',
  403: 'The caller may not do this (the anonymous key alone, or not the owner)', 404: 'Not found, or not visible to the caller', 405: 'Not allowed on this resource',
  409: 'The resource is in a state that forbids this', 413: 'Larger than the upload limit', 429: 'Too many executions this minute',
  500: 'The server failed (the cause is logged, not sent)', 502: 'An upstream (a model vendor, the REST layer) failed', 504: 'The run did not finish in time',
};

const errorSchema = (body: ErrorBody, status: number, always: boolean): string => {
  if (body === 'openai') return 'OpenAiError';
  if (body === 'webhook') return status === 401 ? 'WebhookUnauthorized' : 'CodedError';
  if (body === 'ai_coded' && !always) return 'CodedError';
  return 'Error';
};

const strip = (schema: unknown): Json => {
  const { $schema: _s, $id: _i, ...rest } = schema as Json;
  return rest;
};

/** Converts many zod schemas at once so shared ones become $refs to components.schemas. */
function convert(entries: Array<[string, z.ZodType]>, io: 'input' | 'output'): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of entries) if (!registry.has(schema)) registry.add(schema, { id });
  const out = z.toJSONSchema(registry, { io, unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` }) as { schemas: Record<string, unknown> };
  return Object.fromEntries(Object.entries(out.schemas).map(([id, s]) => [id, strip(s)]));
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function answerContent(a: Answer, idOf: (s: z.ZodType) => string): Json | undefined {
  if ('json' in a) return { 'application/json': { schema: ref(idOf(a.json)) } };
  if ('events' in a) return { 'text/event-stream': { schema: { ...ref(idOf(a.events)), description: 'Each event is a `data:` line holding one of these as JSON' } } };
  if ('bytes' in a) return { [a.bytes]: { schema: { type: 'string', contentMediaType: a.bytes } } };
  if ('html' in a) return { 'text/html': { schema: { type: 'string' } } };
  return undefined;
}

function parameters(op: Operation, query: Json | undefined): Json[] {
  const inPath = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const params: Json[] = inPath.map((name) => ({
    name, in: 'path', required: true,
    ...(op.pathText?.[name] ? { description: op.pathText[name], schema: { type: 'string' } } : { schema: { type: 'string', format: 'uuid' } }),
  }));
  if (query) {
    const required = new Set((query.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, Json>)) {
      const { description, ...rest } = schema;
      params.push({ name, in: 'query', required: required.has(name), ...(description ? { description } : {}), schema: rest });
    }
  }
  return params;
}

/** An OpenAPI 3.1 document from its operations' zod schemas. */
export function documentOf(def: DocumentDef): Json {
  // Names: the shared ones as named; an operation's own as <operationId>Body / <operationId><status>.
  const requestEntries: Array<[string, z.ZodType]> = [];
  const responseEntries: Array<[string, z.ZodType]> = [...def.named];
  const names = new Map<z.ZodType, string>(def.named.map(([id, s]) => [s, id]));
  const nameOf = (list: Array<[string, z.ZodType]>, schema: z.ZodType, id: string) => {
    if (!names.has(schema)) {
      names.set(schema, id);
      list.push([id, schema]);
    }
    return names.get(schema)!;
  };
  for (const op of def.operations) {
    if (op.body) nameOf(requestEntries, op.body, `${pascal(op.operationId)}Body`);
    if (op.multipart) nameOf(requestEntries, op.multipart, `${pascal(op.operationId)}Form`);
    for (const a of op.answers) {
      const schema = 'json' in a ? a.json : 'events' in a ? a.events : undefined;
      if (schema) nameOf(responseEntries, schema, `${pascal(op.operationId)}${'events' in a ? 'Event' : a.status}`);
    }
  }
  const schemas = { ...convert(responseEntries, 'output'), ...convert(requestEntries, 'input') };

  const paths: Record<string, Json> = {};
  const errorSchemaFor = def.errorSchemaOf ?? errorSchema;
  const errorResponses: Record<string, Json> = {};
  for (const op of def.operations) {
    const responses: Record<string, Json> = {};
    for (const a of op.answers) {
      const key = String(a.status);
      const content = answerContent(a, (s) => names.get(s)!);
      const prior = responses[key] as { description: string; content?: Json } | undefined;
      responses[key] = { description: prior?.description ?? a.description, ...(content || prior?.content ? { content: { ...prior?.content, ...content } } : {}) };
    }
    const always = def.always[op.access] ?? [];
    for (const status of [...new Set([...(op.errors ?? []), ...always])].sort()) {
      // Each error answer is stated once, in components.responses, and named by every operation that gives it.
      const schema = errorSchemaFor(op.errorBody, status, always.includes(status) && !(op.errors ?? []).includes(status));
      const name = `${schema}${status}`;
      errorResponses[name] ??= { description: STATUS_TEXT[status] ?? 'An error', content: { 'application/json': { schema: ref(schema) } } };
      responses[String(status)] ??= { $ref: `#/components/responses/${name}` };
    }
    const query = op.query ? strip(z.toJSONSchema(op.query, { io: 'input', unrepresentable: 'any' })) : undefined;
    const params = parameters(op, query);
    const body = op.body
      ? { required: !op.bodyOptional, content: { 'application/json': { schema: ref(names.get(op.body)!) } } }
      : op.multipart ? { required: true, content: { 'multipart/form-data': { schema: ref(names.get(op.multipart)!) } } } : undefined;
    (paths[op.path] ??= {})[op.method] = {
      operationId: op.operationId, summary: op.summary, ...(op.description ? { description: op.description } : {}), tags: [op.tag],
      ...(params.length ? { parameters: params } : {}), ...(body ? { requestBody: body } : {}),
      responses, security: def.security[op.access] ?? [],
    };
  }
  return { openapi: '3.1.0', info: def.info, servers: [{ url: '/' }], tags: def.tags, paths, components: { schemas, responses: Object.fromEntries(Object.entries(errorResponses).sort()), securitySchemes: def.securitySchemes } };
}

let built: Json | undefined;
/** The document of /api (built once per process: it depends on code only). */
export function openApiDocument(): Json {
  built ??= documentOf({
    info: {
      title: 'pgbase /api', version: '1',
      description: 'The AI surface, the database proxy and the clients\' surfaces of pgbase. Send the project key as `apikey` and a user\'s access token (or the service-role key) as `Authorization: Bearer`; /api/v1 and /api/mcp take the Bearer token alone.',
    },
    operations: OPERATIONS, tags: TAGS, named: NAMED, security: SECURITY, always: ALWAYS,
    securitySchemes: {
      apikey: { type: 'apiKey', in: 'header', name: 'apikey', description: 'The project\'s anon or service-role key' },
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A signed-in user\'s access token, or the service-role key' },
      webhookSecret: { type: 'http', scheme: 'bearer', description: 'The webhook block\'s secret' },
      webhookToken: { type: 'apiKey', in: 'query', name: 'token', description: 'The webhook block\'s secret, in the query' },
    },
  });
  return built;
}
