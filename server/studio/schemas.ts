// What the control plane answers, as zod schemas named in its OpenAPI
// document (server/studio/openapi.ts), from which the Studio's typed client
// is generated. The database's objects follow supabase/postgres-meta's
// shapes; every object stays open (`loose`): a field may be added.
import { z } from 'zod';

export const NAMED: Array<[id: string, schema: z.ZodType]> = [];
const name = <T extends z.ZodType>(id: string, schema: T): T => {
  NAMED.push([id, schema]);
  return schema;
};

const Id = z.string().meta({ format: 'uuid' });
const Timestamp = z.string().meta({ format: 'date-time' });
const Json = z.record(z.string(), z.unknown());
const nullable = <T extends z.ZodType>(t: T) => t.nullable();

export const PlatformError = name('PlatformError', z.looseObject({ code: z.string(), message: z.string(), sqlstate: z.string().optional(), position: z.number().nullable().optional(), detail: z.string().nullable().optional(), hint: z.string().nullable().optional() }));

export const Project = name('Project', z.object({ ref: z.string(), api_url: z.string(), anon_key: z.string(), platform_url: z.string() }));
export const OperatorRef = name('OperatorRef', z.object({ id: Id, email: z.string() }));
export const StudioState = name('StudioState', z.object({ setup_needed: z.boolean(), operator: nullable(OperatorRef), csrf_token: nullable(z.string()), project: nullable(Project) }));
export const OperatorRow = name('Operator', z.looseObject({ id: Id, email: z.string(), created_at: Timestamp, last_sign_in_at: nullable(Timestamp), invited_by: nullable(z.string()) }));
export const Invite = name('Invite', z.looseObject({ id: Id, email: z.string(), expires_at: Timestamp, invite_url: z.string() }));
export const AuditEntry = name('AuditEntry', z.looseObject({ id: z.number(), at: Timestamp, operator_email: z.string(), action: z.string(), target: nullable(z.string()), detail: Json, ip: nullable(z.string()) }));
export const Snippet = name('Snippet', z.looseObject({ id: Id, name: z.string(), folder: z.string(), sql: z.string(), created_at: Timestamp, updated_at: Timestamp }));
export const HistoryEntry = name('HistoryEntry', z.looseObject({ id: z.number(), sql: z.string(), ran_at: Timestamp, duration_ms: nullable(z.number()), row_count: nullable(z.number()), error: nullable(z.string()) }));

export const Schema = name('Schema', z.looseObject({ id: z.number(), name: z.string(), owner: z.string(), protected: z.boolean(), exposed: z.boolean() }));
export const Column = name('Column', z.looseObject({
  table_id: z.number(), schema: z.string(), table: z.string(), id: z.string(), ordinal_position: z.number(), name: z.string(), default_value: nullable(z.string()),
  data_type: z.string(), format: z.string(), type: z.string(), is_identity: z.boolean(), identity_generation: nullable(z.string()), is_generated: z.boolean(),
  is_nullable: z.boolean(), is_updatable: z.boolean(), is_unique: z.boolean(), is_primary_key: z.boolean(), enums: z.array(z.string()), check: nullable(z.string()),
  foreign_key: nullable(z.looseObject({ constraint_name: z.string(), schema: z.string(), table: z.string(), column: z.string(), on_delete: z.string() })), comment: nullable(z.string()),
}));
const Relationship = z.looseObject({ id: z.number(), constraint_name: z.string(), source_schema: z.string(), source_table_name: z.string(), source_column_name: z.string(), target_table_schema: z.string(), target_table_name: z.string(), target_column_name: z.string(), on_delete: z.string(), on_update: z.string() });
export const Table = name('Table', z.looseObject({
  id: z.number(), schema: z.string(), name: z.string(), rls_enabled: z.boolean(), rls_forced: z.boolean(), replica_identity: z.string(),
  bytes: z.number(), size: z.string(), live_rows_estimate: z.number(), dead_rows_estimate: z.number(), comment: nullable(z.string()),
  primary_keys: z.array(z.looseObject({ schema: z.string(), table_name: z.string(), name: z.string(), table_id: z.number() })), relationships: z.array(Relationship),
  protected: z.boolean(), exposed: z.boolean(), realtime: z.boolean(), columns: z.array(Column).optional(),
}));
export const Policy = name('Policy', z.looseObject({ id: z.number(), schema: z.string(), table: z.string(), table_id: z.number(), name: z.string(), action: z.enum(['PERMISSIVE', 'RESTRICTIVE']), roles: z.array(z.string()), command: z.string(), definition: nullable(z.string()), check: nullable(z.string()) }));
export const PolicyTemplate = name('PolicyTemplate', z.looseObject({ id: z.string(), title: z.string(), policy: z.looseObject({ name: z.string(), command: z.string(), roles: z.array(z.string()), using: z.string().optional(), check: z.string().optional() }) }));
export const Index = name('Index', z.looseObject({ id: z.number(), table_id: z.number(), schema: z.string(), table: z.string(), name: z.string(), columns: z.array(z.string()), is_unique: z.boolean(), is_primary: z.boolean(), definition: z.string(), size: z.string(), scans: z.number() }));
export const Trigger = name('Trigger', z.looseObject({ id: z.number(), table_id: z.number(), enabled_mode: z.string(), function_schema: z.string(), function_name: z.string(), table: z.string(), schema: z.string(), name: z.string(), condition: nullable(z.string()), orientation: z.string(), activation: z.string(), events: z.array(z.string()), definition: z.string() }));
export const DbFunction = name('Function', z.looseObject({ id: z.number(), schema: z.string(), name: z.string(), language: z.string(), definition: nullable(z.string()), complete_statement: nullable(z.string()), argument_types: z.string(), identity_argument_types: z.string(), return_type: nullable(z.string()), is_set_returning_function: z.boolean(), behavior: z.string(), security_definer: z.boolean(), config_params: nullable(z.record(z.string(), z.string())), kind: z.string(), protected: z.boolean() }));
export const Role = name('Role', z.looseObject({ id: z.number(), name: z.string(), is_superuser: z.boolean(), can_create_db: z.boolean(), can_create_role: z.boolean(), inherit_role: z.boolean(), can_login: z.boolean(), is_replication_role: z.boolean(), can_bypass_rls: z.boolean(), active_connections: z.number(), connection_limit: z.number(), valid_until: nullable(Timestamp), config: nullable(z.record(z.string(), z.string())), member_of: z.array(z.string()) }));
export const Extension = name('Extension', z.looseObject({ name: z.string(), schema: nullable(z.string()), default_version: nullable(z.string()), installed_version: nullable(z.string()), comment: nullable(z.string()) }));
export const Publication = name('Publication', z.looseObject({ id: z.number(), name: z.string(), owner: z.string(), publish_insert: z.boolean(), publish_update: z.boolean(), publish_delete: z.boolean(), publish_truncate: z.boolean(), tables: nullable(z.array(z.looseObject({ id: z.number(), name: z.string(), schema: z.string() }))) }));
export const Migration = name('Migration', z.looseObject({ source: z.enum(['platform', 'user']), name: z.string(), applied_at: Timestamp }));
export const Advisor = name('Advisor', z.looseObject({ name: z.string(), level: z.enum(['error', 'warn', 'info']), object: z.string(), title: z.string(), detail: z.string(), fix: z.string() }));
const CronRun = z.looseObject({ runid: z.number(), status: nullable(z.string()), start_time: nullable(z.string()), end_time: nullable(z.string()), return_message: nullable(z.string()) });
export const CronJob = name('CronJob', z.looseObject({
  jobid: z.number(), jobname: nullable(z.string()), schedule: z.string(), command: z.string(), active: z.boolean(), username: z.string(), next_run: nullable(z.string()), last_run: nullable(CronRun),
}));
export const CronJobRun = name('CronJobRun', CronRun.extend({ duration_ms: nullable(z.number()) }));
export const Queue = name('Queue', z.looseObject({
  queue_name: z.string(), is_unlogged: z.boolean(), created_at: z.string(), queue_length: z.number(), queue_visible_length: z.number(),
  oldest_msg_age_sec: nullable(z.number()), newest_msg_age_sec: nullable(z.number()), total_messages: z.number(),
}));
export const ChangeAnswer = name('ChangeAnswer', z.object({ sql: z.string(), ran: z.boolean() }));
export const RowsPage = name('RowsPage', z.looseObject({ rows: z.array(Json), keyset: z.boolean(), order: z.array(z.string()), count: nullable(z.number()), estimate: z.number() }));
export const QueryAnswer = name('QueryAnswer', z.looseObject({ run_id: Id, command: nullable(z.string()), row_count: nullable(z.number()), columns: z.array(z.object({ name: z.string(), type: z.string() })), rows: z.array(z.array(z.unknown())), truncated: z.boolean(), duration_ms: z.number(), plan: z.unknown().optional() }));

