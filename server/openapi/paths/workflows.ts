// /api/workflows (spec 4.7) and the webhook trigger (4.8).
import { z } from 'zod';
import { CreateWorkflow, UpdateWorkflow, WorkflowPage } from '../../ai/workflows/routes/crud.ts';
import { ExecuteBody, RunEventBody } from '../../ai/workflows/routes/execute.ts';
import { GraphBody } from '../../ai/workflows/routes/graph.ts';
import { AddTrigger } from '../../ai/workflows/routes/triggers.ts';
import { events, family, json, type Operation } from '../operation.ts';
import { EventsQuery } from '../../ai/runs/follow.ts';
import { BlockLog, BlockType, Deleted, Execution, ExecutionDetail, ExecutionResult, Graph, Page, Timestamp, Workflow, WorkflowEvent, WorkflowWithGraph } from '../schemas.ts';

const workflows = family({ tag: 'Workflows', errorBody: 'ai', access: 'project' });
const coded = family({ tag: 'Workflows', errorBody: 'ai_coded', access: 'project' });
/** An event sent to a run: how many of its waits it ended. */
const EventDelivered = z.object({ execution_id: z.string(), event: z.string(), delivered: z.number().int() });
/** A trigger beyond the webhook (sql/0124). */
const Trigger = z.looseObject({ id: z.string(), workflow_id: z.string(), type: z.enum(['schedule', 'row_change', 'queue']), config: z.record(z.string(), z.unknown()), created_at: Timestamp });
const limited = 'At most WORKFLOW_EXECUTIONS_PER_MINUTE (20) executions a minute per caller: 429 beyond.';

