// /api/knowledge-bases over HTTP with the in-process worker, on a small corpus
// whose right answers are known (helpers/kb-fixture.ts): CRUD with configs
// merged over the strategy defaults, indexed sources through their states
// (waiting for extraction, indexed, failed, cancelled, deleted, re-indexed),
// the list of 4.13, items, BM25 built and kept current, full_text,
// vector_search and hybrid with the diagnostics entry, filter_metadata,
// reranking and query enrichment scripted on the OpenAI-compatible test
// server, embeddings through it, full_document and doc2json, the evaluation
// endpoint, and every error of 4.13.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { storeOpenAiKey } from '../helpers/ai-api.ts';
import { subscribed } from '../helpers/realtime.ts';
import { encode } from 'gpt-tokenizer';
import { createClient } from '@supabase/supabase-js';
import { knowledgeBaseFixture, type Kb, type Entry, type Result } from '../helpers/kb-fixture.ts';
import type { VendorServer } from '../helpers/openai-server.ts';
import type { TestPlatform } from '../helpers/platform.ts';

describe('knowledge bases', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let ann: string;
  let bob: string;
  let service: string;
  const { state, sources, api, json, post, patch, upload, until, entries, settled, createKb, search, withCorpus } = knowledgeBaseFixture();
  before(() => ({ p, vendor, ann, bob, service } = state));

  it('creates a knowledge base with its configs merged over the strategy defaults, and checks them in SQL', async () => {
    const kb = await createKb(ann, { name: 'Notes', description: 'mine', indexing_config: { chunk_size: 256, chunk_overlap: 16 } });
    assert.equal(kb.strategy, 'chunk_embed');
    assert.deepEqual(kb.indexing_config, { strategy: 'chunk_embed', chunk_size: 256, overlap: 16, embedding_model: 'text-embedding-3-small' }, 'chunk_overlap is read as overlap');
    assert.equal(kb.retrieval_config.method, 'hybrid');
    assert.equal(kb.retrieval_config.vector_weight, 0.5);
    assert.equal(kb.retrieval_config.top_k, 5);
    assert.equal(kb.retrieval_config.reranker, undefined, 'reranking is off unless a reranker object is present');
    assert.equal(kb.bm25_status, 'none');
    const doc = await createKb(ann, { name: 'Docs', indexing_config: { strategy: 'full_document' }, retrieval_config: { method: 'vector' } });
    assert.equal(doc.retrieval_config.method, 'vector_search', 'vector is read as vector_search');
    assert.equal(doc.indexing_config.summary_model, 'gpt-4.1-mini');

    const bad = async (body: unknown, error: string) => assert.deepEqual(await json(await post(ann, '/knowledge-bases', body), 400), { error });
    await bad({}, 'name: name is required');
    await bad({ name: 'x', indexing_config: { strategy: 'magic' } }, 'Unknown indexing strategy magic: use one of chunk_embed, page_index, graph_index, full_document, doc2json');
    await bad({ name: 'x', retrieval_config: { method: 'tree_search' } }, 'retrieval_config.method "tree_search" does not suit the chunk_embed strategy: use one of vector_search, full_text, hybrid');
    await bad({ name: 'x', retrieval_config: { vector_weight: 2 } }, 'retrieval_config.vector_weight must be a number from 0 to 1');
    await bad({ name: 'x', retrieval_config: { ts_language: 'klingon' } }, 'retrieval_config.ts_language "klingon" is not a text search configuration of this database');
    await bad({ name: 'x', indexing_config: { strategy: 'doc2json' }, retrieval_config: { context_mode: 'image' } }, 'retrieval_config.context_mode image is not available for doc2json');
    await bad({ name: 'x', retrieval_config: 'hybrid' }, 'retrieval_config: retrieval_config must be an object');

    const list = await json<Kb[]>(await api(ann, '/knowledge-bases'), 200);
    assert.deepEqual(list.map((k) => k.name).slice(0, 2), ['Docs', 'Notes']);
    assert.deepEqual(await json(await api(bob, `/knowledge-bases/${kb.id}`), 404), { error: 'Knowledge base not found' });
    assert.deepEqual(await json(await api(ann, '/knowledge-bases/nope'), 404), { error: 'Knowledge base not found' });
    assert.deepEqual(await json(await patch(ann, `/knowledge-bases/${kb.id}`, {}), 400), { error: 'No fields to update: send name, description, indexing_config or retrieval_config' });
    assert.deepEqual(await json(await patch(bob, `/knowledge-bases/${kb.id}`, { name: 'mine now' }), 404), { error: 'Knowledge base not found' });
    const project = await createKb(service, { name: 'Project KB' });
    assert.equal((await json<Kb>(await api(bob, `/knowledge-bases/${project.id}`), 200)).name, 'Project KB', 'users read project knowledge bases');
    assert.deepEqual(await json(await patch(bob, `/knowledge-bases/${project.id}`, { name: 'x' }), 403), { error: 'You can only change your own knowledge bases' });
  });

  it('indexes sources (waiting for extraction when needed) and lists them as 4.13 says', async () => {
    const kb = await createKb(ann, { name: 'Waiting', indexing_config: { embedding_model: 'local/hash' } });
    // Progress goes out on the private channel knowledge-base:<id> (the service role may read it without a policy).
    const watcher = createClient(p.url, service, { auth: { persistSession: false } });
    const events: Array<{ event: string; payload: Record<string, any> }> = [];
    await subscribed(watcher.channel(`knowledge-base:${kb.id}`, { config: { private: true } }).on('broadcast', { event: '*' }, (m) => events.push(m as any)));
    const fresh = await upload(ann, 'late.txt', 'A source added while its extraction is still pending.');
    const added = await json<Entry>(await post(ann, `/knowledge-bases/${kb.id}/sources`, { source_id: fresh.id }), 202);
    assert.equal(added.source_id, fresh.id);
    assert.ok(['pending', 'indexing', 'indexed'].includes(added.index_status));
    for (const id of Object.values(sources)) await json(await post(ann, `/knowledge-bases/${kb.id}/sources`, { source_id: id }), 202);
    const all = await settled(ann, kb.id, 4);
    assert.deepEqual(all.items.map((e) => [e.index_status, e.error_message]), [['indexed', null], ['indexed', null], ['indexed', null], ['indexed', null]]);
    assert.deepEqual(all.items.map((e) => e.source_name), ['late.txt', 'bread.txt', 'cats.txt', 'rockets.md'], 'newest source first');
    const finished = await until('the broadcasts', async () => events.filter((e) => e.event === 'indexing_finished'), (l) => l.length === 4);
    assert.deepEqual(finished.map((e) => e.payload.index_status), ['indexed', 'indexed', 'indexed', 'indexed']);
    assert.deepEqual(new Set(finished.map((e) => e.payload.source_id)), new Set([fresh.id, ...Object.values(sources)]));
    assert.ok(events.some((e) => e.event === 'indexing_progress' && e.payload.steps_total >= 1), 'progress as it goes');
    await watcher.removeAllChannels();
    const stats = all.items.find((e) => e.source_name === 'rockets.md')!.stats;
    assert.equal(stats.items, 2, 'the rockets document is two sections');
    assert.equal(stats.embedding_model, 'local/hash');
    assert.equal(stats.dimensions, 256);

    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${kb.id}/sources`, { source_id: fresh.id }), 409), { error: 'This source is already in the knowledge base: reindex it instead' });
    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${kb.id}/sources`, {}), 400), { error: 'source_id: source_id must be an id' });
    const bobs = await upload(bob, 'bob.txt', 'private');
    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${kb.id}/sources`, { source_id: bobs.id }), 404), { error: 'Source not found' });

    const page = await entries(ann, kb.id, '?sort=name&order=asc&limit=2&offset=1');
    assert.deepEqual([page.items.map((e) => e.source_name), page.total, page.limit, page.offset], [['cats.txt', 'late.txt'], 4, 2, 1]);
    assert.deepEqual((await entries(ann, kb.id, '?q=ROCK')).items.map((e) => e.source_name), ['rockets.md']);
    assert.equal((await entries(ann, kb.id, '?status=failed')).total, 0);
    assert.deepEqual(await json(await api(ann, `/knowledge-bases/${kb.id}/sources?limit=201`), 400), { error: 'limit: limit must be at most 200' });
    assert.deepEqual(await json(await api(ann, `/knowledge-bases/${kb.id}/sources?status=done`), 400), { error: 'status: status must be one of pending, indexing, indexed, failed, cancelled' });
    assert.deepEqual(await json(await api(ann, `/knowledge-bases/${kb.id}/sources?sort=size`), 400), { error: 'sort: sort must be one of name, created_at' });

    // Items: provenance in meta, in position order.
    const items = await json<{ items: Array<{ id: string; source_id: string; text: string; meta: Record<string, any>; embedded: boolean }>; total: number }>(
      await post(ann, `/knowledge-bases/${kb.id}/items`, { source_ids: [sources['rockets.md']] }), 200);
    assert.equal(items.total, 2);
    assert.deepEqual(items.items.map((i) => [i.meta.page, i.meta.headings]), [[1, ['Rockets']], [1, ['Rockets', 'Staging']]]);
    assert.match(items.items[1]!.text, /^## Staging|^Staging/);
    assert.ok(items.items.every((i) => i.embedded && i.source_id === sources['rockets.md']));
    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${kb.id}/items`, { source_ids: [] }), 400), { error: 'source_ids: source_ids must not be empty' });
    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${kb.id}/items`, { source_ids: [fresh.id], limit: 10001 }), 400), { error: 'limit: limit must be at most 10000' });

    // The knowledge base with its sources and status.
    const full = await json<Kb & { sources: Entry[]; sources_total: number }>(await api(ann, `/knowledge-bases/${kb.id}`), 200);
    assert.equal(full.sources_total, 4);
    assert.deepEqual([full.status.indexed, full.status.items], [4, 5]);
    assert.equal(full.bm25_status, 'ready', 'BM25_AUTO_INDEXING kept the statistics current');
  });

  it('searches with full_text (BM25), vector_search and hybrid, opening with the diagnostics entry', async () => {
    const kb = await withCorpus(ann, { name: 'Corpus', indexing_config: { embedding_model: 'local/hash' } });
    const text = await search(ann, kb.id, { query: 'kerosene oxygen combustion', method: 'full_text' });
    const [diag, top] = text.results;
    assert.equal(diag._type, 'retrieval_diagnostics');
    assert.equal(diag.method, 'full_text');
    assert.deepEqual(diag.queries, ['kerosene oxygen combustion']);
    assert.equal(diag.methods.full_text.statistics, 'index');
    assert.equal(diag.methods.full_text.k1, 0.9);
    assert.equal(text.results.length, 2, 'only the rockets section holds those words');
    assert.equal(top!.source_name, 'rockets.md');
    assert.deepEqual(top!.meta.headings, ['Rockets']);
    assert.deepEqual(Object.keys(top!).sort(), ['id', 'indexing_strategy', 'kb_name', 'knowledge_base_id', 'meta', 'reranker_score', 'retrieval_score', 'score', 'source_id', 'source_name', 'text']);
    assert.equal(top!.reranker_score, null);
    assert.equal(top!.score, top!.retrieval_score);
    assert.equal(top!.kb_name, 'Corpus');

    // The same BM25 numbers computed from the text when the language has no statistics.
    const simple = await search(ann, kb.id, { query: 'purr', method: 'full_text', ts_language: 'simple' });
    assert.equal(simple.results[0].methods.full_text.statistics, 'computed');
    assert.equal(simple.results[1]!.source_name, 'cats.txt');

    const vector = await search(ann, kb.id, { query: 'wild yeast starter flour', method: 'vector_search' });
    assert.equal(vector.results[1]!.source_name, 'bread.txt');
    assert.equal(vector.results[0].methods.vector_search.model, 'local/hash');
    assert.equal(vector.results[0].methods.vector_search.via, 'sign_bits', 'no pgvector here: sign-bit candidates (pgvector.test.ts covers the other path)');
    assert.ok(vector.results[1]!.score > 0 && vector.results[1]!.score <= 1.0001, 'a cosine');

    const hybrid = await search(ann, kb.id, { query: 'cats hunt mice', top_k: 3 });
    const hd = hybrid.results[0];
    assert.equal(hd.method, 'hybrid');
    assert.deepEqual(hd.fusion, { kind: 'weighted', vector_weight: 0.5, text_weight: 0.5 });
    assert.equal(hybrid.results[1]!.source_name, 'cats.txt');
    // First in both lists: BM25 over its maximum is 1, the cosine mapped from [-1, 1] (retrieval/hybrid.ts).
    const topCosine = hd.methods.vector_search.top_score as number;
    assert.ok(Math.abs(hybrid.results[1]!.score - (0.5 * (topCosine + 1) / 2 + 0.5)) < 1e-9, 'the best of both lists: 0.5 x (cosine + 1) / 2 + 0.5 x 1');
    assert.equal(hybrid.results.length, 4, 'top_k 3 after the diagnostics entry');
    const rrf = await search(ann, kb.id, { query: 'cats hunt mice', fusion: 'rrf', vector_weight: 0.5 });
    assert.equal(rrf.results[1]!.source_name, 'cats.txt');
    assert.ok(Math.abs(rrf.results[1]!.score - 1 / 61) < 1e-9, 'first in both lists: 0.5/61 + 0.5/61');

    const food = await search(ann, kb.id, { query: 'every day', method: 'full_text', filter_metadata: { topic: 'food' } });
    assert.deepEqual(food.results.slice(1).map((r) => r.source_name), ['bread.txt']);
    const either = await search(ann, kb.id, { query: 'rockets cats bread', method: 'full_text', filter_metadata: { topic: ['space', 'animals'] } });
    assert.deepEqual([...new Set(either.results.slice(1).map((r) => r.source_name))].sort(), ['cats.txt', 'rockets.md']);

    const bad = async (body: unknown, error: string) => assert.deepEqual(await json(await post(ann, `/knowledge-bases/${kb.id}/search`, body), 400), { error });
    await bad({}, 'query: query is required');
    await bad({ query: 'x', method: 'tree_search' }, 'retrieval_config.method "tree_search" does not suit the chunk_embed strategy: use one of vector_search, full_text, hybrid');
    await bad({ query: 'x', top_k: 0 }, 'top_k: top_k must be an integer from 1 to 100');
    assert.deepEqual(await json(await post(bob, `/knowledge-bases/${kb.id}/search`, { query: 'x' }), 404), { error: 'Knowledge base not found' });

    // PATCH stores retrieval_config as sent; the next search uses it, missing keys from the defaults.
    await json(await patch(ann, `/knowledge-bases/${kb.id}`, { retrieval_config: { method: 'full_text', top_k: 1 } }), 200);
    const stored = await json<Kb>(await api(ann, `/knowledge-bases/${kb.id}`), 200);
    assert.deepEqual(stored.retrieval_config, { method: 'full_text', top_k: 1 });
    const one = await search(ann, kb.id, { query: 'rockets' });
    assert.deepEqual([one.results[0].method, one.results.length], ['full_text', 2]);
  });

  it('builds BM25 in a job, refuses it for vector-only knowledge bases, and keeps full_text working without embeddings', async () => {
    const kb = await withCorpus(ann, { name: 'Lexical', indexing_config: { embedding_model: null }, retrieval_config: { method: 'full_text' } });
    const build = await json<{ task_id: string; knowledge_base_id: string }>(await post(ann, `/knowledge-bases/${kb.id}/build-bm25`, {}), 202);
    assert.equal(build.knowledge_base_id, kb.id);
    assert.match(build.task_id, /^\d+$/);
    const ready = await until('the BM25 build', async () => json<Kb>(await api(ann, `/knowledge-bases/${kb.id}`), 200), (k) => k.bm25_status === 'ready');
    assert.equal(ready.bm25_status, 'ready');
    const { rows: [counts] } = await p.adminPool.query('select count(*)::int as docs, (select count(*)::int from ai.kb_bm25_postings where kb_id = $1) as postings from ai.kb_bm25_docs where kb_id = $1', [kb.id]);
    assert.equal(counts.docs, 4, 'one length per item');
    assert.ok(counts.postings > 20);
    const hit = await search(ann, kb.id, { query: 'sourdough' });
    assert.equal(hit.results[1]!.source_name, 'bread.txt');
    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${kb.id}/search`, { query: 'x', method: 'vector_search' }), 400),
      { error: 'This knowledge base keeps no embeddings (indexing_config.embedding_model is null): search it with full_text' });

    const vectorOnly = await createKb(ann, { name: 'Vectors', indexing_config: { strategy: 'full_document' } });
    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${vectorOnly.id}/build-bm25`, {}), 400),
      { error: 'BM25 is built only for the full_text and hybrid methods; this knowledge base searches with vector_search' });
    assert.deepEqual(await json(await post(bob, `/knowledge-bases/${kb.id}/build-bm25`, {}), 404), { error: 'Knowledge base not found' });
  });

  it('cancels, deletes and re-indexes indexed sources through their state machine', async () => {
    const kb = await withCorpus(ann, { name: 'States', indexing_config: { embedding_model: 'local/hash' } });
    const list = await entries(ann, kb.id);
    const rockets = list.items.find((e) => e.source_name === 'rockets.md')!;
    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${kb.id}/sources/${rockets.id}/cancel`, {}), 409), { error: 'Only a pending or indexing source can be cancelled; this one is indexed' });
    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${kb.id}/sources/00000000-0000-4000-8000-000000000000/cancel`, {}), 404), { error: 'Indexed source not found in this knowledge base' });
    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${kb.id}/reindex`, { failed_only: true }), 200), { status: 'noop', message: 'No failed sources to re-index', knowledge_base_id: kb.id });

    // An indexing_config change marks the knowledge base; re-indexing all clears it.
    const changed = await json<Kb>(await patch(ann, `/knowledge-bases/${kb.id}`, { indexing_config: { embedding_model: 'local/hash', chunk_size: 64 } }), 200);
    assert.equal(changed.needs_reindex, true);
    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${kb.id}/reindex`, { indexed_source_ids: [rockets.id], failed_only: true }), 202), { status: 'queued', count: 1, knowledge_base_id: kb.id }, 'ids win over failed_only');
    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${kb.id}/reindex`, {}), 202), { status: 'queued', count: 3, knowledge_base_id: kb.id });
    await settled(ann, kb.id, 3);
    assert.equal((await json<Kb>(await api(ann, `/knowledge-bases/${kb.id}`), 200)).needs_reindex, false);
    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${kb.id}/reindex`, { indexed_source_ids: ['00000000-0000-4000-8000-000000000000'] }), 404),
      { error: 'Indexed source 00000000-0000-4000-8000-000000000000 not found in this knowledge base' });

    // A source that cannot be extracted fails its indexing, with words; cancel then answers 409 too.
    const broken = await upload(ann, 'broken.docx', 'not a zip at all');
    const failed = await json<Entry>(await post(ann, `/knowledge-bases/${kb.id}/sources`, { source_id: broken.id }), 202);
    const seen = await until('the failure', async () => (await entries(ann, kb.id, '?status=failed')).items, (l) => l.length === 1);
    assert.equal(seen[0]!.id, failed.id);
    assert.equal(seen[0]!.error_message, 'The source could not be read (extraction failed): re-extract it, then reindex');
    assert.equal((await entries(ann, kb.id)).items[0]!.source_name, 'broken.docx', 'failed first');
    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${kb.id}/reindex`, { failed_only: true }), 202), { status: 'queued', count: 1, knowledge_base_id: kb.id });

    // DELETE removes the entry and everything derived; the source stays.
    const del = await json(await api(ann, `/knowledge-bases/${kb.id}/sources/${rockets.id}`, { method: 'DELETE' }), 200);
    assert.deepEqual(del, { message: 'Indexed source deleted', deleted_indexed_source_id: rockets.id, kb_id: kb.id });
    const { rows: [left] } = await p.adminPool.query(
      `select (select count(*)::int from ai.kb_items where kb_source_id = $1) as items, (select count(*)::int from ai.kb_bm25_docs d join ai.kb_items i on i.id = d.item_id where i.source_id = $2 and i.kb_id = $3) as docs,
              (select count(*)::int from ai.sources where id = $2) as source`, [rockets.id, sources['rockets.md'], kb.id]);
    assert.deepEqual(left, { items: 0, docs: 0, source: 1 });
    assert.deepEqual(await json(await api(ann, `/knowledge-bases/${kb.id}/sources/${rockets.id}`, { method: 'DELETE' }), 404), { error: 'Indexed source not found in this knowledge base' });
    assert.equal((await search(ann, kb.id, { query: 'kerosene', method: 'full_text' })).results.length, 1, 'nothing of it is found any more');

    // Deleting the knowledge base removes every derived row.
    await json(await api(ann, `/knowledge-bases/${kb.id}`, { method: 'DELETE' }), 200);
    const { rows: [gone] } = await p.adminPool.query('select (select count(*)::int from ai.kb_items where kb_id = $1) + (select count(*)::int from ai.kb_vectors where kb_id = $1) + (select count(*)::int from ai.kb_bm25_postings where kb_id = $1) as n', [kb.id]);
    assert.equal(gone.n, 0);
  });

  it('embeds through the model router, reranks and enriches queries with scripted models, and fails clearly without a provider', async () => {
    const noKey = await createKb(ann, { name: 'No key' });
    await json(await post(ann, `/knowledge-bases/${noKey.id}/sources`, { source_id: sources['cats.txt'] }), 202);
    const [failed] = (await settled(ann, noKey.id, 1)).items;
    assert.equal(failed!.index_status, 'failed');
    assert.match(failed!.error_message!, /^No provider key for openai: store one \(POST \/api\/ai-provider-keys\)/);

    await storeOpenAiKey(p);
    vendor.reset();
    const kb = await withCorpus(ann, { name: 'Embedded' });
    const embeds = vendor.requests.filter((r) => r.path.endsWith('/embeddings'));
    assert.ok(embeds.length >= 1 && embeds.every((r) => r.body.model === 'text-embedding-3-small' && r.body.encoding_format === 'float'));
    const vector = await search(ann, kb.id, { query: 'cats', method: 'vector_search' });
    assert.equal(vector.results[0].methods.vector_search.model, 'text-embedding-3-small');
    assert.equal(vector.results.length, 5, 'every item is a candidate in a corpus this small (4 items, top_k 5)');

    // Embedding requests stay within EMBEDDING_MAX_TOKENS_PER_BATCH (100 here), however many chunks there are.
    await json(await api(service, '/settings', { method: 'PUT', body: JSON.stringify({ settings: { EMBEDDING_MAX_TOKENS_PER_BATCH: '100' } }) }), 200);
    const long = await upload(ann, 'long.txt', Array.from({ length: 12 }, (_, i) => `Paragraph ${i} explains how the second stage turbopump number ${i} is tested before flight.`).join('\n\n'));
    const batched = await createKb(ann, { name: 'Batched', indexing_config: { chunk_size: 64, overlap: 0 } });
    vendor.reset();
    await json(await post(ann, `/knowledge-bases/${batched.id}/sources`, { source_id: long.id }), 202);
    const [entry] = (await settled(ann, batched.id, 1)).items;
    const requests = vendor.requests.filter((r) => r.path.endsWith('/embeddings')).map((r) => r.body.input as string[]);
    assert.ok(requests.length > 1, `${requests.length} requests`);
    for (const input of requests) assert.ok(input.reduce((n, t) => n + encode(t).length, 0) <= 100, 'each request within the budget');
    assert.equal(requests.flat().length, entry!.stats.items, 'every chunk embedded once');
    await json(await api(service, '/settings', { method: 'PUT', body: JSON.stringify({ settings: { EMBEDDING_MAX_TOKENS_PER_BATCH: '8000' } }) }), 200);

    vendor.script({ text: '{"scores": [1, 9, 3, 0, 2]}' });
    const reranked = await search(ann, kb.id, { query: 'kerosene rockets', method: 'full_text', reranker: { model: 'gpt-4.1-mini', candidate_count: 5 }, top_k: 2 });
    const rd = reranked.results[0];
    assert.equal(rd.reranker.model, 'gpt-4.1-mini');
    const [first, second] = reranked.results.slice(1) as Result[];
    assert.equal(first!.reranker_score, 0.9);
    assert.equal(first!.score, 0.9, 'the score is the reranker score once reranked');
    assert.ok(first!.retrieval_score < (second!.retrieval_score ?? 0) || second!.reranker_score! < 0.9);
    const scored = vendor.chats().at(-1)!.body.messages.at(-1).content as string;
    assert.match(scored, /^Query: kerosene rockets/);
    vendor.script({ text: '{"scores": [10, 10]}' });
    const threshold = await search(ann, kb.id, { query: 'rockets', method: 'full_text', reranker: { candidate_count: 2 }, score_threshold: 1.5 });
    assert.equal(threshold.results.length, 1, 'the threshold applies after reranking');

    // A hosted rerank endpoint (rerank/<model>) scores through the router, recorded in the ledger.
    const hosted = await search(ann, kb.id, { query: 'wild yeast flour', method: 'full_text', reranker: { model: 'rerank/bge-reranker-v2-m3', candidate_count: 5 } });
    assert.equal(hosted.results[1]!.source_name, 'bread.txt');
    assert.equal(hosted.results[1]!.reranker_score, 1, 'all three words');
    const sentRerank = vendor.requests.filter((r) => r.path === '/rerank/v1/rerank').at(-1)!;
    assert.deepEqual([sentRerank.body.model, sentRerank.body.query, sentRerank.body.top_n], ['bge-reranker-v2-m3', 'wild yeast flour', sentRerank.body.documents.length]);
    const { rows: [ledger] } = await p.adminPool.query(`select kind, provider, tokens_in from ai.usage where model = 'rerank/bge-reranker-v2-m3' order by id desc limit 1`);
    assert.deepEqual(ledger, { kind: 'rerank', provider: 'rerank', tokens_in: 42 });

    vendor.script({ text: '{"queries": ["sourdough starter feeding", "wild yeast bread"]}' });
    const enriched = await search(ann, kb.id, { query: 'how to keep a starter alive', method: 'full_text', query_enrichment: { enabled: true } });
    assert.deepEqual(enriched.metadata.query_enrichment.queries, ['how to keep a starter alive', 'sourdough starter feeding', 'wild yeast bread']);
    assert.deepEqual(enriched.results[0].queries, enriched.metadata.query_enrichment.queries);
    assert.equal(enriched.results[1]!.source_name, 'bread.txt');
    const { rows: usage } = await p.adminPool.query(`select kind, model from ai.usage where feature = 'search' order by created_at`);
    assert.ok(usage.some((u) => u.kind === 'embedding') && usage.some((u) => u.kind === 'chat'), 'every model call is in the ledger');
  });

  it('indexes whole documents with summaries (full_document) and JSON items (doc2json)', async () => {
    await storeOpenAiKey(p).catch(() => undefined);
    vendor.script({ text: 'A summary about rockets and kerosene.' });
    const doc = await createKb(ann, { name: 'Whole', indexing_config: { strategy: 'full_document', embedding_model: 'local/hash' } });
    await json(await post(ann, `/knowledge-bases/${doc.id}/sources`, { source_id: sources['rockets.md'] }), 202);
    assert.equal((await settled(ann, doc.id, 1)).items[0]!.index_status, 'indexed');
    const items = await json<{ items: Array<Record<string, any>> }>(await post(ann, `/knowledge-bases/${doc.id}/items`, { source_ids: [sources['rockets.md']] }), 200);
    assert.equal(items.items.length, 1);
    assert.equal(items.items[0]!.summary, 'A summary about rockets and kerosene.', 'the strategy extra is spread into the item');
    assert.match(items.items[0]!.text, /Multistage rockets/);
    const found = await search(ann, doc.id, { query: 'rockets kerosene' });
    assert.equal(found.results[1]!.indexing_strategy, 'full_document');
    assert.match(found.results[1]!.text, /Liquid-fuel rockets/, 'the whole document comes back');

    vendor.script({ text: JSON.stringify({ items: [{ title: 'Sourdough', content: 'rises with wild yeast' }, { title: 'Starter', content: 'fed daily' }] }) });
    const structured = await createKb(ann, { name: 'JSON', indexing_config: { strategy: 'doc2json', embedding_model: 'local/hash' } });
    await json(await post(ann, `/knowledge-bases/${structured.id}/sources`, { source_id: sources['bread.txt'] }), 202);
    assert.equal((await settled(ann, structured.id, 1)).items[0]!.index_status, 'indexed');
    const made = await json<{ items: Array<Record<string, any>> }>(await post(ann, `/knowledge-bases/${structured.id}/items`, { source_ids: [sources['bread.txt']] }), 200);
    assert.deepEqual(made.items.map((i) => i.data), [{ title: 'Sourdough', content: 'rises with wild yeast' }, { title: 'Starter', content: 'fed daily' }]);
    const sent = vendor.chats().at(-1)!.body;
    assert.equal(sent.response_format.type, 'json_schema');
    const hit = await search(ann, structured.id, { query: 'starter fed', method: 'full_text' });
    assert.equal(hit.results[1]!.text, '{"title":"Starter","content":"fed daily"}');
  });

  it('evaluates methods on labelled queries with nDCG@10, recall@k and MRR', async () => {
    const kb = await withCorpus(ann, { name: 'Evaluated', indexing_config: { embedding_model: 'local/hash' } });
    const body = {
      queries: [
        { query: 'kerosene oxygen', relevant_source_ids: [sources['rockets.md']] },
        { query: 'domesticated felines', relevant_source_ids: [sources['cats.txt']] },
      ],
      k: 5,
    };
    const out = await json<{ k: number; methods: Record<string, Record<string, number>> }>(await post(ann, `/knowledge-bases/${kb.id}/evaluate`, body), 200);
    assert.deepEqual(Object.keys(out.methods).sort(), ['full_text', 'hybrid', 'vector_search']);
    assert.deepEqual([out.methods.full_text!.ndcg_at_10, out.methods.full_text!.recall_at_5, out.methods.full_text!.mrr, out.methods.full_text!.queries], [1, 1, 1, 2]);
    assert.deepEqual(await json(await post(ann, `/knowledge-bases/${kb.id}/evaluate`, { queries: [] }), 400), { error: 'queries: queries must not be empty' });
  });
});
