// The AI surface's errors: the one catalogue of every code it answers (SQL's
// included: migrations raise these codes with auth.raise_error, and
// test/unit/ai-error-codes.test.ts fails on a raised code missing here),
// part 7's two bodies, and the named errors routes throw. Grouped as
// PostgREST groups its codes. docs/ai/errors.md is written from this list
// (`npm run docs`). Errors Postgres raises itself (a unique violation, a
// check constraint) keep PostgREST's SQLSTATE map (server/errors.ts) and
// answer the SQLSTATE as their code.
import { apiError, type ApiError, type ErrorKind, type ErrorShape } from '../errors.ts';

type Entry = { status: number; meaning: string };

export const AI_ERROR_CATALOGUE = {
  access: {
    UNAUTHORIZED: { status: 401, meaning: 'No usable credentials: Authorization is missing, or a webhook call lacks its secret.' },
    FORBIDDEN: { status: 403, meaning: 'The caller may not do this: the anonymous key alone, an anonymous user (unless AI_ANONYMOUS_USERS), a user changing project configuration, or a user changing another user\'s resource.' },
    NOT_FOUND: { status: 404, meaning: 'The resource does not exist, or the caller may not see it (the two are never told apart).' },
    WORKFLOW_NOT_FOUND: { status: 404, meaning: 'The workflow does not exist or is not the caller\'s to read or change.' },
    VERSION_NOT_FOUND: { status: 404, meaning: 'The workflow has no deployed version with that number.' },
    SETTING_NOT_FOUND: { status: 404, meaning: 'The key is not one of the registry\'s settings.' },
    WEBHOOK_INACTIVE: { status: 403, meaning: 'The workflow is neither deployed nor armed for one webhook call.' },
    METHOD_NOT_ALLOWED: { status: 405, meaning: 'The resource does not take that method (a hook\'s event, a builtin tool).' },
    model_not_found: { status: 404, meaning: 'The OpenAI-compatible endpoint\'s `model` names no agent or orchestration the caller may run.' },
  },
  validation: {
    VALIDATION_ERROR: { status: 400, meaning: 'A body, parameter or configuration breaks a rule; the message names it (and `details` may list fields).' },
    bad_json: { status: 400, meaning: 'The body is not JSON.' },
    CONFLICT: { status: 409, meaning: 'The change does not fit the resource\'s current state (already added, already running, not cancellable).' },
    PAYLOAD_TOO_LARGE: { status: 413, meaning: 'The body or file is larger than its limit.' },
    RATE_LIMITED: { status: 429, meaning: 'More runs started per minute than the run limiter allows the actor: WORKFLOW_EXECUTIONS_PER_MINUTE (workflows run by hand, MCP tools included), WORKFLOW_TRIGGERED_RUNS_PER_MINUTE (webhooks), AGENT_RUNS_PER_MINUTE (agent and orchestration runs, when set).' },
    TOO_MANY_SESSIONS: { status: 429, meaning: 'An MCP initialize past MCP_SESSIONS_PER_CALLER or MCP_SESSIONS_MAX with no idle session to end in its place (a JSON-RPC error body, with Retry-After).' },
  },
  provider: {
    provider_key_decrypt_failed: { status: 402, meaning: 'No usable key for the model\'s provider: none stored, none from the platform, or one that cannot be decrypted.' },
    INSUFFICIENT_CREDITS: { status: 402, meaning: 'The project has no AI credits left (AI_BILLING).' },
    PROVIDER_ERROR: { status: 502, meaning: 'The model vendor answered with an error; `details.provider_status` carries its status.' },
    PROVIDER_TIMEOUT: { status: 504, meaning: 'The model vendor did not answer in time.' },
    MCP_SERVER_UNREACHABLE: { status: 502, meaning: 'An agent\'s MCP server could not be reached, or did not list its tools, when they were asked for; the message says why.' },
    RESPONSE_FORMAT_MISMATCH: { status: 502, meaning: 'The model\'s answer did not match the request\'s `response_format` (`json_object`, or `json_schema`), again after it was told why; the message names the mismatch.' },
  },
  run: {
    EXECUTION_FAILED: { status: 500, meaning: 'A workflow run failed; the message names the block, `execution_id` the run.' },
    EXECUTION_TIMEOUT: { status: 504, meaning: 'A workflow run passed WORKFLOW_EXECUTION_TIMEOUT_MS.' },
    CANCELLED: { status: 499, meaning: 'The client cancelled the request before it finished.' },
    RUN_CANCELLED: { status: 409, meaning: 'The run was cancelled (POST …/cancel, from any replica) before it finished; its record says `cancelled`.' },
    RUN_NOT_RESUMABLE: { status: 409, meaning: 'The process running the run died and the run could not be taken up again (its agent was deleted, or who it acts as is unreadable); its record says `failed` with the reason.' },
  },
  knowledge: {
    RETRIEVAL_FAILED: { status: 500, meaning: 'Retrieval failed for every knowledge base of a context handler; the message lists why for each.' },
  },
  approvals: {
    APPROVAL_ALREADY_DECIDED: { status: 409, meaning: 'The approval was approved or denied already.' },
    APPROVAL_EXPIRED: { status: 409, meaning: 'The approval\'s timeout passed before the decision arrived.' },
  },
  server: {
    HEADERS_NOT_SEALED: { status: 500, meaning: 'Headers of a tool or hook could not be sealed (the master key is missing); nothing was stored.' },
    SERVICE_UNAVAILABLE: { status: 503, meaning: 'The database cannot be reached (try again), or a run answered as JSON goes on in another process (this server stopped, or another took the run over): follow the run\'s events.' },
    INTERNAL: { status: 500, meaning: 'An unexpected failure; its cause is logged with the request id, never sent.' },
  },
} as const satisfies Record<string, Record<string, Entry>>;

