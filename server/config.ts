// The one place the environment is read. Every variable is validated here, so a
// bad value stops the start with a message naming the variable and what it expects.
import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';

const port = z.coerce.number().int().min(1).max(65535);
// 0 asks the OS for a free port (tests, several local instances).
const listenPort = z.coerce.number().int().min(0).max(65535);
const url = z.string().url();
/** "count/seconds": at most count requests per client IP in a window of that many seconds. */
const rate = (fallback: string) =>
  z
    .string()
    .regex(/^\d+\/\d+$/, 'count/seconds, like 30/300')
    .default(fallback)
    .transform((v) => {
      const [count, seconds] = v.split('/').map(Number) as [number, number];
      return { count, seconds };
    });
/** HTTP_ALLOW_PRIVATE_NETWORKS: `true`, `false`, or addresses and CIDR ranges, each parsed as an IP address with a prefix its family allows. */
function allowedNetworks(value: string): boolean {
  if (value === 'true' || value === 'false') return true;
  return value.split(',').every((entry) => {
    const [address = '', prefix, extra] = entry.trim().split('/');
    const family = net.isIP(address.replace(/^\[|\]$/g, ''));
    if (family === 0 || extra !== undefined) return false;
    return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
  });
}
const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off']).transform((v) => ['true', '1', 'yes', 'on'].includes(v));

