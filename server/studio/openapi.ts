// The OpenAPI 3.1 document of the control plane (/api/platform), built from
// the routes' own zod schemas as /api's is (server/openapi/document.ts). The
// Studio's typed client is generated from it (studio/src/api/platform/,
// `npm run openapi`), and a test holds it to the routes really mounted.
import { z } from 'zod';
import { documentOf, type DocumentDef } from '../openapi/document.ts';
import { family, json, type Operation } from '../openapi/operation.ts';
import { AcceptInviteBody, AuditQuery, InviteBody, SetupBody, SignInBody } from './account.ts';
import { AddColumnBody, AlterColumnBody, AlterTableBody, CreateTableBody, CronJobBody, CronJobPatch, DropBody, ExtensionBody, PolicyBody, PreviewOnly, QueueBody } from './changes.ts';
import { SchemaQuery, TableIdsQuery, TablesQuery } from './meta.ts';
import { QueryBody } from './query.ts';
import { DeleteRows, ExportQuery, InsertRows, RowsQuery, UpdateRow } from './rows.ts';
import * as S from './schemas.ts';
import { SnippetBody, SnippetPatch } from './snippets.ts';
import { ApiKeysQuery, LegacyKeysBody, NewApiKeyBody } from './api-keys.ts';
import { NewSigningKeyBody, SigningKeyStatusBody } from './signing-keys.ts';
import { ClientRegistration } from '../auth/oauth-clients.ts';
import { CreateUserBody, InviteUserBody, UpdateUserBody, UsersQuery } from './users.ts';

// One tag per concept: the Studio's client types are a file per tag (server/cli/studio-types.ts).
const studio = family({ tag: 'Operators', errorBody: 'platform', access: 'operator' });
const signIn = family({ tag: 'Sign-in', errorBody: 'platform', access: 'operator' });
const open = family({ tag: 'Sign-in', errorBody: 'platform', access: 'none' });
const snippets = family({ tag: 'Snippets', errorBody: 'platform', access: 'operator' });
const db = family({ tag: 'Database', errorBody: 'platform', access: 'operator' });
const extensions = family({ tag: 'Extensions', errorBody: 'platform', access: 'operator' });
const cron = family({ tag: 'Cron', errorBody: 'platform', access: 'operator' });
const queues = family({ tag: 'Queues', errorBody: 'platform', access: 'operator' });
const tables = family({ tag: 'Tables', errorBody: 'platform', access: 'operator' });
const table = family({ tag: 'Table', errorBody: 'platform', access: 'operator' });
const schemaObjects = family({ tag: 'Schema objects', errorBody: 'platform', access: 'operator' });
const objectActions = family({ tag: 'Object actions', errorBody: 'platform', access: 'operator' });
const columns = family({ tag: 'Columns', errorBody: 'platform', access: 'operator' });
const policies = family({ tag: 'Policies', errorBody: 'platform', access: 'operator' });
const rows = family({ tag: 'Rows', errorBody: 'platform', access: 'operator' });
const sql = family({ tag: 'SQL', errorBody: 'platform', access: 'operator' });
const users = family({ tag: 'Users', errorBody: 'platform', access: 'operator' });
const auth = family({ tag: 'Authentication', errorBody: 'platform', access: 'operator' });
const apiKeys = family({ tag: 'API keys', errorBody: 'platform', access: 'operator' });
const signingKeys = family({ tag: 'Signing keys', errorBody: 'platform', access: 'operator' });
const oauthApps = family({ tag: 'OAuth apps', errorBody: 'platform', access: 'operator' });
const buckets = family({ tag: 'Buckets', errorBody: 'platform', access: 'operator' });
const storage = family({ tag: 'Objects', errorBody: 'platform', access: 'operator' });
const SigningKey = z.object({
  id: z.string(), algorithm: z.enum(['HS256', 'ES256', 'RS256']), status: z.enum(['standby', 'in_use', 'previously_used', 'revoked']),
  public_jwk: z.record(z.string(), z.unknown()).nullable(), created_at: z.string(), updated_at: z.string(),
});
const ApiKey = z.object({ id: z.string(), name: z.string(), type: z.enum(['publishable', 'secret']), shown: z.string(), api_key: z.string().nullable(), created_at: z.string() });
const OAuthClient = z.object({
  client_id: z.string(), client_name: z.string().optional(), client_type: z.enum(['public', 'confidential']), token_endpoint_auth_method: z.string(),
  registration_type: z.enum(['dynamic', 'manual']), redirect_uris: z.array(z.string()), grant_types: z.array(z.string()), response_types: z.array(z.string()),
  client_uri: z.string().optional(), logo_uri: z.string().optional(), scope: z.string(), created_at: z.string(), updated_at: z.string(),
  client_secret: z.string().optional().describe('only when made or regenerated'),
});
const observe = family({ tag: 'Observe', errorBody: 'platform', access: 'operator' });