type Catalogue = typeof AI_ERROR_CATALOGUE;
type Group = keyof Catalogue;
export type AiErrorCode = { [G in Group]: keyof Catalogue[G] }[Group] & string;

const STATUS_OF = new Map<string, number>(Object.values(AI_ERROR_CATALOGUE).flatMap((g) => Object.entries(g).map(([code, e]) => [code, e.status] as const)));

/** The catalogue's entry of a code, with its group (undefined for a code it lacks). */
export function catalogued(code: string): (Entry & { group: Group }) | undefined {
  for (const [group, codes] of Object.entries(AI_ERROR_CATALOGUE)) {
    const e = (codes as Record<string, Entry>)[code];
    if (e) return { ...e, group: group as Group };
  }
  return undefined;
}

/** An error of the catalogue: its status comes from the code. */
export function aiApiError(code: AiErrorCode, message: string, opts: { kind?: ErrorKind; details?: unknown; retryAfterSeconds?: number } = {}): ApiError {
  return apiError(STATUS_OF.get(code)!, code, message, opts);
}

/** The extra top-level fields an AI error may carry (`details` of settings, `fields` of provider keys, ...). */
type Extra = Record<string, unknown>;
const extraOf = (details: unknown): Extra => (details && typeof details === 'object' && !Array.isArray(details) ? (details as Extra) : {});

/** `{error}`, plus the error's extra fields. */
export const aiShape: ErrorShape = (e) => ({ error: e.message, ...extraOf(e.details) });

/** `{error, error_code}`, plus the error's extra fields (workflow get, graph and execute). */
export const aiCodedShape: ErrorShape = (e) => ({ error: e.message, error_code: e.code ?? e.kind.toUpperCase(), ...extraOf(e.details) });