const schema = z.object({
  PORT: listenPort.default(54321).describe('the project API port'),
  PLATFORM_PORT: listenPort.default(54323).describe('the control-plane port'),
  WORKER_METRICS_PORT: listenPort.optional().describe('a standalone worker (npm run worker) serves GET /metrics and /health here'),
  HOST: z.string().min(1).default('0.0.0.0'),
  API_EXTERNAL_URL: url.optional(),
  PLATFORM_EXTERNAL_URL: url.optional(),
  PROJECT_REF: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lowercase letters, digits and dashes').default('default'),

  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'a postgres:// connection URL').optional(),
  DB_AUTHENTICATOR_URL: z.string().regex(/^postgres(ql)?:\/\//, 'a postgres:// connection URL').optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  EMBEDDED_DB_PORT: port.default(54322),
  EMBEDDED_DB_ROOT_HOME: z.string().min(1).default('/var/lib/pgbase').describe('as root only: where the embedded cluster and a copy of its binaries go, so the "postgres" user can reach them'),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(10),
  DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(3000),
  DB_STATEMENT_TIMEOUT: z.string().regex(/^\d+\s*(ms|s|min|h)?$/, 'a PostgreSQL duration such as 30s or 2min').default('2min')
    .describe('statement_timeout for API roles that have none of their own (anon and authenticated have theirs: ALTER ROLE ... SET statement_timeout)'),
  JOB_STATEMENT_TIMEOUT: z.string().regex(/^\d+\s*(ms|s|min|h)?$/, 'a PostgreSQL duration such as 30s or 2min').default('15min')
    .describe('statement_timeout for statements background jobs run'),
  MIGRATIONS_DIR: z.string().min(1).default('./migrations'),

  JWT_SECRET: z.string().min(32, 'at least 32 characters').optional(),
  PLATFORM_JWT_SECRET: z.string().min(32, 'at least 32 characters').optional(),
  JWT_EXPIRY: z.coerce.number().int().min(30).max(604_800).default(3600).describe('access token lifetime in seconds'),
  ANON_KEY: z.string().min(1).optional(),
  SERVICE_ROLE_KEY: z.string().min(1).optional(),

  SITE_URL: url.default('http://localhost:3000').describe('the app users return to after e-mail links and OAuth'),
  AUTH_REDIRECT_ALLOW_LIST: z.string().default('').describe('comma-separated URLs or globs allowed as redirect_to'),
  AUTH_AUTOCONFIRM: bool.default(true),
  AUTH_DISABLE_SIGNUP: bool.default(false),
  AUTH_SECURE_PASSWORD_CHANGE: bool.default(false).describe("GoTrue's GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: a password change from a session over 24 hours old needs the /reauthenticate nonce"),
  AUTH_MANUAL_LINKING: bool.default(false).describe("GoTrue's GOTRUE_SECURITY_MANUAL_LINKING_ENABLED: linkIdentity() and unlinkIdentity()"),
  AUTH_ANONYMOUS_USERS: bool.default(false).describe("GoTrue's GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED: POST /signup with neither e-mail nor phone signs in anonymously"),
  AI_ANONYMOUS_USERS: bool.default(false).describe('let anonymous users (signInAnonymously, is_anonymous tokens) use the AI surface: /api, /api/v1, MCP, and webhooks of workflows they own'),
  AUTH_RATE_LIMIT_ANONYMOUS_USERS: rate('30/3600'),
  AUTH_PASSWORD_MIN_LENGTH: z.coerce.number().int().min(6).max(72).default(6),
  AUTH_BCRYPT_COST: z.coerce.number().int().min(4).max(15).default(10),
  AUTH_OTP_EXPIRY: z.coerce.number().int().min(60).max(604_800).default(86_400).describe('lifetime of e-mailed codes and links, seconds'),
  SMTP_URL: z.string().regex(/^smtps?:\/\//, 'an smtp:// or smtps:// URL').optional(),
  SMTP_ADMIN_EMAIL: z.string().email().default('no-reply@localhost'),
  SMTP_SENDER_NAME: z.string().default('pgbase'),
  AUTH_RATE_LIMIT_SIGN_IN: rate('30/300'),
  AUTH_RATE_LIMIT_SIGN_UP: rate('30/300'),
  AUTH_RATE_LIMIT_TOKEN_REFRESH: rate('150/300'),
  AUTH_RATE_LIMIT_VERIFY: rate('30/300'),
  AUTH_RATE_LIMIT_EMAIL: rate('30/3600'),
  STORAGE_UPLOAD_LIMIT: z.coerce.number().int().min(1).max(5 * 1024 ** 3).default(50 * 1024 * 1024).describe('per-request upload ceiling in bytes (spec: 50 MB)'),
  STORAGE_RESUMABLE_LIMIT: z.coerce.number().int().min(1).max(5 * 1024 ** 4).default(5 * 1024 ** 3).describe('largest resumable (TUS) upload in bytes; the bucket limit applies too'),
  STORAGE_RESUMABLE_EXPIRY: z.coerce.number().int().min(60).max(30 * 86_400).default(86_400).describe('seconds an unfinished resumable upload is kept before the worker deletes it'),
  STORAGE_BACKEND: z.enum(['local', 's3']).default('local').describe('where object bytes live: DATA_DIR/storage or an S3-compatible bucket'),
  STORAGE_S3_ENDPOINT: url.optional().describe('S3-compatible endpoint (MinIO, R2, ...); unset for AWS'),
  STORAGE_S3_REGION: z.string().min(1).default('us-east-1'),
  STORAGE_S3_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'an S3 bucket name').optional(),
  STORAGE_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  STORAGE_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  STORAGE_S3_FORCE_PATH_STYLE: bool.optional().describe('path-style addressing; default true when STORAGE_S3_ENDPOINT is set'),
  STORAGE_S3_PREFIX: z.string().regex(/^([A-Za-z0-9._-]+\/)*$/, 'empty, or folders ending in /').default(''),
  STORAGE_IMAGE_MAX_INPUT_PIXELS: z.coerce.number().int().min(1).max(1_000_000_000).default(50_000_000).describe('largest source image a transform decodes (width x height)'),
  STORAGE_IMAGE_MAX_DIMENSION: z.coerce.number().int().min(1).max(16_383).default(2500).describe('largest width or height a transform may ask for'),
  STORAGE_IMAGE_MAX_OUTPUT_BYTES: z.coerce.number().int().min(1024).default(25 * 1024 * 1024).describe('largest rendered image'),
  STORAGE_RENDER_CACHE_BYTES: z.coerce.number().int().min(0).default(64 * 1024 * 1024).describe('memory for rendered variants, per process; 0 turns the cache off'),
  TRUST_PROXY: z.string().default('false').describe('Express "trust proxy": false, true, a hop count or a list of subnets'),
  AUTH_SMS_PROVIDER: z.enum(['twilio', 'log']).optional().describe('enables phone sign-up and SMS codes; log keeps messages in platform.sms_outbox'),
  AUTH_SMS_AUTOCONFIRM: bool.default(false),
  AUTH_SMS_OTP_EXPIRY: z.coerce.number().int().min(30).max(86_400).default(60),
  AUTH_SMS_TEMPLATE: z.string().includes('{{ .Code }}').default('Your code is {{ .Code }}'),
  AUTH_SMS_TWILIO_ACCOUNT_SID: z.string().optional(),
  AUTH_SMS_TWILIO_AUTH_TOKEN: z.string().optional(),
  AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID: z.string().optional(),
  AUTH_SMS_TWILIO_API_URL: url.default('https://api.twilio.com'),
  AUTH_CAPTCHA_PROVIDER: z.enum(['hcaptcha', 'turnstile']).optional().describe('captcha on sign-up, sign-in, otp and recovery when set'),
  AUTH_CAPTCHA_SECRET: z.string().min(1).optional(),
  AUTH_CAPTCHA_VERIFY_URL: url.optional().describe("the provider's siteverify endpoint (default: the provider's own)"),
  AUTH_REFRESH_GRACE_SECONDS: z.coerce.number().int().min(0).max(300).default(10),

  REALTIME_MAX_CHANNELS_PER_SOCKET: z.coerce.number().int().min(1).max(10_000).default(100).describe('channels one WebSocket may join'),
  REALTIME_BROADCAST_ANY_TOKEN: z.enum(['true', 'false']).default('false')
    .describe('REST broadcast with any project token, as Supabase Realtime: public messages freely, private ones by the INSERT policies on realtime.messages (default: the service-role key only)'),
  REALTIME_MAX_PAYLOAD_BYTES: z.coerce.number().int().min(1024).max(16 * 1024 * 1024).default(256 * 1024).describe('largest client message (broadcast, track, join) and REST broadcast payload'),
  REALTIME_MAX_EVENTS_PER_SECOND: z.coerce.number().int().min(1).max(1_000_000).default(100).describe('client messages per second per socket (heartbeats not counted)'),
  REALTIME_MAX_QUEUED_BYTES: z.coerce.number().int().min(64 * 1024).max(1024 ** 3).default(8 * 1024 * 1024).describe('bytes waiting to be written to one socket before it is disconnected as too slow'),
  REALTIME_HEARTBEAT_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(60_000).describe('a socket silent this long is closed (two 30 s heartbeat intervals)'),
  REALTIME_NODE_HEARTBEAT_MS: z.coerce.number().int().min(200).max(60_000).default(5000).describe('how often this process tells the database it is alive'),
  REALTIME_NODE_REAP_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000).describe('a process silent this long is gone: its presences leave, its subscriptions end'),
  REALTIME_MESSAGE_RETENTION_SECONDS: z.coerce.number().int().min(60).default(3 * 86_400).describe('how long rows stay in realtime.messages'),

  AI_MASTER_KEY: z.string().min(32, 'at least 32 characters').optional().describe('encrypts provider keys and secret settings at rest (generated into DATA_DIR when unset)'),
  OPENAI_BASE_URL: url.default('https://api.openai.com/v1'),
  ANTHROPIC_BASE_URL: url.default('https://api.anthropic.com/v1'),
  GEMINI_BASE_URL: url.default('https://generativelanguage.googleapis.com/v1beta'),
  OPENROUTER_BASE_URL: url.default('https://openrouter.ai/api/v1'),
  PLATFORM_OPENAI_API_KEY: z.string().min(1).optional(),
  PLATFORM_ANTHROPIC_API_KEY: z.string().min(1).optional(),
  PLATFORM_GEMINI_API_KEY: z.string().min(1).optional(),
  PLATFORM_OPENROUTER_API_KEY: z.string().min(1).optional(),
  AI_BILLING: z.enum(['off', 'credits']).default('off').describe('credits: runs are checked against a per-project credit balance'),
  AI_PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(120_000).describe('one model call, first byte to last'),
  AI_PROVIDER_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(3).describe('retries of a model call on 429 and 5xx, with backoff'),
  AI_PROVIDER_RETRY_BASE_MS: z.coerce.number().int().min(1).max(60_000).default(1000).describe('first backoff before a retry; doubles, with jitter'),
  AI_KEY_VALIDATION_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000).describe('how long key validation waits for the vendor'),

  WORKFLOW_EXECUTION_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(300_000).describe('a synchronous workflow run (execute, webhook) is stopped after this long'),
  WORKFLOW_EXECUTIONS_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(20).describe('workflow runs asked for by hand (execute, stream, async, MCP workflow tools) per actor (a user, or the project) per replica, sliding minute'),
  WORKFLOW_TRIGGERED_RUNS_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(120).describe('workflow runs started by webhooks per actor (the workflow\'s owner, or the project) per replica, sliding minute; a window of its own'),
  AGENT_RUNS_PER_MINUTE: z.coerce.number().int().min(0).max(100_000).default(0).describe('agent and orchestration runs per actor per replica, sliding minute, from every route (/api/agents, /api/orchestrations, /api/v1, MCP, workflow blocks); 0: no limit (spec 8)'),
  SANDBOX_TIMEOUT_MS: z.coerce.number().int().min(10).max(600_000).default(10_000).describe('longest a code block or condition may run'),
  SANDBOX_MEMORY_MB: z.coerce.number().int().min(32).max(4096).default(64).describe('memory ceiling of one code block run'),
  SANDBOX_WORKERS: z.coerce.number().int().min(1).max(64).default(2).describe('code blocks run at once per process'),
  EXTRACTION_WORKERS: z.coerce.number().int().min(1).max(64).default(2).describe('documents parsed at once per process, each in its own thread'),
  EXTRACTION_MAX_HEAP_MB: z.coerce.number().int().min(64).max(16_384).default(1024).describe('heap of one document parser thread; past it the source fails'),
  EXTRACTION_TIMEOUT_MS: z.coerce.number().int().min(1000).max(24 * 3_600_000).default(30 * 60_000).describe('longest one document may take to parse'),
  EXTRACTION_BUSY_SECONDS_PER_MB: z.coerce.number().min(1).max(86_400).default(30).describe("the parser's own working time one document may take: 30 s plus this many seconds per MB of the file (waits for a model or OCR not counted)"),
  EXTRACTION_PAGE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(180_000).describe('longest one page (or a file without pages) may take to parse'),
  HTTP_ALLOW_PRIVATE_NETWORKS: z.string().refine(allowedNetworks, 'true, false, or comma-separated IP addresses and CIDR ranges (10.0.0.0/8, fd00::/8)').default('false')
    .describe('let workflow and tool HTTP calls reach private, loopback and link-local addresses: true, false, or only the listed addresses'),
  SEARCH_API_BASE: z.string().url().default('https://api.tavily.com')
    .describe('web_search provider (a Tavily-compatible POST /search); its key is the SEARCH_API_KEY setting'),
  CRAWL_API_BASE_DEFAULT: z.string().url().default('https://api.firecrawl.dev')
    .describe('web_scrape provider (a Firecrawl-compatible POST /v1/scrape) when the CRAWL_API_BASE setting is empty'),
  UNSTRUCTURED_API_URL: z.string().url().default('https://api.unstructuredapp.io').describe('the unstructured extraction engine (POST /general/v0/general)'),
  UNSTRUCTURED_API_KEY: z.string().min(1).optional().describe('its key; without it the engine falls back to the local chain'),
  DOCLING_API_URL: z.string().url().optional().describe('a Docling Serve instance for the docling extraction engine (POST /v1/convert/file)'),
  DOCLING_API_KEY: z.string().min(1).optional().describe('its X-Api-Key, when the instance asks for one'),
  LLAMAPARSE_API_URL: z.string().url().default('https://api.cloud.llamaindex.ai').describe('the llamaparse extraction engine (LlamaParse upload and job API)'),
  LLAMAPARSE_API_KEY: z.string().min(1).optional().describe('its key; without it the engine falls back to the local chain'),
  RERANK_API_URL: z.string().url().optional().describe('a hosted rerank endpoint (Cohere- or Jina-compatible POST /rerank) for reranker models named rerank/<model>'),
  RERANK_API_KEY: z.string().min(1).optional().describe('its Bearer key, when it asks for one'),

  // PostgREST's settings: each also readable from the database (alter role authenticator set pgrst.<name>,
  // server/rest/settings.ts); set here, the environment wins.
  REST_AGGREGATES_ENABLED: z.enum(['true', 'false']).default('false').describe("PostgREST's db-aggregates-enabled: count(), sum(), avg(), min(), max() in select"),
  REST_PLAN_ENABLED: z.enum(['true', 'false']).default('false').describe("PostgREST's db-plan-enabled: Accept: application/vnd.pgrst.plan answers the query plan"),
  REST_MAX_ROWS: z.string().regex(/^\d{1,9}$/, 'a whole number of rows').optional().describe("PostgREST's db-max-rows: at most this many rows in a read's or a function's answer"),
  REST_PRE_REQUEST: z.string().regex(/^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?$/, 'a function name, schema-qualified or not').optional().describe("PostgREST's db-pre-request: a function called before each request's statement"),
  REST_EXTRA_SEARCH_PATH: z.string().regex(/^\s*[A-Za-z_][A-Za-z0-9_$]*(\s*,\s*[A-Za-z_][A-Za-z0-9_$]*)*\s*$/, 'comma-separated schema names').default('public,extensions').describe("PostgREST's db-extra-search-path: schemas searched after the request's own"),
  REST_OPENAPI_MODE: z.enum(['follow-privileges', 'ignore-privileges', 'disabled']).default('follow-privileges').describe("PostgREST's openapi-mode: what GET /rest/v1/ describes"),
  REST_OPENAPI_SERVER_PROXY_URI: url.optional().describe("PostgREST's openapi-server-proxy-uri: the address the OpenAPI document names"),
  REST_SCHEMAS: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*(,[A-Za-z_][A-Za-z0-9_]*)*$/, 'comma-separated schema names').default('public'),

  WORKER: z.enum(['in-process', 'off']).default('in-process'),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
  AI_RUN_PLACEMENT: z.enum(['request', 'worker']).default('request').describe('where agent and orchestration runs are carried: in the process that took the request (its first token sooner), or by whichever process runs the worker (the request only begins the run and follows its events; sql/0079)'),
  AI_APPROVAL_PARK_AFTER_MS: z.coerce.number().int().min(0).max(86_400_000).default(10_000).describe('how long an agent run waits on an approval in its process before it lets go of it: then it is a row and a job until the answer or the deadline (sql/0068)'),
  AI_RUN_SWEEP_INTERVAL_MS: z.coerce.number().int().min(200).max(600_000).default(10_000).describe('how often a server looks for agent, orchestration and workflow runs whose process died: each is resumed by a worker, a run that died three times is failed (sql/0067, 0069)'),
  WORKER_RECLAIM_INTERVAL_MS: z.coerce.number().int().min(200).max(600_000).default(10_000).describe('how often a worker process releases the jobs of processes that died (sql/0066); with REALTIME_NODE_REAP_MS it bounds how long such a job waits'),
  MCP_SESSIONS_PER_CALLER: z.coerce.number().int().min(1).max(10_000).default(10).describe('MCP sessions one caller (a user, or the service key) may hold in a process; a new one evicts their least recently used idle one, and with none idle is refused (429)'),
  MCP_SESSIONS_MAX: z.coerce.number().int().min(1).max(1_000_000).default(500).describe('MCP sessions a process holds in all; a new one evicts the least recently used idle one of the callers holding the most, and with none idle is refused (429)'),
  MCP_ALLOWED_ORIGINS: z.string().default('').describe('origins (comma-separated, as https://app.example.com) whose browser pages may call /api/mcp beside the project\'s own (SITE_URL and the API\'s URL); a request with any other Origin is 403, one with none (a non-browser client) is let through'),
  MCP_SESSION_IDLE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(600).describe('an MCP session with no request for this long (and no notification stream open) ends; the client initializes again'),
  STUDIO: bool.default(true).describe('serve the Studio (the web app) at / of the control plane; off, the control plane answers platform tokens only'),
  STUDIO_SIGN_IN_RATE: rate('30/300'),
  STUDIO_QUERY_TIMEOUT_MS: z.coerce.number().int().min(1000).max(86_400_000).default(120_000).describe("longest a query of the Studio's SQL editor may run"),
  METRICS_MAX_SERIES: z.coerce.number().int().min(10).max(1_000_000).default(2000).describe('series per /metrics family whose labels come from outside (request routes, model names); later label sets are counted as <surface>:other or other'),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Env = z.infer<typeof schema>;

