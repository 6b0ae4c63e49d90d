// The knowledge-base tests' shared fixture: a platform with the in-process
// worker and the scripted OpenAI-compatible vendor, two users, and a small
// corpus whose right answers are known, uploaded as ann's sources; with the
// helpers those tests share (upload, wait for indexing, create, search).
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { aiApi, signUp } from './ai-api.ts';
import { eventually } from './eventually.ts';
import { startVendorServer, type VendorServer } from './openai-server.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from './platform.ts';

export type Kb = { id: string; name: string; strategy: string; indexing_config: Record<string, any>; retrieval_config: Record<string, any>; bm25_status: string; needs_reindex: boolean; status: Record<string, number> };
export type Entry = { id: string; source_id: string; index_status: string; error_message: string | null; stats: Record<string, any>; source_name: string; file_type: string };
export type Result = { id: string; text: string; score: number; retrieval_score: number; reranker_score: number | null; source_id: string; source_name: string; knowledge_base_id: string; kb_name: string; indexing_strategy: string; meta: Record<string, any> };
export type Search = { results: [Record<string, any>, ...Result[]]; metadata: { query_enrichment: { enabled: boolean; queries: string[] } } };

export const CORPUS: Record<string, { text: string; metadata: Record<string, unknown> }> = {
  'rockets.md': { text: '# Rockets\n\nLiquid-fuel rockets burn kerosene with liquid oxygen in a combustion chamber.\n\n## Staging\n\nMultistage rockets drop their empty tanks to save mass on the way to orbit.', metadata: { topic: 'space' } },
  'cats.txt': { text: 'Cats are small domesticated felines.\n\nThey purr, sleep most of the day and hunt mice at night.', metadata: { topic: 'animals' } },
  'bread.txt': { text: 'Sourdough bread rises with wild yeast and lactic bacteria.\n\nBakers feed the starter with flour and water every day.', metadata: { topic: 'food' } },
};

/** Registers the platform's start and stop (call inside a describe); `state` is filled once it has started. */
export function knowledgeBaseFixture() {
  const state = { p: undefined as unknown as TestPlatform, vendor: undefined as unknown as VendorServer, ann: '', bob: '', service: '', sources: {} as Record<string, string> };
  const { api, json, post, patch, headers } = aiApi(() => state.p);
  const { sources } = state;

  const upload = async (token: string, filename: string, text: string | Buffer, metadata: Record<string, unknown> = {}) => {
    const form = new FormData();
    form.append('metadata', JSON.stringify(metadata));
    form.append('file', new Blob([typeof text === 'string' ? text : new Uint8Array(text)]), filename);
    const { 'content-type': _json, ...rest } = headers(token);
    return json<{ id: string }>(await fetch(`${state.p.url}/api/sources/upload`, { method: 'POST', headers: rest, body: form }), 201);
  };
  /** Waits for a job's effect; on a timeout says where the knowledge-base jobs stand. */
  const until = <T>(what: string, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> => eventually(what, read, done, {
    tries: 600,
    explain: async () => `jobs ${JSON.stringify((await state.p.adminPool.query(`select task_identifier, key, attempts, last_error, locked_at is not null as locked from graphile_worker.jobs where task_identifier like 'ai_kb%'`)).rows)}`,
  });
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
    state.vendor = await startVendorServer();
    state.p = await startTestPlatform({ ...state.vendor.env, AI_PROVIDER_MAX_RETRIES: '0' });
    state.ann = (await signUp(state.p, 'ann-kb@example.com')).access_token;
    state.bob = (await signUp(state.p, 'bob-kb@example.com')).access_token;
    state.service = state.p.keys.serviceRoleKey;
    for (const [name, doc] of Object.entries(CORPUS)) sources[name] = (await upload(state.ann, name, doc.text, doc.metadata)).id;
  });
  after(async () => {
    await stopTestPlatform(state.p);
    await state.vendor.close();
  });
  return { state, sources, api, json, post, patch, headers, upload, until, entries, settled, createKb, search, withCorpus };
}