export const aiErrors = {
  /** 400: a body or parameter that breaks a rule; `extra` adds top-level fields such as `details`. */
  validation: (message: string, extra?: Extra) => aiApiError('VALIDATION_ERROR', message, extra ? { details: extra } : {}),
  responseFormatMismatch: (why: string) => aiApiError('RESPONSE_FORMAT_MISMATCH', `The model's answer does not match response_format, after one retry: ${why}`),
  userTokenOrServiceKey: () => aiApiError('FORBIDDEN', 'This needs a signed-in user token or the service-role key; the anonymous key alone is refused'),
  anonymousOwnerRefused: () => aiApiError('FORBIDDEN', 'This workflow\'s owner is an anonymous user, and anonymous users may not use the AI surface on this project (AI_ANONYMOUS_USERS)'),
  anonymousRefused: () => aiApiError('FORBIDDEN', 'Anonymous users may not use the AI surface on this project (AI_ANONYMOUS_USERS): sign up, or link an e-mail or identity to this user first'),
  bearerRequired: () => aiApiError('UNAUTHORIZED', 'Authorization: Bearer <key or user token> is required'),
  serviceRoleOnly: () => aiApiError('FORBIDDEN', 'Only the service-role key may change project configuration'),
  notYours: (what: string) => aiApiError('FORBIDDEN', `You can only change your own ${what}`),
  notFound: (what: string) => aiApiError('NOT_FOUND', `${what} not found`),
  /** 403: an MCP request from a browser page of another origin (the transport's DNS-rebinding guard). */
  originRefused: (origin: string) => aiApiError('FORBIDDEN', `Requests from ${origin.slice(0, 200)} may not use this MCP server: add it to MCP_ALLOWED_ORIGINS`),
  methodNotAllowed: (message: string) => aiApiError('METHOD_NOT_ALLOWED', message),
  workflowNotFound: () => aiApiError('WORKFLOW_NOT_FOUND', 'Workflow not found'),
  webhookUnauthorized: () => aiApiError('UNAUTHORIZED', 'Unauthorized'),
  webhookInactive: () => aiApiError('WEBHOOK_INACTIVE', 'This webhook is not active: deploy the workflow, or arm it for one call'),
  settingNotFound: (key: string) => aiApiError('SETTING_NOT_FOUND', `Unknown setting: ${key}`),
  unknownProvider: (provider: string) => aiApiError('VALIDATION_ERROR', `Unknown provider: ${provider}; expected one of openai, anthropic, gemini, openrouter`),
  keyRejected: (fields: Record<string, string>) => aiApiError('VALIDATION_ERROR', 'Validation failed', { details: { fields } }),
  /** 402: no usable key for the model's provider (none stored, none from the platform, or one that cannot be decrypted). */
  noProviderKey: (provider: string) => aiApiError('provider_key_decrypt_failed', 'provider_key_decrypt_failed', { details: { provider } }),
  noCredits: () => aiApiError('INSUFFICIENT_CREDITS', 'No AI credits left for this project: add credits or ask an administrator'),
  providerFailed: (provider: string, message: string, status?: number) =>
    aiApiError('PROVIDER_ERROR', `The ${provider} API failed: ${message}`, status === undefined ? {} : { details: { provider_status: status } }),
  mcpUnreachable: (server: string, why: string) => aiApiError('MCP_SERVER_UNREACHABLE', `Could not reach MCP server ${server}: ${why.slice(0, 500)}`),
  providerTimeout: (provider: string) => aiApiError('PROVIDER_TIMEOUT', `The ${provider} API did not answer in time`),
  cancelled: () => aiApiError('CANCELLED', 'The request was cancelled', { kind: 'invalid_request' }),
  runCancelled: () => aiApiError('RUN_CANCELLED', 'The run was cancelled'),
  notResumable: (why: string) => aiApiError('RUN_NOT_RESUMABLE', `The run cannot resume: ${why}`),
  /** A run's end as its stored last event says it (a run carried on elsewhere): its code's status, 500 for a code not in the catalogue. */
  endedWith: (code: string | undefined, message: string, details: Extra) => apiError(catalogued(code ?? '')?.status ?? 500, code, message, { details }),
  stoppedBeforeEnd: (runId: string) => aiApiError('SERVICE_UNAVAILABLE', 'The run goes on in another process (this server stopped, or another took the run over): follow its events', { details: { run_id: runId } }),
  badModel: (model: string) => aiApiError('VALIDATION_ERROR', `Invalid model id "${model}": use <model> (OpenAI, claude-* for Anthropic), gemini/<model> or openrouter/<org>/<model>`),
  modelNotFound: (model: string) => aiApiError('model_not_found', `The model \`${model}\` does not exist or you do not have access to it: use agent/<name or id> or orchestration/<name or id> (GET /api/v1/models lists them)`),
  tooLarge: (message: string) => aiApiError('PAYLOAD_TOO_LARGE', message),
  /** 429 from the run limiter (runs/limiter.ts): `what` names the budget, as "executions". */
  tooManySessions: (message: string, retryAfterSeconds: number) => aiApiError('TOO_MANY_SESSIONS', message, { retryAfterSeconds }),
  rateLimited: (perMinute: number, what: string, retryAfterSeconds: number) => aiApiError('RATE_LIMITED', `Rate limit exceeded: at most ${perMinute} ${what} per minute`, { retryAfterSeconds }),
  retrievalFailed: (message: string) => aiApiError('RETRIEVAL_FAILED', message),
  /** 409: an event for a run none of whose steps waits for it (POST …/executions/{id}/events). */
  notWaitingForClient: (message: string) => aiApiError('CONFLICT', message),
  nothingWaits: (event: string) => aiApiError('CONFLICT', `No step of this run waits for the event ${event}: it has not reached its wait yet, the wait ended, or the run ended`),
  executionFailed: (message: string, executionId: string) => aiApiError('EXECUTION_FAILED', message, { details: { execution_id: executionId } }),
  executionTimeout: (ms: number, executionId: string) => aiApiError('EXECUTION_TIMEOUT', `The workflow did not finish within ${Math.round(ms / 1000)} s`, { details: { execution_id: executionId } }),
};

/** docs/ai/errors.md, written from the catalogue (`npm run docs`; a test keeps the file in step). */
export function errorCatalogueMarkdown(): string {
  const lines = [
    '# AI surface error codes',
    '',
    '<!-- Written by `npm run docs` from server/ai/errors.ts: edit the catalogue there, not this file. -->',
    '',
    'Every code an `/api` route (and every SQL function behind one) can answer, grouped as PostgREST groups its',
    'codes. Bodies are `{error}` or, on the workflow routes that declare it, `{error, error_code}` (spec part 7);',
    'extra fields such as `details` sit beside `error`. Errors Postgres raises itself (a unique violation, a',
    'check constraint) keep PostgREST\'s SQLSTATE map and answer the SQLSTATE as their code.',
  ];
  for (const [group, codes] of Object.entries(AI_ERROR_CATALOGUE)) {
    lines.push('', `## ${group}`, '', '| code | status | meaning |', '|---|---|---|');
    for (const [code, e] of Object.entries(codes)) lines.push(`| \`${code}\` | ${e.status} | ${e.meaning} |`);
  }
  return `${lines.join('\n')}\n`;
}
