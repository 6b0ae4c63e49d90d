// One operation of the OpenAPI document: the route's own zod schemas for what
// it takes (the ones its handler parses with), and zod schemas for what it
// answers. document.ts turns a list of these into OpenAPI 3.1.
import type { z } from 'zod';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Which error body a route answers in (spec part 7; server/ai/errors.ts, openai-compat/wire.ts, webhooks.ts). */
export type ErrorBody = 'ai' | 'ai_coded' | 'plain' | 'openai' | 'webhook' | 'platform';

/**
 * Who may call: `project` is the apikey header with a Bearer token (a user's or the service key);
 * `bearer` also takes the Bearer token alone (OpenAI and MCP clients); `webhook` is the webhook's
 * secret; `none` needs nothing; `operator` is the control plane's: a Studio session cookie (with
 * its X-CSRF-Token on changes) or a platform token as the Bearer.
 */
export type Access = 'project' | 'bearer' | 'webhook' | 'none' | 'operator';

export type Answer =
  | { status: number; description: string; json: z.ZodType }
  /** Server-sent events: `schema` is what each `data:` line holds. */
  | { status: number; description: string; events: z.ZodType }
  | { status: number; description: string; bytes: string }
  | { status: number; description: string; html: true }
  | { status: number; description: string; empty: true };

export type Operation = {
  method: Method;
  /** OpenAPI style, from the server root: `/api/agents/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** Path parameters named in `path` whose values are not ids (ids are described as UUIDs). */
  pathText?: Record<string, string>;
  query?: z.ZodObject;
  /** A JSON body: the schema the route validates it with. */
  body?: z.ZodType;
  /** The body may be left out (the route reads `{}`). */
  bodyOptional?: boolean;
  /** A multipart/form-data body. */
  multipart?: z.ZodObject;
  answers: Answer[];
  /** Error statuses this route answers besides those every route of its access answers. */
  errors?: number[];
  errorBody: ErrorBody;
  access: Access;
};

type Shared = Pick<Operation, 'tag' | 'errorBody' | 'access'>;
type Own = Omit<Operation, 'method' | 'path' | 'summary' | keyof Shared> & Partial<Shared>;

/** A family of operations sharing a tag, an error body and an access rule. */
export function family(shared: Shared) {
  const make = (method: Method) => (path: string, summary: string, own: Own): Operation => ({ ...shared, method, path, summary, ...own });
  return { get: make('get'), post: make('post'), put: make('put'), patch: make('patch'), delete: make('delete') };
}

export const json = (status: number, description: string, schema: z.ZodType): Answer => ({ status, description, json: schema });
export const events = (description: string, schema: z.ZodType): Answer => ({ status: 200, description, events: schema });