/** GoTrue's 20 third-party identity providers. */
export const OAUTH_PROVIDERS = [
  'apple', 'azure', 'bitbucket', 'discord', 'facebook', 'figma', 'fly', 'github', 'gitlab', 'google',
  'kakao', 'keycloak', 'linkedin_oidc', 'notion', 'slack_oidc', 'spotify', 'twitch', 'twitter', 'workos', 'zoom',
] as const;
export type OAuthProviderId = (typeof OAUTH_PROVIDERS)[number];

/** AUTH_EXTERNAL_<PROVIDER>_*: a provider's client and, for tests or self-hosted providers, its endpoints. */
export type OAuthProviderConfig = {
  clientId: string;
  secret: string;
  authorizeUrl?: string;
  tokenUrl?: string;
  userinfoUrl?: string;
  issuer?: string;
  scopes?: string;
  /** signInWithIdToken: where the provider publishes its signing keys, and the other client ids its tokens may be for (a mobile app's). */
  jwksUrl?: string;
  additionalClientIds?: string[];
};

export type Config = Env & {
  oauth: Partial<Record<OAuthProviderId, OAuthProviderConfig>>;
  dataDir: string;
  migrationsDir: string;
  apiUrl: string;
  platformUrl: string;
  /** The variables the environment set (a default fills the others): where set, a REST setting wins over the database's. */
  setInEnvironment: ReadonlySet<string>;
};

