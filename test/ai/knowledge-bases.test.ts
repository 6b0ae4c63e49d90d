// /api/knowledge-bases over HTTP with the in-process worker, on a small corpus
// whose right answers are known: CRUD with configs merged over the strategy
// defaults, indexed sources through their states (waiting for extraction,
// indexed, failed, cancelled, deleted, re-indexed), the list of 4.13, items,
// BM25 built and kept current, full_text, vector_search and hybrid with the
// diagnostics entry, filter_metadata, reranking and query enrichment scripted
// on the OpenAI-compatible test server, embeddings through it, full_document
// and doc2json, the evaluation endpoint, and every error of 4.13. Also
// /api/context-handlers (4.15): several knowledge bases, a token budget,
// per-base errors, stored results.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { subscribed } from '../helpers/realtime.ts';
import { makePdf } from '../helpers/documents.ts';
import { encode } from 'gpt-tokenizer';
import { createClient } from '@supabase/supabase-js';

type Kb = { id: string; name: string; strategy: string; indexing_config: Record<string, any>; retrieval_config: Record<string, any>; bm25_status: string; needs_reindex: boolean; status: Record<string, number> };
type Entry = { id: string; source_id: string; index_status: string; error_message: string | null; stats: Record<string, any>; source_name: string; file_type: string };
type Result = { id: string; text: string; score: number; retrieval_score: number; reranker_score: number | null; source_id: string; source_name: string; knowledge_base_id: string; kb_name: string; indexing_strategy: string; meta: Record<string, any> };
type Search = { results: [Record<string, any>, ...Result[]]; metadata: { query_enrichment: { enabled: boolean; queries: string[] } } };

const CORPUS: Record<string, { text: string; metadata: Record<string, unknown> }> = {
  'rockets.md': { text: '# Rockets\n\nLiquid-fuel rockets burn kerosene with liquid oxygen in a combustion chamber.\n\n## Staging\n\nMultistage rockets drop their empty tanks to save mass on the way to orbit.', metadata: { topic: 'space' } },
  'cats.txt': { text: 'Cats are small domesticated felines.\n\nThey purr, sleep most of the day and hunt mice at night.', metadata: { topic: 'animals' } },
  'bread.txt': { text: 'Sourdough bread rises with wild yeast and lactic bacteria.\n\nBakers feed the starter with flour and water every day.', metadata: { topic: 'food' } },
};

describe('knowledge bases', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let ann: string;
  let bob: string;
  let service: string;
  const sources: Record<string, string> = {};
  const { api, json, post, patch, headers } = aiApi(() => p);

  const upload = async (token: string, filename: string, text: string | Buffer, metadata: Record<string, unknown> = {}) => {
    const form = new FormData();
    form.append('metadata', JSON.stringify(metadata));
    form.append('file', new Blob([typeof text === 'string' ? text : new Uint8Array(text)]), filename);
    const { 'content-type': _json, ...rest } = headers(token);
    return json<{ id: string }>(await fetch(`${p.url}/api/sources/upload`, { method: 'POST', headers: rest, body: form }), 201);
  };
  const until = async <T>(what: string, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> => {
    let v: T | undefined;
    for (let i = 0; i < 600; i++) {
      v = await read();
      if (done(v)) return v;
      await new Promise((r) => setTimeout(r, 50));
    }
    const { rows: jobs } = await p.adminPool.query(`select task_identifier, key, attempts, last_error, locked_at is not null as locked from graphile_worker.jobs where task_identifier like 'ai_kb%'`);
    assert.fail(`${what} did not happen: ${JSON.stringify(v)}; jobs ${JSON.stringify(jobs)}`);
  };
  const entries = async (token: string, kb: string, query = '') => json<{ items: Entry[]; total: number; limit: number; offset: number }>(await api(token, `/knowledge-bases/${kb}/sources${query}`), 200);
  const settled = (token: string, kb: string, count: number) =>
    until('indexing', () => entries(token, kb), (l) => l.total === count && l.items.every((e) => !['pending', 'indexing'].includes(e.index_status)));
  const createKb = async (token: string, body: Record<string, unknown>) => json<Kb>(await post(token, '/knowledge-bases', body), 201);
  const search = async (token: string, kb: string, body: Record<string, unknown>) => json<Search>(await post(token, `/knowledge-bases/${kb}/search`, body), 200);
  const withCorpus = async (token: string, body: Record<string, unknown>) => {
    const kb = await createKb(token, body);
    for (const id of Object.values(sources)) await json(await post(token, `/knowledge-bases/${kb.id}/sources`, { source_id: id }), 202);
    const list = await settled(token, kb.id, Object.keys(sources).length);
    assert.deepEqual(list.items.map((e) => [e.source_name, e.index_status, e.error_message]).sort(), Object.keys(CORPUS).map((n) => [n, 'indexed', null]).sort());
    return kb;
  };

  before(async () => {
    vendor = await startVendorServer();
    p = await startTestPlatform({ ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0' });
    ann = (await signUp(p, 'ann-kb@example.com')).access_token;
    bob = (await signUp(p, 'bob-kb@example.com')).access_token;
    service = p.keys.serviceRoleKey;
    for (const [name, doc] of Object.entries(CORPUS)) sources[name] = (await upload(ann, name, doc.text, doc.metadata)).id;
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
  });

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
    assert.deepEqual(await json(await api(ann, `/knowledge-bases/${kb.id}/sources?limit=201`), 400), { error: 'limit must be at most 200' });
    assert.deepEqual(await json(await api(ann, `/knowledge-bases/${kb.id}/sources?status=done`), 400), { error: 'status must be one of pending, indexing, indexed, failed, cancelled' });
    assert.deepEqual(await json(await api(ann, `/knowledge-bases/${kb.id}/sources?sort=size`), 400), { error: 'sort must be one of name, created_at' });

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
    assert.deepEqual(await json(await api(ann, `/knowledge-bases/${kb.id}/enrichment/results`), 400), { error: 'item_ids is required: item ids separated by commas' });
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
    const stream = await (await post(ann, `/agents/${agent.id}/run/stream`, { message: 'What do cats do?', session_id: run.session_id })).text();
    const retrieval = stream.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6))).find((e) => e.type === 'retrieval');
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
