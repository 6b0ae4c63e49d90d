// One flow per surface, written only against the client generated from the
// OpenAPI document (openapi-fetch over test/openapi/api.ts): paths, bodies and
// answers are checked by `tsc --strict` (npm test runs it first). The lines
// expecting a type error prove the types bite: were the generated types
// `any`, those directives would be unused and tsc would fail.
import assert from 'node:assert/strict';
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './api.ts';

export type TypedClient = ReturnType<typeof createClient<paths>>;

/** A client with the project key and a Bearer token (a user's, or the service-role key), its answers seen by `check`. */
export function typedClient(baseUrl: string, apikey: string, bearer: string, check: Middleware): TypedClient {
  const client = createClient<paths>({ baseUrl, headers: { apikey, authorization: `Bearer ${bearer}` } });
  client.use(check);
  return client;
}

/** Its data, after asserting the call answered without an error. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  assert.equal(result.error, undefined, `${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data as T;
}

export async function agentFlow(api: TypedClient): Promise<{ agent: string; run: components['schemas']['AgentRunResult'] }> {
  const agent = ok(await api.POST('/api/agents', { body: { name: 'typed', model: 'gpt-4.1-mini', system_prompt: 'Answer briefly.' } }));
  // @ts-expect-error an agent needs a name
  void (() => api.POST('/api/agents', { body: { model: 'gpt-4.1-mini' } }));
  const read = ok(await api.GET('/api/agents/{id}', { params: { path: { id: agent.id } } }));
  assert.equal(read.name, 'typed');
  const run = ok(await api.POST('/api/agents/{id}/run', { params: { path: { id: agent.id } }, body: { message: 'Say hello' } }));
  const record = ok(await api.GET('/api/agents/{id}/runs/{runId}', { params: { path: { id: agent.id, runId: run.run_id } } }));
  assert.equal(record.status, 'completed');
  return { agent: agent.id, run };
}

export async function workflowFlow(api: TypedClient): Promise<{ workflow: string; result: components['schemas']['ExecutionResult'] }> {
  const workflow = ok(await api.POST('/api/workflows', { body: { name: 'typed greeting' } }));
  const path = { id: workflow.id };
  const graph = ok(await api.PUT('/api/workflows/{id}/graph', {
    params: { path },
    body: { blocks: [{ id: 'start', type: 'starter' }, { id: 'out', type: 'response', config: { output: { greeting: 'Hello <start.name>!' } } }], edges: [{ source: 'start', target: 'out' }] },
  }));
  assert.equal(graph.blocks.length, 2);
  // @ts-expect-error variables is an object, not a string
  void (() => api.POST('/api/workflows/{id}/execute', { params: { path }, body: { variables: 'Ada' } }));
  const result = ok(await api.POST('/api/workflows/{id}/execute', { params: { path }, body: { variables: { name: 'Ada' } } }));
  // 200 is the result, 202 a queued run (mode async): the type says either.
  assert.ok('output' in result, 'a synchronous run answers its output');
  const history = ok(await api.GET('/api/workflows/{id}/executions', { params: { path } }));
  assert.deepEqual(history.map((e) => e.id), [result.execution_id]);
  return { workflow: workflow.id, result };
}

export async function knowledgeFlow(api: TypedClient): Promise<{ source: string; kb: string; results: components['schemas']['SearchAnswer']['results'] }> {
  const text = '# Rockets\n\nLiquid-fuel rockets burn kerosene with liquid oxygen.';
  // The form's `file` is typed as a string (format binary): the text is sent as the file's bytes.
  const source = ok(await api.POST('/api/sources/upload', {
    body: { file: text, metadata: JSON.stringify({ topic: 'space' }) },
    bodySerializer: (body) => {
      const form = new FormData();
      form.append('metadata', body.metadata ?? '{}');
      form.append('file', new Blob([body.file]), 'rockets.md');
      return form;
    },
  }));
  // Extraction is the worker's: it may have begun by the time the answer is written.
  assert.ok(['pending', 'extracting', 'extracted'].includes(source.extraction_status), source.extraction_status);
  const kb = ok(await api.POST('/api/knowledge-bases', { body: { name: 'typed kb' } }));
  const path = { id: kb.id };
  ok(await api.POST('/api/knowledge-bases/{id}/sources', { params: { path }, body: { source_id: source.id } }));
  for (let i = 0; ; i++) {
    const entries = ok(await api.GET('/api/knowledge-bases/{id}/sources', { params: { path, query: { limit: '10' } } }));
    const state = entries.items[0]?.index_status;
    if (state === 'indexed') break;
    assert.ok(state !== 'failed' && i < 600, `indexing ended ${state}: ${entries.items[0]?.error_message}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const answer = ok(await api.POST('/api/knowledge-bases/{id}/search', { params: { path }, body: { query: 'What do rockets burn?', top_k: 3 } }));
  assert.equal(answer.knowledge_base_id, kb.id);
  return { source: source.id, kb: kb.id, results: answer.results };
}

/** Its error body, after asserting the call failed with `status`. */
function failed(result: { error?: unknown; response: Response }, status: number): unknown {
  assert.equal(result.response.status, status, JSON.stringify(result.error));
  return result.error;
}