export const AuthUser = name('AuthUser', z.looseObject({ id: Id, email: z.string().optional(), phone: z.string().optional(), created_at: Timestamp, last_sign_in_at: Timestamp.nullable().optional(), banned_until: Timestamp.nullable().optional(), is_anonymous: z.boolean().optional(), user_metadata: Json.optional(), app_metadata: Json.optional(), identities: z.array(Json).optional() }));
export const UsersPage = name('UsersPage', z.object({ users: z.array(AuthUser), total: z.number(), page: z.number(), per_page: z.number() }));
export const UserDetail = name('UserDetail', z.object({ user: AuthUser, factors: z.array(Json), sessions: z.array(z.looseObject({ id: Id, created_at: nullable(Timestamp), updated_at: nullable(Timestamp), aal: nullable(z.string()), user_agent: nullable(z.string()), ip: nullable(z.string()) })) }));
export const AuthConfig = name('AuthConfig', z.looseObject({ site_url: z.string(), uri_allow_list: z.array(z.string()), disable_signup: z.boolean(), mailer_autoconfirm: z.boolean(), anonymous_users: z.boolean(), password_min_length: z.number(), jwt_expiry: z.number(), smtp: z.boolean(), external: z.record(z.string(), z.boolean()), rate_limits: Json }));
export const Bucket = name('Bucket', z.looseObject({ id: z.string(), name: z.string(), public: z.boolean(), file_size_limit: nullable(z.number()), allowed_mime_types: nullable(z.array(z.string())), created_at: Timestamp, updated_at: Timestamp }));
export const StorageObject = name('StorageObject', z.looseObject({ name: z.string(), id: nullable(z.string()), updated_at: nullable(Timestamp), created_at: nullable(Timestamp), metadata: nullable(Json) }));

/** GET /api/platform/observe/{ref}: /metrics summed up (server/studio/observe.ts). */
export const Observation = name('Observation', z.object({
  at: z.string(),
  surfaces: z.array(z.object({ surface: z.string(), requests: z.number(), client_errors: z.number(), server_errors: z.number(), p50_ms: z.number().nullable(), p95_ms: z.number().nullable(), p99_ms: z.number().nullable() })),
  jobs: z.array(z.object({ task: z.string(), queued: z.number(), oldest_due_s: z.number() })),
  runs: z.array(z.object({ kind: z.string(), status: z.string(), count: z.number() })),
  realtime: z.object({ connections: z.number(), channels: z.number() }),
  models: z.array(z.object({ provider: z.string(), model: z.string(), kind: z.string(), outcome: z.string(), calls: z.number() })),
}));