export const workflowOperations: Operation[] = [
  workflows.get('/api/workflows', 'List workflows', { operationId: 'listWorkflows', query: WorkflowPage, answers: [json(200, 'A page of workflows', Page(Workflow))], errors: [400] }),
  workflows.post('/api/workflows', 'Create a workflow', { operationId: 'createWorkflow', body: CreateWorkflow, answers: [json(201, 'The workflow, with an empty graph', WorkflowWithGraph)], errors: [400] }),
  workflows.get('/api/workflows/block-types', 'List the block types a graph may use', {
    operationId: 'listBlockTypes', description: 'Each type with its config\'s JSON Schema, examples, aliases and whether a run may start there, in palette order.',
    answers: [json(200, 'Block types', z.array(BlockType))], errors: [],
  }),
  coded.get('/api/workflows/{id}', 'Read a workflow with its blocks and edges', { operationId: 'getWorkflow', answers: [json(200, 'The workflow', WorkflowWithGraph)], errors: [404] }),
  workflows.patch('/api/workflows/{id}', 'Change a workflow\'s name or description', { operationId: 'updateWorkflow', body: UpdateWorkflow, answers: [json(200, 'The workflow', Workflow)], errors: [400, 404] }),
  workflows.delete('/api/workflows/{id}', 'Delete a workflow', { operationId: 'deleteWorkflow', answers: [json(200, 'Deleted', Deleted)], errors: [404] }),
  coded.put('/api/workflows/{id}/graph', 'Replace the graph (blocks and edges)', {
    operationId: 'putWorkflowGraph', description: 'Each block needs id and type (a registered type); each edge source and target, blocks of this graph; no cycles.',
    body: GraphBody, answers: [json(200, 'The saved graph', Graph)], errors: [400, 404],
  }),
  workflows.post('/api/workflows/{id}/deploy', 'Deploy the current graph as a new version', { operationId: 'deployWorkflow', answers: [json(200, 'Deployed', z.object({ deployed: z.literal(true), version: z.number().int(), active_version: z.number().int() }))], errors: [400, 404] }),
  workflows.post('/api/workflows/{id}/undeploy', 'Stop webhook triggering', { operationId: 'undeployWorkflow', answers: [json(200, 'Undeployed', z.object({ deployed: z.literal(false) }))], errors: [404] }),
  workflows.get('/api/workflows/{id}/triggers', 'List the workflow\'s schedule, row-change and queue triggers', { operationId: 'listWorkflowTriggers', answers: [json(200, 'Triggers, oldest first', z.array(Trigger))], errors: [404] }),
  workflows.post('/api/workflows/{id}/triggers', 'Start the workflow on a schedule, a row change or a queue message', {
    operationId: 'addWorkflowTrigger',
    description: 'Runs start only while the workflow is deployed, with its active version, acting as its owner. A schedule is cron syntax in UTC or \'N seconds\' (the workflow\'s owner may add one); row_change (input: {type, table, schema, record, old_record}; condition: a JSON object the change must contain) and queue (a pgmq queue: one run per message, archived when it succeeds, visible again when it fails, dead-lettered after max_attempts) take the service-role key. Each run draws from WORKFLOW_TRIGGERED_RUNS_PER_MINUTE.',
    body: AddTrigger, answers: [json(201, 'The trigger', Trigger)], errors: [400, 403, 404],
  }),
  workflows.delete('/api/workflows/{id}/triggers/{triggerId}', 'Remove a trigger', { operationId: 'removeWorkflowTrigger', pathText: { triggerId: 'The trigger\'s id' }, answers: [json(200, 'Deleted', Deleted)], errors: [404] }),
  workflows.post('/api/workflows/{id}/arm', 'Let the webhook run the draft once, for a short window', { operationId: 'armWorkflow', answers: [json(200, 'Armed', z.object({ ok: z.literal(true), armed_until: Timestamp }))], errors: [400, 404] }),
  workflows.get('/api/workflows/{id}/versions', 'List deployed versions', { operationId: 'listWorkflowVersions', answers: [json(200, 'Versions, newest first', z.array(z.looseObject({ version: z.number().int(), created_at: Timestamp, created_by: z.string().nullable(), blocks: z.number().int(), active: z.boolean() })))], errors: [404] }),
  workflows.get('/api/workflows/{id}/versions/{version}', 'Read a deployed version\'s graph', { operationId: 'getWorkflowVersion', pathText: { version: 'A version number' }, answers: [json(200, 'The version', z.looseObject({ version: z.number().int(), created_at: Timestamp, created_by: z.string().nullable(), active: z.boolean(), graph: Graph }))], errors: [400, 404] }),
  workflows.post('/api/workflows/{id}/versions/{version}/activate', 'Make a deployed version the active one', { operationId: 'activateWorkflowVersion', pathText: { version: 'A version number' }, answers: [json(200, 'Activated', z.object({ active_version: z.number().int() }))], errors: [400, 404] }),
  coded.post('/api/workflows/{id}/execute', 'Run the draft graph', {
    operationId: 'executeWorkflow', description: `The body's variables (or legacy input) are the run's input; mode async queues it (202). ${limited}`,
    body: ExecuteBody, bodyOptional: true,
    answers: [json(200, 'The run\'s result', ExecutionResult), json(202, 'Queued', z.object({ execution_id: z.string(), status: z.literal('queued') }))], errors: [400, 404, 429, 503, 504],
  }),
  coded.post('/api/workflows/{id}/execute/stream', 'Run the draft graph, streaming block events', {
    operationId: 'streamWorkflowExecution', description: `Failures arrive as an event of type error; only a timeout carries error_code EXECUTION_TIMEOUT. ${limited}`,
    body: ExecuteBody, bodyOptional: true, answers: [events('Server-sent events, one JSON object per `data:` line with its number as `id:`; leaving does not stop the run (GET …/executions/{eid}/events picks it up again)', WorkflowEvent)], errors: [400, 404, 429],
  }),
  workflows.get('/api/workflows/{id}/executions', 'List executions, newest first', { operationId: 'listExecutions', answers: [json(200, 'Executions', z.array(Execution))], errors: [404] }),
  workflows.get('/api/workflows/{id}/executions/{eid}', 'Read an execution', { operationId: 'getExecution', answers: [json(200, 'The execution', ExecutionDetail)], errors: [404] }),
  workflows.get('/api/workflows/{id}/executions/{eid}/events', 'Follow an execution: its stored events, then new ones until it ends', {
    operationId: 'followExecution', description: 'With no cursor, from the first event; with `Last-Event-ID: K` (or `?after=K`), exactly the events after K; then new events until the run ends.',
    query: EventsQuery, answers: [events('Server-sent events, each with its `id:` number', WorkflowEvent)], errors: [400, 404],
  }),
  workflows.post('/api/workflows/{id}/executions/{eid}/cancel', 'Cancel a queued or running execution', { operationId: 'cancelExecution', answers: [json(200, 'Whether it was cancelled', z.object({ cancelled: z.boolean(), execution_id: z.string() }))], errors: [404] }),
  coded.post('/api/workflows/{id}/executions/{eid}/events', 'Send an event to a waiting execution', {
    operationId: 'sendExecutionEvent', description: 'Ends every wait block of the run waiting for `event`, with `data` as its output\'s data; a parked run is taken up at once. 409 when no step of the run waits for it.',
    body: RunEventBody, answers: [json(202, 'How many waits it ended', EventDelivered)], errors: [400, 404, 409],
  }),
  workflows.get('/api/workflows/{id}/executions/{eid}/logs', 'Read an execution with its per-block logs', { operationId: 'getExecutionLogs', answers: [json(200, 'The execution and its blocks', z.looseObject({ execution: ExecutionDetail, logs: z.array(BlockLog) }))], errors: [404] }),
];

export const webhookOperations: Operation[] = [
  family({ tag: 'Workflows', errorBody: 'webhook', access: 'webhook' }).post('/api/webhooks/{webhookId}', 'Trigger a deployed (or armed) workflow', {
    operationId: 'triggerWebhook', description: 'No apikey: the webhook secret as `Authorization: Bearer <secret>` or `?token=<secret>`. The JSON body becomes the run\'s variables; the run has 5 minutes.',
    body: z.record(z.string(), z.unknown()), bodyOptional: true,
    answers: [json(200, 'The run\'s result', ExecutionResult)], errors: [400, 403, 404, 503, 504],
  }),
  family({ tag: 'Workflows', errorBody: 'webhook', access: 'webhook' }).post('/api/webhooks/{webhookId}/executions/{eid}/events', 'Send an event to one of the workflow\'s waiting executions', {
    operationId: 'sendWebhookExecutionEvent', description: 'No apikey: the webhook secret as `Authorization: Bearer <secret>` or `?token=<secret>`. As POST /api/workflows/{id}/executions/{eid}/events, for systems outside the project.',
    body: RunEventBody, answers: [json(202, 'How many waits it ended', EventDelivered)], errors: [400, 401, 404, 409],
  }),
];