const REF = { ref: 'The project ref (PROJECT_REF)' };
const TABLE = { ...REF, id: 'A table id (its oid, as listed)' };
const COLUMN = { ...TABLE, name: 'A column name' };
const POLICY = { ...TABLE, name: 'A policy name' };
const Ok = (key: string) => z.object({ [key]: z.boolean() });
const meta = (path: string) => `/api/platform/pg-meta/{ref}${path}`;
const change = (summary: string) => `${summary}: answers the SQL it runs; with preview, only the SQL`;

export const PLATFORM_OPERATIONS: Operation[] = [
  open.get('/api/platform/studio/state', 'What the Studio needs to start: setup needed, the operator and CSRF token, the project', { operationId: 'studioState', answers: [json(200, 'The state', S.StudioState)] }),
  open.post('/api/platform/studio/setup', 'The first operator, through the one-time setup link; signs in', { operationId: 'setup', body: SetupBody, answers: [json(200, 'Signed in (a session cookie is set)', S.StudioState)], errors: [400, 403] }),
  open.post('/api/platform/studio/sign-in', 'Sign in: a session cookie', { operationId: 'signIn', body: SignInBody, answers: [json(200, 'Signed in (a session cookie is set)', S.StudioState)], errors: [400, 401, 429] }),
  open.post('/api/platform/studio/invites/accept', 'Accept an invite with a password; signs in', { operationId: 'acceptInvite', body: AcceptInviteBody, answers: [json(200, 'Signed in (a session cookie is set)', S.StudioState)], errors: [400, 403] }),
  signIn.post('/api/platform/studio/sign-out', 'Sign out: the session ends in the database', { operationId: 'signOut', answers: [json(200, 'Signed out', Ok('signed_out'))], errors: [400] }),
  studio.get('/api/platform/studio/operators', 'The operators', { operationId: 'listOperators', answers: [json(200, 'Operators', z.array(S.OperatorRow))] }),
  studio.post('/api/platform/studio/invites', 'Invite an operator: a link that works once, for 7 days (e-mailed with SMTP_URL)', { operationId: 'inviteOperator', body: InviteBody, answers: [json(201, 'The invite, its link shown once', S.Invite)], errors: [400, 409] }),
  studio.get('/api/platform/studio/audit', 'The audit log, newest first', { operationId: 'auditLog', query: AuditQuery, answers: [json(200, 'Entries', z.array(S.AuditEntry))] }),
  snippets.get('/api/platform/studio/snippets', 'Your saved SQL snippets', { operationId: 'listSnippets', answers: [json(200, 'Snippets', z.array(S.Snippet))] }),
  snippets.post('/api/platform/studio/snippets', 'Save a snippet', { operationId: 'createSnippet', body: SnippetBody, answers: [json(201, 'Saved', S.Snippet)], errors: [400] }),
  snippets.patch('/api/platform/studio/snippets/{id}', 'Change a snippet', { operationId: 'updateSnippet', body: SnippetPatch, answers: [json(200, 'Changed', S.Snippet)], errors: [400, 404] }),
  snippets.delete('/api/platform/studio/snippets/{id}', 'Delete a snippet', { operationId: 'deleteSnippet', answers: [json(200, 'Deleted', Ok('deleted'))], errors: [404] }),
  snippets.get('/api/platform/studio/history', 'What you ran in the SQL editor, newest first', { operationId: 'queryHistory', answers: [json(200, 'Runs', z.array(S.HistoryEntry))] }),

  db.get(meta('/schemas'), 'Schemas', { operationId: 'listSchemas', pathText: REF, answers: [json(200, 'Schemas', z.array(S.Schema))] }),
  tables.get(meta('/tables'), 'Tables, with their row estimates, keys, relationships and (with include_columns) columns', { operationId: 'listTables', pathText: REF, query: TablesQuery, answers: [json(200, 'Tables', z.array(S.Table))], errors: [400] }),
  table.get(meta('/tables/{id}'), 'A table with its columns', { operationId: 'getTable', pathText: TABLE, answers: [json(200, 'The table', S.Table)], errors: [404] }),
  columns.get(meta('/columns'), 'Columns of tables', { operationId: 'listColumns', pathText: REF, query: TableIdsQuery, answers: [json(200, 'Columns', z.array(S.Column))], errors: [400] }),
  schemaObjects.get(meta('/policies'), 'Row level security policies', { operationId: 'listPolicies', pathText: REF, query: TableIdsQuery, answers: [json(200, 'Policies', z.array(S.Policy))], errors: [400] }),
  schemaObjects.get(meta('/indexes'), 'Indexes', { operationId: 'listIndexes', pathText: REF, query: TableIdsQuery, answers: [json(200, 'Indexes', z.array(S.Index))], errors: [400] }),
  schemaObjects.get(meta('/triggers'), 'Triggers', { operationId: 'listTriggers', pathText: REF, query: TableIdsQuery, answers: [json(200, 'Triggers', z.array(S.Trigger))], errors: [400] }),
  schemaObjects.get(meta('/functions'), 'Functions, with their source', { operationId: 'listFunctions', pathText: REF, query: SchemaQuery, answers: [json(200, 'Functions', z.array(S.DbFunction))], errors: [400] }),
  db.get(meta('/roles'), 'Roles', { operationId: 'listRoles', pathText: REF, answers: [json(200, 'Roles', z.array(S.Role))] }),
  extensions.get(meta('/extensions'), 'Extensions available and enabled', { operationId: 'listExtensions', pathText: REF, answers: [json(200, 'Extensions', z.array(S.Extension))] }),
  db.get(meta('/publications'), 'Publications', { operationId: 'listPublications', pathText: REF, answers: [json(200, 'Publications', z.array(S.Publication))] }),
  db.get(meta('/migrations'), 'Migrations applied (the platform\'s and yours)', { operationId: 'listMigrations', pathText: REF, answers: [json(200, 'Migrations', z.array(S.Migration))] }),
  db.get(meta('/advisors'), 'Lints with their fixes', { operationId: 'listAdvisors', pathText: REF, answers: [json(200, 'Advisors', z.array(S.Advisor))] }),
  policies.get(meta('/tables/{id}/policy-templates'), 'Policies to start from, for this table', { operationId: 'policyTemplates', pathText: TABLE, answers: [json(200, 'Templates', z.array(S.PolicyTemplate))], errors: [404] }),
  tables.post(meta('/tables'), change('Create a table'), { operationId: 'createTable', pathText: REF, body: CreateTableBody, answers: [json(200, 'The SQL', S.ChangeAnswer)], errors: [400, 409] }),
  table.patch(meta('/tables/{id}'), change('Rename a table, change its comment, row level security or realtime'), { operationId: 'alterTable', pathText: TABLE, body: AlterTableBody, answers: [json(200, 'The SQL', S.ChangeAnswer)], errors: [400, 404] }),
  table.delete(meta('/tables/{id}'), change('Drop a table'), { operationId: 'dropTable', pathText: TABLE, body: DropBody, bodyOptional: true, answers: [json(200, 'The SQL', S.ChangeAnswer)], errors: [400, 404] }),
  columns.post(meta('/tables/{id}/columns'), change('Add a column'), { operationId: 'addColumn', pathText: TABLE, body: AddColumnBody, answers: [json(200, 'The SQL', S.ChangeAnswer)], errors: [400, 404] }),
  columns.patch(meta('/tables/{id}/columns/{name}'), change('Change a column'), { operationId: 'alterColumn', pathText: COLUMN, body: AlterColumnBody, answers: [json(200, 'The SQL', S.ChangeAnswer)], errors: [400, 404] }),
  columns.delete(meta('/tables/{id}/columns/{name}'), change('Drop a column'), { operationId: 'dropColumn', pathText: COLUMN, body: PreviewOnly, bodyOptional: true, answers: [json(200, 'The SQL', S.ChangeAnswer)], errors: [400, 404] }),
  policies.post(meta('/tables/{id}/policies'), change('Create a policy'), { operationId: 'createPolicy', pathText: TABLE, body: PolicyBody, answers: [json(200, 'The SQL', S.ChangeAnswer)], errors: [400, 404] }),
  policies.put(meta('/tables/{id}/policies/{name}'), change('Replace a policy'), { operationId: 'replacePolicy', pathText: POLICY, body: PolicyBody, answers: [json(200, 'The SQL', S.ChangeAnswer)], errors: [400, 404] }),
  policies.delete(meta('/tables/{id}/policies/{name}'), change('Drop a policy'), { operationId: 'dropPolicy', pathText: POLICY, body: PreviewOnly, bodyOptional: true, answers: [json(200, 'The SQL', S.ChangeAnswer)], errors: [404] }),
  extensions.post(meta('/extensions'), change('Enable an extension'), { operationId: 'enableExtension', pathText: REF, body: ExtensionBody, answers: [json(200, 'The SQL', S.ChangeAnswer)], errors: [400, 404] }),
  extensions.delete(meta('/extensions/{name}'), change('Disable an extension'), { operationId: 'disableExtension', pathText: { ...REF, name: 'An extension name' }, body: PreviewOnly, bodyOptional: true, answers: [json(200, 'The SQL', S.ChangeAnswer)], errors: [400, 404] }),
  cron.get(meta('/cron/jobs'), 'Cron jobs, each with its last run', { operationId: 'listCronJobs', pathText: REF, answers: [json(200, 'Jobs', z.array(S.CronJob))] }),
  cron.get(meta('/cron/jobs/{id}/runs'), 'A cron job\'s runs, newest first', { operationId: 'listCronJobRuns', pathText: { ...REF, id: 'A cron job id' }, answers: [json(200, 'Runs', z.array(S.CronJobRun))], errors: [404] }),
  cron.post(meta('/cron/jobs'), change('Schedule a cron job (cron.schedule)'), { operationId: 'scheduleCronJob', pathText: REF, body: CronJobBody, answers: [json(200, 'The SQL', S.ChangeAnswer)], errors: [400] }),
  cron.patch(meta('/cron/jobs/{id}'), change('Change a cron job\'s schedule, command or activity (cron.alter_job)'), { operationId: 'alterCronJob', pathText: { ...REF, id: 'A cron job id' }, body: CronJobPatch, answers: [json(200, 'The SQL', S.ChangeAnswer)], errors: [400, 404] }),
  cron.delete(meta('/cron/jobs/{id}'), change('Unschedule a cron job'), { operationId: 'unscheduleCronJob', pathText: { ...REF, id: 'A cron job id' }, body: PreviewOnly, bodyOptional: true, answers: [json(200, 'The SQL', S.ChangeAnswer)], errors: [404] }),
  queues.get(meta('/queues'), 'Queues with their metrics', { operationId: 'listQueues', pathText: REF, answers: [json(200, 'Queues', z.array(S.Queue))] }),
  queues.post(meta('/queues'), change('Create a queue (pgmq.create)'), { operationId: 'createQueue', pathText: REF, body: QueueBody, answers: [json(200, 'The SQL', S.ChangeAnswer)], errors: [400] }),
  queues.post(meta('/queues/{name}/purge'), change('Delete every message of a queue'), { operationId: 'purgeQueue', pathText: { ...REF, name: 'A queue name' }, body: PreviewOnly, bodyOptional: true, answers: [json(200, 'The SQL', S.ChangeAnswer)], errors: [404] }),
  queues.delete(meta('/queues/{name}'), change('Drop a queue and its archive'), { operationId: 'dropQueue', pathText: { ...REF, name: 'A queue name' }, body: PreviewOnly, bodyOptional: true, answers: [json(200, 'The SQL', S.ChangeAnswer)], errors: [404] }),
  rows.post(meta('/tables/{id}/rows/query'), 'A page of rows: filters, order, keyset or offset', { operationId: 'queryRows', pathText: TABLE, body: RowsQuery, answers: [json(200, 'The page', S.RowsPage)], errors: [400, 404] }),
  rows.post(meta('/tables/{id}/rows'), 'Insert rows (every row with the same columns)', { operationId: 'insertRows', pathText: TABLE, body: InsertRows, answers: [json(201, 'The rows inserted', z.array(z.record(z.string(), z.unknown())))], errors: [400, 404, 409] }),
  rows.patch(meta('/tables/{id}/rows'), 'Change one row by its primary key', { operationId: 'updateRow', pathText: TABLE, body: UpdateRow, answers: [json(200, 'The row', z.record(z.string(), z.unknown()))], errors: [400, 404, 409] }),
  rows.delete(meta('/tables/{id}/rows'), 'Delete rows by their primary keys', { operationId: 'deleteRows', pathText: TABLE, body: DeleteRows, answers: [json(200, 'How many', z.object({ deleted: z.number() }))], errors: [400, 404, 409] }),
  rows.get(meta('/tables/{id}/rows/export'), 'Every row the filters match, as CSV or JSON', { operationId: 'exportRows', pathText: TABLE, query: ExportQuery, answers: [{ status: 200, description: 'The rows, streamed', bytes: 'text/csv' }], errors: [400, 404] }),
  sql.post(meta('/query'), 'Run SQL as the admin login (the SQL editor); at most 10,000 rows of the last result', { operationId: 'runQuery', pathText: REF, body: QueryBody, answers: [json(200, 'The last statement\'s result, or the plan', S.QueryAnswer)], errors: [400] }),
  sql.post(meta('/query/{run_id}/cancel'), 'Cancel a running query', { operationId: 'cancelQuery', pathText: REF, answers: [json(200, 'Whether one was cancelled', Ok('cancelled'))] }),

  users.get('/api/platform/auth/{ref}/users', 'A page of users; search by e-mail, phone or id', { operationId: 'listUsers', pathText: REF, query: UsersQuery, answers: [json(200, 'Users', S.UsersPage)], errors: [400] }),
  users.post('/api/platform/auth/{ref}/users', 'Create a confirmed user', { operationId: 'createUser', pathText: REF, body: CreateUserBody, answers: [json(201, 'The user', S.AuthUser)], errors: [400, 422] }),
  users.get('/api/platform/auth/{ref}/users/{id}', 'A user with MFA factors and sessions', { operationId: 'getUser', pathText: REF, answers: [json(200, 'The user', S.UserDetail)], errors: [400, 404] }),
  users.put('/api/platform/auth/{ref}/users/{id}', 'Change a user: ban for a duration, metadata, e-mail, password', { operationId: 'updateUser', pathText: REF, body: UpdateUserBody, answers: [json(200, 'The user', S.AuthUser)], errors: [400, 404] }),
  users.delete('/api/platform/auth/{ref}/users/{id}', 'Delete a user', { operationId: 'deleteUser', pathText: REF, answers: [json(200, 'Deleted', Ok('deleted'))], errors: [400, 404] }),
  auth.post('/api/platform/auth/{ref}/users/{id}/magic-link', 'E-mail the user a magic link', { operationId: 'sendMagicLink', pathText: REF, answers: [json(200, 'Sent', z.object({ sent: z.boolean(), email: z.string(), via: z.string() }))], errors: [400] }),
  auth.post('/api/platform/auth/{ref}/users/{id}/recovery', 'E-mail the user a password recovery', { operationId: 'sendRecovery', pathText: REF, answers: [json(200, 'Sent', z.object({ sent: z.boolean(), email: z.string(), via: z.string() }))], errors: [400] }),
  auth.post('/api/platform/auth/{ref}/invite', 'Invite a user by e-mail', { operationId: 'inviteUser', pathText: REF, body: InviteUserBody, answers: [json(201, 'The invited user', S.AuthUser)], errors: [400, 422] }),
  observe.get('/api/platform/observe/{ref}', 'What /metrics says, summed up: requests, errors and latency per surface, jobs, runs, realtime, model calls', { operationId: 'observe', pathText: REF, answers: [json(200, 'The figures now (counters since this process started)', S.Observation)] }),
  signingKeys.get('/api/platform/auth/{ref}/signing-keys', 'The project\'s signing keys: in use, standby, previously used, revoked (no private part)', { operationId: 'listSigningKeys', pathText: REF, answers: [json(200, 'The set', z.object({ keys: z.array(SigningKey) }))] }),
  signingKeys.post('/api/platform/auth/{ref}/signing-keys', 'A new standby signing key (published in the JWKS at once, signing nothing until made in use)', { operationId: 'addSigningKey', pathText: REF, body: NewSigningKeyBody, bodyOptional: true, answers: [json(201, 'The key', SigningKey)], errors: [400] }),
  signingKeys.patch('/api/platform/auth/{ref}/signing-keys/{id}', 'Make a key in use (the one in use becomes previously used) or revoke a previously used one (its tokens stop at once)', { operationId: 'setSigningKeyStatus', pathText: { ...REF, id: 'The key id (its kid)' }, body: SigningKeyStatusBody, answers: [json(200, 'The key', SigningKey)], errors: [400, 404, 409] }),
  signingKeys.delete('/api/platform/auth/{ref}/signing-keys/{id}', 'Delete a standby or revoked key', { operationId: 'deleteSigningKey', pathText: { ...REF, id: 'The key id (its kid)' }, answers: [json(200, 'Deleted', z.object({ id: z.string() }))], errors: [404, 409] }),
  apiKeys.get('/api/platform/auth/{ref}/api-keys', 'The publishable and secret API keys (reveal=true: the keys themselves)', { operationId: 'listApiKeys', pathText: REF, query: ApiKeysQuery, answers: [json(200, 'The keys', z.array(ApiKey))], errors: [400] }),
  apiKeys.post('/api/platform/auth/{ref}/api-keys', 'A new publishable or secret API key, answered in full', { operationId: 'createApiKey', pathText: REF, body: NewApiKeyBody, answers: [json(201, 'The key', z.object({ id: z.string(), name: z.string(), type: z.string(), api_key: z.string(), created_at: z.string() }))], errors: [400, 409] }),
  apiKeys.delete('/api/platform/auth/{ref}/api-keys/{id}', 'Delete (revoke) an API key: it stops working on every server at once', { operationId: 'deleteApiKey', pathText: { ...REF, id: 'The key id' }, answers: [json(200, 'Deleted', z.object({ id: z.string() }))], errors: [404, 409] }),
  apiKeys.get('/api/platform/auth/{ref}/api-keys/legacy', 'Whether the legacy JWT anon and service_role keys work', { operationId: 'getLegacyApiKeys', pathText: REF, answers: [json(200, 'The switch', z.object({ enabled: z.boolean() }))] }),
  oauthApps.get('/api/platform/auth/{ref}/oauth-clients', 'The OAuth server\'s clients, newest first (registered here or dynamically)', { operationId: 'listOAuthClients', pathText: REF, answers: [json(200, 'The clients', z.array(OAuthClient))] }),
  oauthApps.post('/api/platform/auth/{ref}/oauth-clients', 'Register an OAuth client; a confidential one\'s secret is answered once', { operationId: 'createOAuthClient', pathText: REF, body: ClientRegistration, answers: [json(201, 'The client', OAuthClient)], errors: [400] }),
  oauthApps.post('/api/platform/auth/{ref}/oauth-clients/{id}/regenerate-secret', 'A confidential client\'s new secret (the old one stops at once)', { operationId: 'regenerateOAuthClientSecret', pathText: { ...REF, id: 'The client id' }, answers: [json(200, 'The client with its new secret', OAuthClient)], errors: [400, 404] }),
  oauthApps.delete('/api/platform/auth/{ref}/oauth-clients/{id}', 'Delete an OAuth client: its sessions, consents and pending requests end with it', { operationId: 'deleteOAuthClient', pathText: { ...REF, id: 'The client id' }, answers: [json(200, 'Deleted', z.object({ id: z.string() }))], errors: [400, 404] }),
  apiKeys.put('/api/platform/auth/{ref}/api-keys/legacy', 'Turn the legacy JWT anon and service_role keys on or off (off needs a publishable and a secret key)', { operationId: 'setLegacyApiKeys', pathText: REF, body: LegacyKeysBody, answers: [json(200, 'The switch', z.object({ enabled: z.boolean() }))], errors: [400, 409] }),
  auth.get('/api/platform/auth/{ref}/config', 'The identity settings in force (configuration: read-only)', { operationId: 'authConfig', pathText: REF, answers: [json(200, 'Settings', S.AuthConfig)] }),

  buckets.get('/api/platform/storage/{ref}/buckets', 'The project\'s buckets (spec 4.2)', { operationId: 'listBucketsPlatform', pathText: REF, answers: [json(200, 'Buckets', z.array(S.Bucket))] }),
  storage.post('/api/platform/storage/{ref}/object/{bucket}/{path}', 'An operator\'s upload (spec 4.2): multipart, the file in field file, as the service role', { operationId: 'uploadPlatform', pathText: { ...REF, bucket: 'A bucket id', path: 'The object\'s name' }, multipart: z.object({ file: z.string().meta({ format: 'binary' }) }), answers: [json(200, 'Stored', z.looseObject({ Id: z.string(), Key: z.string() }))], errors: [400, 404, 409, 413] }),
  buckets.get('/api/platform/storage/{ref}/v1/bucket', 'Buckets, through the Storage API as the service role', { operationId: 'listBuckets', pathText: REF, answers: [json(200, 'Buckets', z.array(S.Bucket))] }),
  buckets.post('/api/platform/storage/{ref}/v1/bucket', 'Create a bucket', { operationId: 'createBucket', pathText: REF, body: z.looseObject({ name: z.string(), public: z.boolean().optional(), file_size_limit: z.union([z.number(), z.string()]).nullish(), allowed_mime_types: z.array(z.string()).nullish() }), answers: [json(200, 'Created', z.looseObject({ name: z.string() }))], errors: [400, 409] }),
  buckets.put('/api/platform/storage/{ref}/v1/bucket/{id}', 'Change a bucket', { operationId: 'updateBucket', pathText: { ...REF, id: 'A bucket id' }, body: z.looseObject({ public: z.boolean().optional(), file_size_limit: z.union([z.number(), z.string()]).nullish(), allowed_mime_types: z.array(z.string()).nullish() }), answers: [json(200, 'Changed', z.looseObject({ message: z.string() }))], errors: [400, 404] }),
  buckets.post('/api/platform/storage/{ref}/v1/bucket/{id}/empty', 'Empty a bucket', { operationId: 'emptyBucket', pathText: { ...REF, id: 'A bucket id' }, answers: [json(200, 'Emptied', z.looseObject({ message: z.string() }))], errors: [404] }),
  buckets.delete('/api/platform/storage/{ref}/v1/bucket/{id}', 'Delete an empty bucket', { operationId: 'deleteBucket', pathText: { ...REF, id: 'A bucket id' }, answers: [json(200, 'Deleted', z.looseObject({ message: z.string() }))], errors: [404, 409] }),
  storage.post('/api/platform/storage/{ref}/v1/object/list/{bucket}', 'One level of a bucket under a prefix', { operationId: 'listObjects', pathText: { ...REF, bucket: 'A bucket id' }, body: z.looseObject({ prefix: z.string().optional(), limit: z.number().optional(), offset: z.number().optional(), search: z.string().optional(), sortBy: z.looseObject({ column: z.string(), order: z.string() }).optional() }), answers: [json(200, 'Objects and folders', z.array(S.StorageObject))], errors: [400, 404] }),
  objectActions.post('/api/platform/storage/{ref}/v1/object/move', 'Move or rename an object', { operationId: 'moveObject', pathText: REF, body: z.looseObject({ bucketId: z.string(), sourceKey: z.string(), destinationKey: z.string() }), answers: [json(200, 'Moved', z.looseObject({ message: z.string() }))], errors: [400, 404, 409] }),
  objectActions.post('/api/platform/storage/{ref}/v1/object/copy', 'Copy an object', { operationId: 'copyObject', pathText: REF, body: z.looseObject({ bucketId: z.string(), sourceKey: z.string(), destinationKey: z.string() }), answers: [json(200, 'Copied', z.looseObject({ Key: z.string() }))], errors: [400, 404, 409] }),
  storage.delete('/api/platform/storage/{ref}/v1/object/{bucket}', 'Delete objects', { operationId: 'deleteObjects', pathText: { ...REF, bucket: 'A bucket id' }, body: z.object({ prefixes: z.array(z.string()) }), answers: [json(200, 'The objects deleted', z.array(S.StorageObject))], errors: [400, 404] }),
  objectActions.post('/api/platform/storage/{ref}/v1/object/sign/{bucket}/{path}', 'A signed URL of an object, on the project API', { operationId: 'signObject', pathText: { ...REF, bucket: 'A bucket id', path: 'The object\'s name' }, body: z.object({ expiresIn: z.number() }), answers: [json(200, 'The URL (relative to the project API\'s /storage/v1)', z.looseObject({ signedURL: z.string() }))], errors: [400, 404] }),
  storage.get('/api/platform/storage/{ref}/v1/object/{bucket}/{path}', 'An object\'s bytes (previews and downloads)', { operationId: 'downloadObject', pathText: { ...REF, bucket: 'A bucket id', path: 'The object\'s name' }, answers: [{ status: 200, description: 'The bytes', bytes: 'application/octet-stream' }], errors: [400, 404] }),
];

