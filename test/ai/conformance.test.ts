// The AI surface where it differed from the spec or a client's expectations
// (AI conformance issue): top-level tuning fields dropped on PATCH too; the
// copilot's tools described by strict schemas a model can call from alone;
// a full_text knowledge base indexed with no model provider, and a clear 400
// when a vector method meets chunks without embeddings; a source's metadata
// kept through indexing (in every item's meta, current after a PATCH,
// filterable); a reranker that answers badly or fails leaves the retrieval
// order and says why, never a 500.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { sseEvents } from '../helpers/sse.ts';
import { eventually } from '../helpers/eventually.ts';

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; additionalProperties?: boolean; items?: Schema; anyOf?: Schema[]; enum?: unknown[] };
type Result = { id: string; text: string; meta: Record<string, unknown>; reranker_score: number | null; score: number; source_name: string };
type Search = { results: [Record<string, any>, ...Result[]] };

/** OpenAI's strict function-calling rules: closed objects, every property required, no free-form objects, supported keywords only. */
function strictProblems(s: Schema, at = 'parameters'): string[] {
  const problems: string[] = [];
  const allowed = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'anyOf', 'enum', 'description']);
  for (const k of Object.keys(s)) if (!allowed.has(k)) problems.push(`${at}: keyword ${k}`);
  if (s.anyOf) s.anyOf.forEach((v, i) => problems.push(...strictProblems(v, `${at}.anyOf[${i}]`)));
  if (s.type === 'object') {
    if (s.additionalProperties !== false) problems.push(`${at}: additionalProperties is not false`);
    const keys = Object.keys(s.properties ?? {});
    if (JSON.stringify([...(s.required ?? [])].sort()) !== JSON.stringify([...keys].sort())) problems.push(`${at}: required is not every property`);
    for (const [k, v] of Object.entries(s.properties ?? {})) problems.push(...strictProblems(v, `${at}.${k}`));
  }
  if (s.type === 'array') problems.push(...(s.items ? strictProblems(s.items, `${at}[]`) : [`${at}: array without items`]));
  if (!s.type && !s.anyOf) problems.push(`${at}: no type`);
  return problems;
}

/** A call built from a schema alone: the first variant of each choice, the first enum value, a placeholder string. */
function example(s: Schema): unknown {
  if (s.anyOf) return example(s.anyOf[0]!);
  if (s.enum) return s.enum[0];
  switch (s.type) {
    case 'object': return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, example(v)]));
    case 'array': return [example(s.items!)];
    case 'string': return 'b1';
    case 'number': return 0;
    case 'integer': return 1;
    case 'boolean': return false;
    default: return null;
  }
}