export class ConfigError extends Error {
  readonly issues: string[];
  constructor(issues: string[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

/** Reads and validates the environment; throws ConfigError naming each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings count as unset, as in most .env tooling.
  const input = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? '(environment)');
        const got = input[name];
        const shown = name.includes('SECRET') || name.includes('KEY') || name.includes('URL') ? '' : ` (got ${JSON.stringify(got)})`;
        return `${name}: ${describe(issue)}${shown}`;
      }),
    );
  }
  const e = parsed.data;
  const oauth = oauthProviders(input);
  if (e.AUTH_SMS_PROVIDER === 'twilio') {
    const missing = (['AUTH_SMS_TWILIO_ACCOUNT_SID', 'AUTH_SMS_TWILIO_AUTH_TOKEN', 'AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID'] as const).filter((k) => !e[k]);
    if (missing.length > 0) throw new ConfigError(missing.map((k) => `${k}: required when AUTH_SMS_PROVIDER is twilio`));
  }
  if (e.STORAGE_BACKEND === 's3' && !e.STORAGE_S3_BUCKET) throw new ConfigError(['STORAGE_S3_BUCKET: required when STORAGE_BACKEND is s3']);
  if (e.AUTH_CAPTCHA_PROVIDER && !e.AUTH_CAPTCHA_SECRET) throw new ConfigError(['AUTH_CAPTCHA_SECRET: required when AUTH_CAPTCHA_PROVIDER is set']);
  const local = (p: number) => `http://localhost:${p}`;
  return {
    ...e,
    setInEnvironment: new Set(Object.keys(input)),
    oauth,
    dataDir: path.resolve(e.DATA_DIR),
    migrationsDir: path.resolve(e.MIGRATIONS_DIR),
    apiUrl: (e.API_EXTERNAL_URL ?? local(e.PORT)).replace(/\/$/, ''),
    platformUrl: (e.PLATFORM_EXTERNAL_URL ?? local(e.PLATFORM_PORT)).replace(/\/$/, ''),
  };
}

function oauthProviders(input: Record<string, string | undefined>): Config['oauth'] {
  const issues: string[] = [];
  const out: Config['oauth'] = {};
  for (const id of OAUTH_PROVIDERS) {
    const v = (name: string) => input[`AUTH_EXTERNAL_${id.toUpperCase()}_${name}`];
    const enabled = v('ENABLED');
    if (enabled === undefined || ['false', '0', 'no', 'off'].includes(enabled)) continue;
    const prefix = `AUTH_EXTERNAL_${id.toUpperCase()}`;
    if (!['true', '1', 'yes', 'on'].includes(enabled)) issues.push(`${prefix}_ENABLED: expected true or false (got ${JSON.stringify(enabled)})`);
    const clientId = v('CLIENT_ID');
    const secret = v('SECRET');
    if (!clientId) issues.push(`${prefix}_CLIENT_ID: required when ${prefix}_ENABLED is true`);
    if (!secret) issues.push(`${prefix}_SECRET: required when ${prefix}_ENABLED is true`);
    const urls: Partial<Record<'authorizeUrl' | 'tokenUrl' | 'userinfoUrl' | 'issuer' | 'jwksUrl', string>> = {};
    for (const [key, name] of [['authorizeUrl', 'AUTHORIZE_URL'], ['tokenUrl', 'TOKEN_URL'], ['userinfoUrl', 'USERINFO_URL'], ['issuer', 'ISSUER'], ['jwksUrl', 'JWKS_URL']] as const) {
      const value = v(name);
      if (value === undefined) continue;
      if (!/^https?:\/\/[^\s]+$/.test(value)) issues.push(`${prefix}_${name}: expected an http(s) URL`);
      else urls[key] = value.replace(/\/$/, '');
    }
    const scopes = v('SCOPES');
    const additional = v('ADDITIONAL_CLIENT_IDS')?.split(',').map((c) => c.trim()).filter(Boolean);
    out[id] = { clientId: clientId ?? '', secret: secret ?? '', ...urls, ...(scopes ? { scopes } : {}), ...(additional?.length ? { additionalClientIds: additional } : {}) };
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return out;
}

function describe(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected}`;
    case 'too_small':
      return issue.message.startsWith('at least') ? issue.message : `must be at least ${String(issue.minimum)}`;
    case 'too_big':
      return `must be at most ${String(issue.maximum)}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return issue.message;
  }
}