/** Reads and writes across the surfaces, so the conformance check sees their answers (a session from an agent run, a source, a knowledge base). */
export async function surveyFlow(api: TypedClient, ids: { agent: string; run: string; session: string; workflow: string; execution: string; source: string; kb: string }): Promise<void> {
  const agent = { id: ids.agent };
  ok(await api.GET('/api/agents'));
  ok(await api.POST('/api/agents/{id}/tools', { params: { path: agent }, body: { tool_name: 'code_execute' } }));
  ok(await api.GET('/api/agents/{id}/tools', { params: { path: agent } }));
  ok(await api.POST('/api/agents/{id}/hooks', { params: { path: agent }, body: { event: 'OnRunStart', type: 'rule', config: { condition: 'true' } } }));
  ok(await api.GET('/api/agents/{id}/hooks', { params: { path: agent } }));
  ok(await api.POST('/api/agents/{id}/mcp-servers', { params: { path: agent }, body: { name: 'docs', url: 'https://mcp.example.com/mcp', headers: { authorization: 'Bearer x' } } }));
  ok(await api.GET('/api/agents/{id}/mcp-servers', { params: { path: agent } }));
  ok(await api.POST('/api/agents/{id}/knowledge-bases', { params: { path: agent }, body: { knowledge_base_id: ids.kb } }));
  ok(await api.GET('/api/agents/{id}/knowledge-bases', { params: { path: agent } }));
  failed(await api.GET('/api/agents/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } }), 404);
  failed(await api.POST('/api/agents', { body: { name: '' } }), 400);

  const orchestration = ok(await api.POST('/api/orchestrations', { body: { name: 'typed team', strategy: 'coordinator' } }));
  ok(await api.POST('/api/orchestrations/{id}/entities', { params: { path: { id: orchestration.id } }, body: { entity_type: 'agent', entity_ref_id: ids.agent, role_description: 'answers' } }));
  const withEntities = ok(await api.GET('/api/orchestrations/{id}', { params: { path: { id: orchestration.id } } }));
  assert.equal(withEntities.entities.length, 1);
  ok(await api.GET('/api/orchestrations'));

  ok(await api.GET('/api/sessions'));
  ok(await api.GET('/api/sessions/{id}', { params: { path: { id: ids.session } } }));
  ok(await api.GET('/api/sessions/{id}/messages', { params: { path: { id: ids.session } } }));
  ok(await api.GET('/api/sessions/{id}/runs', { params: { path: { id: ids.session } } }));
  ok(await api.GET('/api/sessions/{id}/runs/{runId}/retrieved-context', { params: { path: { id: ids.session, runId: ids.run } } }));

  const workflow = { id: ids.workflow };
  ok(await api.GET('/api/workflows', { params: { query: { limit: 10 } } }));
  ok(await api.GET('/api/workflows/{id}', { params: { path: workflow } }));
  ok(await api.POST('/api/workflows/{id}/deploy', { params: { path: workflow } }));
  ok(await api.GET('/api/workflows/{id}/versions', { params: { path: workflow } }));
  ok(await api.GET('/api/workflows/{id}/executions/{eid}', { params: { path: { ...workflow, eid: ids.execution } } }));
  ok(await api.GET('/api/workflows/{id}/executions/{eid}/logs', { params: { path: { ...workflow, eid: ids.execution } } }));
  failed(await api.PUT('/api/workflows/{id}/graph', { params: { path: workflow }, body: { blocks: [{ id: 'x', type: 'teleport' }], edges: [] } }), 400);

  ok(await api.GET('/api/sources'));
  ok(await api.GET('/api/sources/{id}', { params: { path: { id: ids.source } } }));
  ok(await api.GET('/api/knowledge-bases'));
  ok(await api.GET('/api/knowledge-bases/{id}', { params: { path: { id: ids.kb } } }));
  ok(await api.POST('/api/context-handlers', { body: { query: 'rockets', knowledge_bases: [{ id: ids.kb, top_k: 2 }] } }));
  ok(await api.GET('/api/context-handlers'));
  ok(await api.GET('/api/config/kb-defaults'));

  const tool = ok(await api.POST('/api/tools', { body: { name: 'weather', description: 'The weather', type: 'http', input_schema: { type: 'object' }, config: { endpoint: 'https://weather.example.com' } } }));
  ok(await api.GET('/api/tools/{id}', { params: { path: { id: tool.id! } } }));
  ok(await api.GET('/api/tools'));
  ok(await api.GET('/api/settings'));
  ok(await api.GET('/api/ai-provider-keys'));
  ok(await api.GET('/api/ai-provider-keys/platform_supported'));
  ok(await api.GET('/api/usage'));
  ok(await api.GET('/api/v1/models'));
  failed(await api.PUT('/api/settings', { body: { settings: { COPILOT_TEMPERATURE: '0.5' } } }), 403);
}

/** Streams, the other run kinds and the clients' surfaces, then deletes: their answers too go through the conformance check. */
export async function moreFlow(api: TypedClient, ids: { agent: string; workflow: string; source: string; kb: string }): Promise<void> {
  const agent = { id: ids.agent };
  const stream = await api.POST('/api/agents/{id}/run/stream', { params: { path: agent }, body: { message: 'Stream please' }, parseAs: 'text' });
  const streamed = ok(stream);
  assert.match(streamed, /"type":"complete"/);
  // The run's numbered events again, after its first, and its cancel once it has ended.
  const runId = /"run_id":"([0-9a-f-]{36})"/.exec(streamed)![1]!;
  const runPath = { ...agent, runId };
  assert.match(String(ok(await api.GET('/api/agents/{id}/runs/{runId}/events', { params: { path: runPath, query: { after: '1' } }, parseAs: 'text' }))), /^id: 2$/m);
  assert.deepEqual(ok(await api.POST('/api/agents/{id}/runs/{runId}/cancel', { params: { path: runPath } })), { cancelled: false, run_id: runId });
  const workflow = { id: ids.workflow };
  const executed = ok(await api.POST('/api/workflows/{id}/execute/stream', { params: { path: workflow }, body: { variables: { name: 'Bo' } }, parseAs: 'text' }));
  assert.match(executed, /"type":"run_completed"/);
  const eid = /"execution_id":"([0-9a-f-]{36})"/.exec(executed)![1]!;
  assert.match(String(ok(await api.GET('/api/workflows/{id}/executions/{eid}/events', { params: { path: { ...workflow, eid } }, parseAs: 'text' }))), /"type":"run_completed"/);
  const queued = ok(await api.POST('/api/workflows/{id}/execute', { params: { path: workflow }, body: { variables: { name: 'Cy' }, mode: 'async' } }));
  assert.equal(queued.status, 'queued');
  ok(await api.POST('/api/workflows/{id}/executions/{eid}/cancel', { params: { path: { ...workflow, eid: queued.execution_id } } }));
  ok(await api.POST('/api/workflows/{id}/undeploy', { params: { path: workflow } }));

  const team = ok(await api.POST('/api/orchestrations', { body: { name: 'typed pair' } }));
  const teamRun = ok(await api.POST('/api/orchestrations/{id}/run', { params: { path: { id: team.id } }, body: { message: 'Coordinate' } }));
  ok(await api.GET('/api/orchestrations/runs/{runId}', { params: { path: { runId: teamRun.run_id } } }));
  assert.match(String(ok(await api.GET('/api/orchestrations/runs/{runId}/events', { params: { path: { runId: teamRun.run_id } }, parseAs: 'text' }))), /"type":"complete"/);
  ok(await api.POST('/api/orchestrations/runs/{runId}/cancel', { params: { path: { runId: teamRun.run_id } } }));
  const completion = ok(await api.POST('/api/v1/chat/completions', { body: { model: 'agent/typed', messages: [{ role: 'user', content: 'Hi' }] } }));
  assert.equal(completion.object, 'chat.completion');
  // parseAs text: openapi-fetch answers the body as text, though its type names the JSON one.
  assert.match(String(ok(await api.POST('/api/v1/chat/completions', { body: { model: 'agent/typed', messages: [{ role: 'user', content: 'Hi' }], stream: true }, parseAs: 'text' }))), /data: \[DONE\]/);
  failed(await api.POST('/api/v1/chat/completions', { body: { model: 'agent/nobody', messages: [{ role: 'user', content: 'Hi' }] } }), 404);

  const copilot = ok(await api.POST('/api/copilot/sessions', { body: { workflow_id: ids.workflow } }));
  ok(await api.GET('/api/copilot/sessions', { params: { query: { workflow_id: ids.workflow } } }));
  ok(await api.GET('/api/copilot/sessions/{id}/messages', { params: { path: { id: copilot.id } } }));
  ok(await api.DELETE('/api/copilot/sessions/{id}', { params: { path: { id: copilot.id } } }));

  const kb = { id: ids.kb };
  ok(await api.GET('/api/sources/{id}/page-texts', { params: { path: { id: ids.source } } }));
  ok(await api.POST('/api/knowledge-bases/{id}/items', { params: { path: kb }, body: { source_ids: [ids.source] } }));
  ok(await api.GET('/api/knowledge-bases/{id}/enrichment', { params: { path: kb } }));
  ok(await api.POST('/api/knowledge-bases/{id}/reindex', { params: { path: kb }, body: { failed_only: true } }));

  const tools = ok(await api.GET('/api/agents/{id}/tools', { params: { path: agent } }));
  ok(await api.DELETE('/api/agents/{id}/tools/{assignmentId}', { params: { path: { ...agent, assignmentId: tools[0]!.id } } }));
  const hooks = ok(await api.GET('/api/agents/{id}/hooks', { params: { path: agent } }));
  failed(await api.PUT('/api/agents/{id}/hooks/{hookId}', { params: { path: { ...agent, hookId: hooks[0]!.id } } }), 405);
  ok(await api.DELETE('/api/agents/{id}/hooks/{hookId}', { params: { path: { ...agent, hookId: hooks[0]!.id } } }));
  const servers = ok(await api.GET('/api/agents/{id}/mcp-servers', { params: { path: agent } }));
  ok(await api.PUT('/api/agents/{id}/mcp-servers/{serverId}', { params: { path: { ...agent, serverId: servers[0]!.id } }, body: { enabled: false } }));
  ok(await api.DELETE('/api/agents/{id}/mcp-servers/{serverId}', { params: { path: { ...agent, serverId: servers[0]!.id } } }));
  ok(await api.DELETE('/api/orchestrations/{id}', { params: { path: { id: team.id } } }));
}