describe('AI surface conformance', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let ann: string;
  const { api, post, put, patch, json, headers } = aiApi(() => p);
  const search = async (kb: string, body: Record<string, unknown>) => json<Search>(await post(ann, `/knowledge-bases/${kb}/search`, body), 200);
  const upload = async (name: string, text: string, metadata: Record<string, unknown>) => {
    const form = new FormData();
    form.append('file', new Blob([text]), name);
    form.append('metadata', JSON.stringify(metadata));
    const { 'content-type': _json, ...rest } = headers(ann);
    return json<{ id: string }>(await fetch(`${p.url}/api/sources/upload`, { method: 'POST', headers: rest, body: form }), 201);
  };
  const indexed = async (kb: string, count: number) => (await eventually('indexing ending',
    () => api(ann, `/knowledge-bases/${kb}/sources`).then((res) => json<{ items: Array<{ index_status: string; error_message: string | null }> }>(res, 200)),
    (list) => list.items.length === count && list.items.every((s) => !['pending', 'indexing'].includes(s.index_status)), { tries: 300 })).items;

  before(async () => {
    vendor = await startVendorServer();
    p = await startTestPlatform({ ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0' });
    ann = (await signUp(p, 'ann-conformance@example.com')).access_token;
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
  });

  it('drops top-level tuning fields on PATCH as on create: 200, nothing changed; an empty body is still a 400', async () => {
    const agent = await json<{ id: string; settings: Record<string, unknown> }>(await post(ann, '/agents', { name: 'tuned', temperature: 0.9, settings: { temperature: 0.2 } }), 201);
    assert.deepEqual(agent.settings, { temperature: 0.2 });
    for (const body of [{ temperature: 1.5 }, { max_tokens: 10 }, { top_p: 0.1 }]) {
      const res = await json<{ settings: Record<string, unknown> }>(await patch(ann, `/agents/${agent.id}`, body), 200);
      assert.deepEqual(res.settings, { temperature: 0.2 }, JSON.stringify(body));
    }
    assert.equal((await patch(ann, `/agents/${agent.id}`, {})).status, 400);
  });

  it('indexes a full_text knowledge base with no model provider; a vector search then says how to embed', async () => {
    // No provider key is stored yet: the default embedding model cannot be reached.
    const kb = await json<{ id: string }>(await post(ann, '/knowledge-bases', { name: 'offline', retrieval_config: { method: 'full_text' } }), 201);
    const source = await upload('otters.txt', 'Otters hold hands while they sleep so they do not drift apart.', { team: 'blue' });
    await json(await post(ann, `/knowledge-bases/${kb.id}/sources`, { source_id: source.id }), 202);
    const [entry] = await indexed(kb.id, 1);
    assert.equal(entry!.index_status, 'indexed', JSON.stringify(entry));
    const found = await search(kb.id, { query: 'otters sleep' });
    assert.equal(found.results.length, 2);
    assert.equal(found.results[1]!.source_name, 'otters.txt');

    // A source's metadata is in every item's meta, as it is now, and filters.
    assert.deepEqual(found.results[1]!.meta.source_metadata, { team: 'blue' });
    const items = await json<{ items: Array<{ meta: Record<string, unknown> }> }>(await post(ann, `/knowledge-bases/${kb.id}/items`, { source_ids: [source.id] }), 200);
    assert.deepEqual(items.items.map((i) => i.meta.source_metadata), [{ team: 'blue' }]);
    const { rows } = await p.adminPool.query(`select meta -> 'source_metadata' as m from ai.kb_items where kb_id = $1`, [kb.id]);
    assert.deepEqual(rows.map((r) => r.m), [{ team: 'blue' }], 'stored with the item at indexing');
    assert.equal((await search(kb.id, { query: 'otters sleep', filter_metadata: { team: 'red' } })).results.length, 1, 'filtered out');
    await json(await patch(ann, `/sources/${source.id}`, { metadata: { team: 'red' } }), 200);
    const after = await search(kb.id, { query: 'otters sleep', filter_metadata: { team: 'red' } });
    assert.deepEqual(after.results[1]!.meta.source_metadata, { team: 'red' }, 'a PATCH reaches the items at once');

    await json(await patch(ann, `/knowledge-bases/${kb.id}`, { retrieval_config: { method: 'vector_search' } }), 200);
    const vector = await post(ann, `/knowledge-bases/${kb.id}/search`, { query: 'otters' });
    assert.equal(vector.status, 400);
    assert.match(((await vector.json()) as { error: string }).error, /have no embeddings from .*reindex to embed them/);
  });

  it('keeps the retrieval order when the reranker answers badly or fails, naming why, never a 500', async () => {
    await storeOpenAiKey(p);
    const kb = await json<{ id: string }>(await post(ann, '/knowledge-bases', { name: 'reranked', indexing_config: { embedding_model: null }, retrieval_config: { method: 'full_text', reranker: { model: 'gpt-4.1-mini' } } }), 201);
    for (const [name, text] of [['a.txt', 'Bees dance to tell the hive where flowers are.'], ['b.txt', 'Bees sting once; wasps sting again and again.']]) {
      const s = await upload(name!, text!, {});
      await json(await post(ann, `/knowledge-bases/${kb.id}/sources`, { source_id: s.id }), 202);
    }
    await indexed(kb.id, 2);
    const plain = (await search(kb.id, { query: 'bees', reranker: undefined })).results.slice(1).map((r) => r.id);
    const bad: Array<[string, Parameters<VendorServer['script']>[0]]> = [['{}', { text: '{}' }], ['prose', { text: 'The first passage is the better one.' }], ['a vendor failure', { status: 500, message: 'boom' }]];
    for (const [what, step] of bad) {
      vendor.script(step);
      const res = await post(ann, `/knowledge-bases/${kb.id}/search`, { query: 'bees' });
      const body = await res.text();
      assert.equal(res.status, 200, `${what}: ${body}`);
      const parsed = JSON.parse(body) as Search;
      assert.deepEqual(parsed.results.slice(1).map((r) => [r.id, r.reranker_score]), plain.map((id) => [id, null]), `${what}: the retrieval order`);
      assert.equal(typeof parsed.results[0].reranker.error, 'string', `${what}: the diagnostics name the failure`);
    }
    // A short list scores what it covers; the rest keep their order with no score.
    vendor.script({ text: '{"scores": [2]}' });
    const partial = await search(kb.id, { query: 'bees' });
    assert.deepEqual(partial.results.slice(1).map((r) => r.reranker_score), [0.2, null]);
    assert.equal(partial.results[0].reranker.scored, 1);
    // Structured output was asked for.
    assert.equal(vendor.chats().at(-1)!.body.response_format.type, 'json_schema');
  });

  it('offers the copilot\'s tools as strict schemas, and accepts calls built from the schemas alone', async () => {
    await storeOpenAiKey(p).catch(() => undefined);
    const workflow = await json<{ id: string }>(await post(ann, '/workflows', { name: 'copiloted' }), 201);
    await json(await put(ann, `/workflows/${workflow.id}/graph`, { blocks: [{ id: 'start', type: 'starter' }], edges: [] }), 200);
    const session = await json<{ id: string }>(await post(ann, '/copilot/sessions', { workflow_id: workflow.id }), 201);
    const chat = async (message: string) => {
      const res = await post(ann, `/copilot/sessions/${session.id}/chat`, { message });
      assert.equal(res.status, 200);
      return sseEvents(res);
    };
    vendor.reset();
    vendor.script({ text: 'Looking.' });
    await chat('What can you do?');
    const offered = vendor.chats()[0]!.body.tools as Array<{ type: string; function: { name: string; strict?: boolean; parameters: Schema } }>;
    assert.equal(offered.length, 8);
    for (const t of offered) {
      assert.deepEqual(strictProblems(t.function.parameters), [], t.function.name);
      assert.equal(t.function.strict, true, `${t.function.name} is sent strict to OpenAI`);
    }
    const ops = offered.find((t) => t.function.name === 'modify_workflow')!.function.parameters.properties!.operations!.items!.anyOf!;
    assert.deepEqual(ops.map((o) => o.properties!.op!.enum), [['add_block'], ['remove_block'], ['update_block'], ['add_edge', 'remove_edge']]);
    // Calls made from the schemas alone: no description read.
    const calls = ['modify_workflow', 'manage_project_asset', 'list_project_assets', 'get_block_info'].map((name, i) => ({
      id: `g${i}`, name, arguments: example(offered.find((t) => t.function.name === name)!.function.parameters),
    }));
    vendor.script({ toolCalls: calls }, { text: 'Done.' });
    const events = await chat('Go');
    const results = events.filter((e) => e.type === 'tool_result');
    assert.equal(results.length, calls.length);
    for (const r of results) assert.doesNotMatch(String(r.result), /^Error/, `${r.name}: ${String(r.result)}`);
  });
});