/** Schemas for the docs' open routes: the document itself. */
const ALWAYS: DocumentDef['always'] = { operator: [401, 403, 500], none: [500] };

let built: Record<string, unknown> | undefined;
export function platformOpenApiDocument(): Record<string, unknown> {
  built ??= documentOf({
    info: {
      title: 'pgbase control plane (/api/platform)', version: '1',
      description: 'The Studio\'s API, and scripts\'. A browser signs in for an HttpOnly session cookie and sends X-CSRF-Token (from GET /api/platform/studio/state) on every change; a script sends a platform token (npm run platform-token) as the Bearer. Project keys are refused.',
    },
    operations: PLATFORM_OPERATIONS,
    tags: [
      { name: 'Sign-in', description: 'An operator\'s session: the Studio\'s state, the first setup, sign-in and out, accepting an invite' },
      { name: 'Operators', description: 'The operators, their invites and the audit log' },
      { name: 'Snippets', description: 'The SQL editor\'s saved snippets and history' },
      { name: 'Database', description: 'The database in supabase/postgres-meta\'s shapes (schemas, roles, publications), migrations and the advisors\' lints' },
      { name: 'Schema objects', description: 'Policies, indexes, triggers and functions, in postgres-meta\'s shapes' },
      { name: 'Extensions', description: 'Extensions available, enabled and disabled' },
      { name: 'Tables', description: 'The tables with their keys and relationships, and a table created (answering its SQL, or previewing it)' },
      { name: 'Table', description: 'One table with its columns: read, changed and dropped (each change answering its SQL, or previewing it)' },
      { name: 'Columns', description: 'A table\'s columns, added, changed and dropped (each change answering its SQL)' },
      { name: 'Policies', description: 'A table\'s row level security policies and the templates to start from' },
      { name: 'Rows', description: 'A table\'s rows: read by keyset pages, inserted, edited, deleted, exported' },
      { name: 'SQL', description: 'The SQL editor: a statement run as the operator chooses, and its cancel' },
      { name: 'Users', description: 'The project\'s users' },
      { name: 'Authentication', description: 'Mail sent to users (magic links, recovery, invites) and the identity settings in force' },
      { name: 'Buckets', description: 'Buckets: the Storage API as the service role' },
      { name: 'Objects', description: 'Objects uploaded, listed, read and deleted: an operator\'s upload, and the Storage API as the service role' },
      { name: 'Object actions', description: 'Objects moved, copied and signed, through the Storage API as the service role' },
      { name: 'Observe', description: 'The server\'s figures from /metrics, for an operator without Prometheus' },
    ],
    named: S.NAMED,
    security: { operator: [{ session: [] }, { platformToken: [] }], none: [] },
    always: ALWAYS,
    errorSchemaOf: () => 'PlatformError',
    securitySchemes: {
      session: { type: 'apiKey', in: 'cookie', name: 'pgbase_studio', description: 'The Studio session (HttpOnly); changes also need the X-CSRF-Token header' },
      platformToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A platform token (npm run platform-token)' },
    },
  });
  return built;
}
