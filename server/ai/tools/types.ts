// What a builtin tool is (the shape of openai-agents-js `tool()`): one
// definition holding its name, description, input schema, how an
// assignment's config_override applies to it, and its code. Each lives in
// builtin/<tool>.ts; builtin/index.ts is the only list.
import type { InProcessRest } from '../../rest/in-process.ts';
import type { InProcessStorage } from '../../storage/in-process.ts';
import type { Actor } from '../actor.ts';
import type { ModelRouter } from '../providers/router.ts';
import type { GuardedResponse } from '../runtime/net/ssrf.ts';
import type { Sandbox } from '../runtime/sandbox/index.ts';
import type { Settings } from '../settings/accessor.ts';
import type { UsageContext } from '../usage/ledger.ts';

/** The platform services tools run on. */
export type ToolServices = {
  rest: InProcessRest;
  storage: InProcessStorage;
  settings: Settings;
  sandbox: { pool: Sandbox; timeoutMs: number; memoryMb: number };
  /** web_search's provider and web_scrape's when the CRAWL_API_BASE setting is empty. */
  searchBase: string;
  crawlBaseDefault: string;
  /** web_scrape's image descriptions: VISION_MODEL through the router, images fetched through the SSRF guard. */
  images: { models: ModelRouter; fetch: typeof fetch };
  /** Outbound HTTP through the SSRF guard (http_request, custom tools). */
  fetch: (url: string, init: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number; signal: AbortSignal }) => Promise<GuardedResponse>;
};

/**
 * Who the tool acts as (a user, or explicitly the project: never a missing
 * user); `usage`, the run's ledger context, so model calls a tool makes
 * (web_scrape's image descriptions) count under that run.
 */
export type ToolCaller = { actor: Actor; usage?: UsageContext; /** The call's Idempotency-Key, sent by tools that call out. */ key?: string };

/**
 * How an assignment's config_override applies (spec 4.9):
 * - `schemas`: the schemas and tables the agent may touch (the database
 *   tools), checked against the catalogue when it is set;
 * - `parameters`: keys naming a parameter of the tool, which win over the
 *   model's arguments at call time; other keys are dropped when it is set.
 */
export type OverrideKind = 'schemas' | 'parameters';

/** One call: the model's arguments (an object), the assignment's override, the caller, the run's signal. */
export type ToolCall = { args: Record<string, unknown>; override: Record<string, unknown>; caller: ToolCaller; signal: AbortSignal; services: ToolServices };

export type BuiltinTool = {
  name: string;
  description: string;
  /** JSON Schema of the arguments, as the model and GET /api/tools see it. */
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[]; additionalProperties?: boolean };
  override: OverrideKind;
  /** Answers the tool's output (any JSON value); throws Failure with words for the model. */
  run: (call: ToolCall) => Promise<unknown>;
};
