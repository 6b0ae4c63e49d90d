// Knowledge bases put to work, over HTTP with the in-process worker on the
// shared corpus (helpers/kb-fixture.ts): /api/context-handlers (4.15: several
// knowledge bases, a token budget, per-base errors, stored results), metadata
// enrichment, an agent's search tools and retrieved_context, page_index with
// tree_search, graph_index, and context_mode image.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { storeOpenAiKey } from '../helpers/ai-api.ts';
import { makePdf } from '../helpers/documents.ts';
import { sseEvents } from '../helpers/sse.ts';
import { knowledgeBaseFixture, type Search } from '../helpers/kb-fixture.ts';
import type { VendorServer } from '../helpers/openai-server.ts';
import type { TestPlatform } from '../helpers/platform.ts';

describe('knowledge bases at work', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let ann: string;
  let bob: string;
  let service: string;
  const { state, sources, api, json, post, upload, until, settled, createKb, search, withCorpus } = knowledgeBaseFixture();
  before(() => ({ p, vendor, ann, bob, service } = state));

  it('retrieves across knowledge bases in a context handler, fits the token budget, reports per-base errors and stores the result', async () => {
    const a = await withCorpus(ann, { name: 'Context A', indexing_config: { embedding_model: null }, retrieval_config: { method: 'full_text' } });
    const b = await withCorpus(ann, { name: 'Context B', indexing_config: { embedding_model: 'local/hash' }, retrieval_config: { method: 'vector_search' } });
    const missing = '00000000-0000-4000-8000-00000000abcd';
    const made = await json<any>(await post(ann, '/context-handlers', {
      query: 'rockets kerosene', knowledge_bases: [{ id: a.id, top_k: 2 }, { id: b.id, top_k: 1 }, { id: missing }], max_context_tokens: 40,
    }), 201);
    assert.deepEqual(made.knowledge_base_configs.map((c: any) => [c.id, c.top_k, c.name ?? null]), [[a.id, 2, 'Context A'], [b.id, 1, 'Context B'], [missing, null, null]]);
    assert.equal(made.knowledge_base_configs[0].retrieval_config.method, 'full_text');
    assert.deepEqual(made.errors, [{ knowledge_base_id: missing, error: 'Knowledge base not found' }], 'one failing base does not fail the others');
    assert.deepEqual(made.metadata.query_enrichment.queries, ['rockets kerosene']);
    assert.equal(made.chunks.length, 3, 'two from A and one from B');
    assert.deepEqual(made.chunks.slice(0, 2).map((c: any) => c.kb_name).sort(), ['Context A', 'Context B'], 'each base\'s best first');
    assert.ok(made.chunks.every((c: any) => typeof c.included_in_context === 'boolean' && c.token_count > 0));
    const included = made.chunks.filter((c: any) => c.included_in_context);
    assert.ok(included.length >= 1 && included.length < 3, 'the budget of 40 tokens leaves some out');
    assert.equal(made.token_count, included.reduce((n: number, c: any) => n + c.token_count, 0));
    assert.ok(made.token_count <= 40);
    assert.equal(made.context, included.map((c: any) => c.text).join('\n\n'));
    assert.deepEqual(made.retrieval_diagnostics.map((d: any) => d._type), ['retrieval_diagnostics', 'retrieval_diagnostics']);

    const read = await json<any>(await api(ann, `/context-handlers/${made.id}`), 200);
    assert.deepEqual(read, made, 'the stored result reads back whole');
    const list = await json<any>(await api(ann, '/context-handlers?limit=1'), 200);
    assert.deepEqual([list.total, list.limit, list.offset, list.items[0].id, list.items[0].chunk_count, list.items[0].error_count], [1, 1, 0, made.id, 3, 1]);
    assert.deepEqual(await json(await api(bob, `/context-handlers/${made.id}`), 404), { error: 'Context handler not found' }, 'a result is its maker\'s');
    assert.equal((await json<any>(await api(bob, '/context-handlers'), 200)).total, 0);

    const bad = async (body: unknown, status: number, error: string) => assert.deepEqual(await json(await post(ann, '/context-handlers', body), status), { error });
    await bad({ knowledge_bases: [{ id: a.id }] }, 400, 'query: query is required');
    await bad({ query: 'x', knowledge_bases: [] }, 400, 'knowledge_bases: knowledge_bases must not be empty');
    await bad({ query: 'x' }, 400, 'knowledge_bases: knowledge_bases is required: [{id, top_k}]');
    await bad({ query: 'x', knowledge_bases: [{ id: missing }] }, 500, `Retrieval failed for every knowledge base: ${missing}: Knowledge base not found`);
    assert.deepEqual(await json(await api(ann, '/context-handlers/nope'), 404), { error: 'Context handler not found' });
  });
  it('enriches item metadata with a scripted model into a table of its own, with results, errors, filters and the PUT rules', async () => {
    await storeOpenAiKey(p).catch(() => undefined);
    await json(await api(service, '/settings', { method: 'PUT', body: JSON.stringify({ settings: { METADATA_ENRICHMENT_CONCURRENCY: '1', METADATA_ENRICHMENT_MAX_RETRIES: '0', METADATA_ENRICHMENT_BATCH_SIZE: '2' } }) }), 200);
    const kb = await withCorpus(ann, { name: 'Enriched', indexing_config: { embedding_model: null }, retrieval_config: { method: 'full_text' } });
    const put = (body: unknown) => api(ann, `/knowledge-bases/${kb.id}/enrichment`, { method: 'PUT', body: JSON.stringify(body) });
    const bad = async (body: unknown, error: string) => assert.deepEqual(await json(await put(body), 400), { error });
    await bad({}, 'fields: fields is required: an array of {name, description, type, enum_values}');
    await bad({ fields: [] }, 'fields must be a non-empty array of {name, description, type, enum_values}');
    await bad({ fields: [{ name: 'item_id', type: 'text' }] }, 'fields[0].name "item_id" is reserved (id, item_id, item_type, enriched_at, _enrichment_error)');
    await bad({ fields: [{ name: '1st', type: 'text' }] }, 'fields[0].name "1st" must be letters, digits and underscores, starting with a letter (at most 63)');
    await bad({ fields: [{ name: 'kind', type: 'enum', enum_values: ['one'] }] }, 'fields[0] is an enum: enum_values needs at least 2 distinct strings');
    await bad({ fields: [{ name: 'x', type: 'date' }] }, 'fields[0].type must be text, boolean, number or enum');
    assert.deepEqual(await json(await api(ann, `/knowledge-bases/${kb.id}/enrichment`), 200), { config: null });
    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${kb.id}/enrichment/run`, {}), 404), { error: 'This knowledge base has no enrichment config' });

    // The items in the order the run reads them, each with the answer it will get; the third answer breaks its enum.
    const { rows: order } = await p.adminPool.query<{ id: string; name: string }>(
      'select i.id, s.name from ai.kb_items i join ai.sources s on s.id = i.source_id where i.kb_id = $1 order by i.source_id, i.position', [kb.id]);
    const topicOf: Record<string, string> = { 'rockets.md': 'space', 'cats.txt': 'animals', 'bread.txt': 'food' };
    vendor.script(...order.map((o, n) => ({ text: JSON.stringify({ topic: n === 2 ? 'music' : topicOf[o.name], mentions_numbers: false, headline: `about ${o.name}` }) })));
    const fields = [
      { name: 'topic', type: 'enum', enum_values: ['space', 'animals', 'food'], description: 'what the passage is about' },
      { name: 'mentions_numbers', type: 'boolean' },
      { name: 'headline', type: 'text', description: 'a short title' },
    ];
    const made = await json<any>(await put({ fields, max_tokens: 300 }), 200);
    assert.equal(made.re_enrichment_triggered, true);
    assert.equal(made.config.status, 'enriching');
    assert.equal(made.config.metadata_table_name, `ai.kb_meta_${kb.id.replaceAll('-', '')}`);
    const done = await until('the enrichment', async () => (await json<any>(await api(ann, `/knowledge-bases/${kb.id}/enrichment`), 200)).config, (c) => c.status !== 'enriching');
    assert.deepEqual([done.status, done.enriched_count, done.total_count, done.llm_model, done.max_tokens], ['completed_with_errors', 3, 4, 'gpt-4.1-mini', 300]);
    const sent = vendor.chats().at(-1)!.body;
    assert.equal(sent.response_format.json_schema.schema.properties.topic.enum.length, 4, 'the schema names the enum values and null');

    const results = await json<any>(await api(ann, `/knowledge-bases/${kb.id}/enrichment/results?item_ids=${order.map((o) => o.id).join(',')}`), 200);
    assert.deepEqual(results.item_errors, [{ item_id: order[2]!.id, error: 'topic: expected one of space, animals, food, got "music"' }]);
    assert.deepEqual(results.results.map((r: any) => [r.item_id, r.values.topic, r.values.mentions_numbers, r.values.headline]),
      order.filter((_, n) => n !== 2).map((o) => [o.id, topicOf[o.name], false, `about ${o.name}`]));
    assert.deepEqual(await json(await api(ann, `/knowledge-bases/${kb.id}/enrichment/results`), 400), { error: 'item_ids: item_ids is required: item ids separated by commas' });
    const { rows: [table] } = await p.adminPool.query(`select count(*)::int as n from ai.kb_meta_${kb.id.replaceAll('-', '')} where topic is not null`);
    assert.equal(table.n, 3, 'a DBA reads the values in the metadata table');

    // Values are filterable.
    const firstTopic = topicOf[order[0]!.name]!;
    const filtered = await search(ann, kb.id, { query: 'rockets cats bread day', filter_metadata: { topic: firstTopic } });
    assert.ok(filtered.results.length > 1 && filtered.results.slice(1).every((r) => topicOf[r.source_name] === firstTopic));

    // retry_failed enriches only the failed item.
    vendor.reset();
    vendor.script({ text: JSON.stringify({ topic: topicOf[order[2]!.name], mentions_numbers: true, headline: 'fixed' }) });
    assert.equal((await json<any>(await post(ann, `/knowledge-bases/${kb.id}/enrichment/run`, { retry_failed: true }), 202)).status, 'enriching');
    const again = await until('the retry', async () => (await json<any>(await api(ann, `/knowledge-bases/${kb.id}/enrichment`), 200)).config, (c) => c.status !== 'enriching');
    assert.deepEqual([again.status, again.enriched_count, vendor.chats().length], ['completed', 4, 1]);

    // PUT rules: identical is a no-op, max_tokens alone only updates, changes while a run is active are 409.
    assert.equal((await json<any>(await put({ fields, max_tokens: 300 }), 200)).re_enrichment_triggered, false);
    const tokens = await json<any>(await put({ fields, max_tokens: 500 }), 200);
    assert.deepEqual([tokens.re_enrichment_triggered, tokens.config.max_tokens, tokens.config.status], [false, 500, 'completed']);
    await p.adminPool.query(`update ai.kb_enrichments set status = 'enriching' where kb_id = $1`, [kb.id]);
    assert.deepEqual(await json(await put({ fields: fields.slice(0, 1), max_tokens: 500 }), 409), { error: 'An enrichment run is active: wait for it to end before changing fields or llm_model' });
    assert.deepEqual(await json(await api(ann, `/knowledge-bases/${kb.id}/enrichment`, { method: 'DELETE' }), 409), { error: 'An enrichment run is active: wait for it to end before deleting the config' });
    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${kb.id}/enrichment/run`, {}), 409), { error: 'An enrichment run is already active' });
    await p.adminPool.query(`update ai.kb_enrichments set status = 'completed' where kb_id = $1`, [kb.id]);
    assert.deepEqual(await json(await api(bob, `/knowledge-bases/${kb.id}/enrichment`, { method: 'DELETE' }), 404), { error: 'Knowledge base not found' });

    // DELETE drops the table and the filterable copies.
    await json(await api(ann, `/knowledge-bases/${kb.id}/enrichment`, { method: 'DELETE' }), 200);
    const { rows: [gone] } = await p.adminPool.query(`select to_regclass($1) as t, (select count(*)::int from ai.kb_items where kb_id = $2 and enrichment <> '{}') as copies`, [`ai.kb_meta_${kb.id.replaceAll('-', '')}`, kb.id]);
    assert.deepEqual(gone, { t: null, copies: 0 });
    assert.deepEqual(await json(await api(ann, `/knowledge-bases/${kb.id}/enrichment`), 200), { config: null });
    assert.deepEqual(await json(await api(ann, `/knowledge-bases/${kb.id}/enrichment/results?item_ids=${order[0]!.id}`), 404), { error: 'This knowledge base has no enrichment config' });
  });
  it('gives an agent a search tool per assigned knowledge base and keeps what it retrieved as the answer\'s retrieved_context', async () => {
    await storeOpenAiKey(p).catch(() => undefined);
    const kb = await withCorpus(ann, { name: 'Field guide', description: 'Facts about rockets, cats and bread', indexing_config: { embedding_model: null }, retrieval_config: { method: 'full_text' } });
    const agent = await json<{ id: string }>(await post(ann, '/agents', { name: 'Librarian', model: 'gpt-4.1-mini' }), 201);
    const assigned = await json<any>(await post(ann, `/agents/${agent.id}/knowledge-bases`, { knowledge_base_id: kb.id }), 201);
    assert.deepEqual([assigned.agent_id, assigned.knowledge_base_id, assigned.name, assigned.tool_name], [agent.id, kb.id, 'Field guide', 'Field_guide']);
    assert.deepEqual(await json(await post(ann, `/agents/${agent.id}/knowledge-bases`, { knowledge_base_id: kb.id }), 409), { error: 'This knowledge base is already assigned to the agent' });
    const bobsKb = await createKb(bob, { name: 'Private' });
    assert.deepEqual(await json(await post(ann, `/agents/${agent.id}/knowledge-bases`, { knowledge_base_id: bobsKb.id }), 404), { error: 'Knowledge base not found' });
    assert.deepEqual(await json(await post(bob, `/agents/${agent.id}/knowledge-bases`, { knowledge_base_id: bobsKb.id }), 404), { error: 'Agent not found' });
    assert.deepEqual((await json<any[]>(await api(ann, `/agents/${agent.id}/knowledge-bases`), 200)).map((a) => a.id), [assigned.id]);

    vendor.reset();
    vendor.script({ toolCalls: [{ name: 'Field_guide', arguments: { query: 'kerosene rockets' } }] }, { text: 'Rockets burn kerosene with liquid oxygen.' });
    const run = await json<any>(await post(ann, `/agents/${agent.id}/run`, { message: 'What do rockets burn?' }), 200);
    assert.equal(run.output, 'Rockets burn kerosene with liquid oxygen.');
    assert.match(run.tool_calls[0].result, /^\[1\] rockets\.md, page 1\nRockets\n\nLiquid-fuel rockets burn kerosene/);
    const offered = vendor.chats()[0]!.body.tools.map((t: any) => [t.function.name, t.function.description]);
    assert.deepEqual(offered, [['Field_guide', 'Facts about rockets, cats and bread']]);

    const messages = await json<any[]>(await api(ann, `/sessions/${run.session_id}/messages`), 200);
    const answer = messages.at(-1);
    assert.equal(answer.role, 'assistant');
    const [diag, ...entries] = answer.retrieved_context;
    assert.equal(diag._type, 'retrieval_diagnostics');
    assert.deepEqual(diag.queries, ['kerosene rockets']);
    assert.equal(diag.searches[0].method, 'full_text');
    assert.equal(entries[0].source_name, 'rockets.md');
    for (const key of ['id', 'text', 'score', 'retrieval_score', 'reranker_score', 'source_id', 'source_name', 'knowledge_base_id', 'kb_name', 'indexing_strategy', 'meta', 'included_in_context']) assert.ok(key in entries[0], key);
    assert.deepEqual([entries[0].kb_name, entries[0].included_in_context], ['Field guide', true]);
    assert.ok(messages.slice(0, -1).every((m) => m.role !== 'assistant' || m.retrieved_context.length === 0), 'only the answer that used it carries it');
    const byRun = await json<any>(await api(ann, `/sessions/${run.session_id}/runs/${run.run_id}/retrieved-context`), 200);
    assert.deepEqual(byRun.retrieved_context, answer.retrieved_context);

    vendor.script({ toolCalls: [{ name: 'Field_guide', arguments: { query: 'purr' } }] }, { text: 'They purr.' });
    const stream = await sseEvents(await post(ann, `/agents/${agent.id}/run/stream`, { message: 'What do cats do?', session_id: run.session_id }));
    const retrieval = stream.find((e) => e.type === 'retrieval')!;
    assert.deepEqual([retrieval.knowledge_base_id, retrieval.kb_name, retrieval.query, retrieval.included], [kb.id, 'Field guide', 'purr', 1]);

    assert.deepEqual(await json(await api(ann, `/agents/${agent.id}/knowledge-bases/${assigned.id}`, { method: 'DELETE' }), 200), { message: 'Knowledge base assignment deleted', id: assigned.id });
    assert.deepEqual(await json(await api(ann, `/agents/${agent.id}/knowledge-bases/${assigned.id}`, { method: 'DELETE' }), 404), { error: 'Knowledge base assignment not found' });
  });
  it('builds a table of contents per document (page_index) and lets a model navigate it (tree_search)', async () => {
    await storeOpenAiKey(p).catch(() => undefined);
    await json(await api(service, '/settings', { method: 'PUT', body: JSON.stringify({ settings: { PAGEINDEX_MIN_NODE_CHARS: '0' } }) }), 200);
    vendor.reset();
    vendor.script({ text: 'Summary one.' }, { text: 'Summary two.' });
    const kb = await createKb(ann, { name: 'Tree', indexing_config: { strategy: 'page_index', embedding_model: 'local/hash' } });
    assert.equal(kb.retrieval_config.method, 'tree_search');
    await json(await post(ann, `/knowledge-bases/${kb.id}/sources`, { source_id: sources['rockets.md'] }), 202);
    assert.equal((await settled(ann, kb.id, 1)).items[0]!.index_status, 'indexed');
    const nodes = (await json<{ items: Array<Record<string, any>> }>(await post(ann, `/knowledge-bases/${kb.id}/items`, { source_ids: [sources['rockets.md']] }), 200)).items;
    assert.deepEqual(nodes.map((n) => [n.kind, n.title, n.node_id, n.parent_node_id, n.meta.page_start, n.meta.page_end]), [['node', 'Rockets', '0001', null, 1, 1], ['node', 'Staging', '0002', '0001', 1, 1]]);
    assert.deepEqual(nodes.map((n) => n.summary).sort(), ['Summary one.', 'Summary two.']);
    assert.match(nodes[1]!.text, /^Multistage rockets drop their empty tanks/);

    vendor.script({ text: JSON.stringify({ node_ids: ['d1.0002', 'd9.9999'], reasoning: 'tanks are dropped when staging' }) });
    const found = await search(ann, kb.id, { query: 'Why drop empty tanks?' });
    const [diag, top] = found.results;
    assert.deepEqual([diag.method, diag.methods.tree_search.chosen, diag.methods.tree_search.nodes_considered, diag.methods.tree_search.reasoning], ['tree_search', ['d1.0002'], 2, 'tanks are dropped when staging']);
    assert.deepEqual([top!.meta.title, top!.score, found.results.length], ['Staging', 1, 2], 'an unknown key is ignored');
    const outline = vendor.chats().at(-1)!.body.messages[1].content as string;
    assert.match(outline, /^Question: Why drop empty tanks\?\n\nDocument 1: rockets\.md\n\[d1\.0001\] Rockets \(page 1\): Summary (one|two)\.\n  \[d1\.0002\] Staging \(page 1\): Summary (one|two)\.$/);

    // PAGEINDEX_ADD_NODE_TEXT puts the start of each node's text in the outline.
    await json(await api(service, '/settings', { method: 'PUT', body: JSON.stringify({ settings: { PAGEINDEX_ADD_NODE_TEXT: 'true' } }) }), 200);
    vendor.script({ text: JSON.stringify({ node_ids: ['d1.0001'] }) });
    await search(ann, kb.id, { query: 'What fuel?' });
    assert.match(vendor.chats().at(-1)!.body.messages[1].content, /\[d1\.0001\] Rockets \(page 1\): Summary (one|two)\.\n  Liquid-fuel rockets burn kerosene/);
    await json(await api(service, '/settings', { method: 'PUT', body: JSON.stringify({ settings: { PAGEINDEX_ADD_NODE_TEXT: 'false' } }) }), 200);

    // A navigator that answers prose, or fails, never fails the search: the nodes in BM25 order, and why.
    for (const step of [{ text: 'The staging section, I think.' }, { status: 500, message: 'boom' }]) {
      vendor.script(step);
      const res = await post(ann, `/knowledge-bases/${kb.id}/search`, { query: 'empty tanks staging' });
      assert.equal(res.status, 200, await res.clone().text());
      const fallback = (await res.json()) as Search;
      assert.equal(fallback.results[0].methods.tree_search.fallback, 'full_text');
      assert.match(fallback.results[0].methods.tree_search.error, /could not be used/);
      assert.equal(fallback.results[1]!.meta.title, 'Staging');
    }

    // A document without headings: the model names its sections.
    vendor.script({ text: '{"sections": [{"title": "About cats", "start_page": 1, "level": 1}]}' }, { text: 'Cats purr.' });
    await json(await post(ann, `/knowledge-bases/${kb.id}/sources`, { source_id: sources['cats.txt'] }), 202);
    await settled(ann, kb.id, 2);
    const cats = (await json<{ items: Array<Record<string, any>> }>(await post(ann, `/knowledge-bases/${kb.id}/items`, { source_ids: [sources['cats.txt']] }), 200)).items;
    assert.deepEqual(cats.map((n) => [n.title, n.summary]), [['About cats', 'Cats purr.']]);
    assert.match(cats[0]!.text, /Cats are small domesticated felines/);
  });
  it('extracts a knowledge graph per chunk (graph_index), searches it by entity and neighbourhood, and re-runs failed chunks', async () => {
    await storeOpenAiKey(p).catch(() => undefined);
    await json(await api(service, '/settings', { method: 'PUT', body: JSON.stringify({ settings: { GRAPHINDEX_MAX_GLEANING: '0', GRAPHINDEX_SUMMARY_MAX_TOKENS: '50' } }) }), 200);
    vendor.reset();
    // Both chunks describe "Rocket" at length: together past 50 tokens (200 characters), so it gets one summary.
    const rocket = (d: string) => ({ name: 'Rocket', type: 'concept', description: d.repeat(5) });
    const kerosene = { entities: [{ name: 'Kerosene', type: 'concept', description: 'a rocket fuel' }, { name: 'Liquid oxygen', type: 'concept', description: 'an oxidiser' }, rocket('A vehicle that burns fuel. ')],
      relations: [{ source: 'Kerosene', target: 'Liquid oxygen', description: 'burns with', keywords: 'combustion', weight: 8 }] };
    const staging = { entities: [{ name: 'Multistage rocket', type: 'concept', description: 'drops empty tanks' }, rocket('A vehicle built in stages. ')], relations: [] };
    vendor.script({ text: JSON.stringify(kerosene) }, { text: JSON.stringify(staging) }, { text: 'A vehicle built in stages that burns fuel.' });
    const kb = await createKb(ann, { name: 'Graph', indexing_config: { strategy: 'graph_index', embedding_model: null } });
    assert.equal(kb.retrieval_config.method, 'graph');
    await json(await post(ann, `/knowledge-bases/${kb.id}/sources`, { source_id: sources['rockets.md'] }), 202);
    const [rockets] = (await settled(ann, kb.id, 1)).items;
    assert.deepEqual([rockets!.index_status, rockets!.stats.items, rockets!.stats.graph_errors], ['indexed', 2, 0]);
    const { rows: [owner] } = await p.adminPool.query(`select item_id from ai.kb_graph_entities where kb_id = $1 and name_key = 'kerosene'`, [kb.id]);

    const found = await search(ann, kb.id, { query: 'What burns with liquid oxygen?' });
    const [diag, top] = found.results;
    assert.equal(diag.method, 'graph');
    assert.deepEqual(diag.methods.graph.entities.sort(), ['Kerosene', 'Liquid oxygen', 'Rocket'], 'named by the query (Rocket "burns"), or one relation away (Kerosene)');
    assert.equal(top!.id, owner.item_id, 'the chunk that names the entities comes first');
    assert.equal(found.results.length, 3, 'the other chunk comes in through Rocket alone');
    assert.ok(found.results[2]!.score < top!.score);
    const entity = (await search(ann, kb.id, { query: 'rocket' })).results[0].methods.graph.entity_details.find((e: any) => e.name === 'Rocket');
    assert.deepEqual(entity, { name: 'Rocket', type: 'concept', description: 'A vehicle built in stages that burns fuel.', mentions: 2 });

    // A chunk whose extraction fails keeps its error until it is run again.
    vendor.script({ text: 'not json' });
    await json(await post(ann, `/knowledge-bases/${kb.id}/sources`, { source_id: sources['cats.txt'] }), 202);
    const both = await settled(ann, kb.id, 2);
    const cats = both.items.find((e) => e.source_name === 'cats.txt')!;
    assert.equal(cats.stats.graph_errors, 1);
    const errors = await json<any>(await api(ann, `/knowledge-bases/${kb.id}/graph-enrichment/errors`), 200);
    assert.deepEqual(errors.sources.map((e: any) => [e.source_name, e.error_count, e.chunk_count]), [['cats.txt', 1, 1], ['rockets.md', 0, 2]]);
    assert.match(errors.sources[0].last_error, /^Extraction failed: /);
    vendor.script({ text: JSON.stringify({ entities: [{ name: 'Cat', type: 'concept', description: 'a small feline' }], relations: [] }) });
    const rerun = await json<any>(await post(ann, `/knowledge-bases/${kb.id}/graph-enrichment/run`, { indexed_source_id: cats.id, retry_failed: true }), 202);
    assert.deepEqual([rerun.status, rerun.indexed_source_id, rerun.retry_failed], ['queued', cats.id, true]);
    await until('the re-run', async () => (await json<any>(await api(ann, `/knowledge-bases/${kb.id}/graph-enrichment/errors`), 200)).sources, (l: any[]) => l.every((e) => e.error_count === 0));
    assert.equal((await search(ann, kb.id, { query: 'cat' })).results[1]!.source_name, 'cats.txt');

    const plain = await createKb(ann, { name: 'Not a graph' });
    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${plain.id}/graph-enrichment/run`, {}), 400), { error: 'Graph enrichment is only for knowledge bases with the graph_index strategy' });
    assert.deepEqual(await json(await api(ann, `/knowledge-bases/${plain.id}/graph-enrichment/errors`), 400), { error: 'Graph enrichment is only for knowledge bases with the graph_index strategy' });
    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${kb.id}/graph-enrichment/run`, { indexed_source_id: '00000000-0000-4000-8000-000000000000' }), 404), { error: 'Indexed source not found in this knowledge base' });
  });
  it('answers page images with context_mode image, chunks never crossing a page', async () => {
    const pdf = await upload(ann, 'two-pages.pdf', makePdf(['Turbopumps feed the engine', 'Heat shields protect the capsule']));
    const kb = await createKb(ann, { name: 'Pages', indexing_config: { embedding_model: null }, retrieval_config: { method: 'full_text' } });
    await json(await post(ann, `/knowledge-bases/${kb.id}/sources`, { source_id: pdf.id }), 202);
    assert.equal((await settled(ann, kb.id, 1)).items[0]!.index_status, 'indexed');
    const items = (await json<{ items: Array<Record<string, any>> }>(await post(ann, `/knowledge-bases/${kb.id}/items`, { source_ids: [pdf.id] }), 200)).items;
    assert.deepEqual(items.map((i) => [i.meta.page, i.text]), [[1, 'Turbopumps feed the engine'], [2, 'Heat shields protect the capsule']]);
    assert.equal(items[0]!.meta.bbox.length, 4, 'PDF lines carry their box');
    const text = await search(ann, kb.id, { query: 'heat shields' });
    assert.equal((text.results[1] as any).images, undefined, 'text mode carries no images');
    const withImages = await search(ann, kb.id, { query: 'heat shields', context_mode: 'image' });
    const [image] = (withImages.results[1] as any).images;
    assert.deepEqual([image.page, image.content_type], [2, 'image/png']);
    const png = await api(ann, image.url.replace(/^\/api/, ''));
    assert.equal(png.status, 200);
    assert.equal(png.headers.get('content-type'), 'image/png');
    // DEFAULT_IMAGE_DELIVERY: the bytes inline, or no images at all.
    const deliver = (how: string) => api(service, '/settings', { method: 'PUT', body: JSON.stringify({ settings: { DEFAULT_IMAGE_DELIVERY: how } }) });
    await json(await deliver('base64'), 200);
    const [inline] = ((await search(ann, kb.id, { query: 'heat shields', context_mode: 'image' })).results[1] as any).images;
    assert.equal(Buffer.from(inline.base64, 'base64').subarray(1, 4).toString(), 'PNG');
    assert.equal(inline.url, undefined);
    await json(await deliver('none'), 200);
    assert.equal(((await search(ann, kb.id, { query: 'heat shields', context_mode: 'image' })).results[1] as any).images, undefined);
    await json(await deliver('url'), 200);
  });
});
