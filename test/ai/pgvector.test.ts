// vector_search through pgvector (sql/0049) on a PostgreSQL that has the
// extension. Neither Debian's PostgreSQL 15 nor the embedded 17 ships
// pgvector, so this runs on PGlite (ElectricSQL's PostgreSQL 18 compiled to
// WebAssembly) with its pgvector 0.8 build, served over the wire protocol by
// pglite-socket. Everything else is the production path: db/migrate.ts
// applies the migrations, ai.store_kb_items stores the vectors,
// searchVectors searches (ai.kb_nearest_vectors), and auto_explain shows the
// plan the function ran. The same functions without the extension are
// covered by test/sql/36_pgvector_absent.sql and knowledge-bases.test.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { migrate } from '../../db/migrate.ts';
import type { RequestContext } from '../../db/as-role.ts';
import { aiCalls, type AiCalls } from '../../server/ai/calls.ts';
import { dot, signCode, vectorBytes } from '../../server/ai/knowledge/embedder.ts';
import { searchVectors } from '../../server/ai/knowledge/retrieval/vector.ts';
import { PLANS_AS_NOTICES, startPgvectorDatabase } from '../helpers/pglite.ts';

const service: RequestContext = { role: 'service_role', claims: { role: 'service_role' } };
const userCtx = (id: string): RequestContext => ({ role: 'authenticated', claims: { sub: id, role: 'authenticated' } });

// A seeded generator: the same vectors every run.
let seed = 7;
const uniform = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) + 0.5) / 4294967296;
const unit = (dims: number): Float32Array => {
  const v = Float32Array.from({ length: dims }, () => uniform() - 0.5);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
};

describe('vector_search with pgvector', () => {
  let database: Awaited<ReturnType<typeof startPgvectorDatabase>>;
  let pool: pg.Pool;
  let calls: AiCalls;
  let plans: string[] = [];
  const owner = randomUUID();
  const stranger = randomUUID();

  /** A knowledge base of `owner` with one source being indexed; vectors go in through ai.store_kb_items. */
  async function knowledgeBase(name: string) {
    const { rows: [kb] } = await pool.query(`insert into ai.knowledge_bases (owner_id, name, indexing_config, retrieval_config, strategy)
      values ($1, $2, '{"embedding_model": "m"}', '{"method": "vector_search"}', 'chunk_embed') returning id`, [owner, name]);
    const { rows: [src] } = await pool.query(`insert into ai.sources (owner_id, name, origin, extension, content_type, size_bytes, object_path, extraction_status)
      values ($1, $2, 'upload', 'txt', 'text/plain', 0, 'none', 'extracted') returning id`, [owner, `${name}.txt`]);
    const { rows: [entry] } = await pool.query(`insert into ai.kb_sources (kb_id, source_id, index_status) values ($1, $2, 'indexing') returning id`, [kb.id, src.id]);
    const ids: string[] = [];
    const store = async (model: string, vectors: Float32Array[], meta: (i: number) => object = () => ({})) => {
      for (let i = 0; i < vectors.length; i += 200) {
        const rows = vectors.slice(i, i + 200).map((v, j) => ({
          position: ids.length + i + j, kind: 'chunk', text: `chunk ${i + j}`, meta: meta(i + j), token_count: 2,
          embedding_model: model, code: signCode(v), embedding: vectorBytes(v).toString('base64'),
        }));
        assert.equal((await calls.asService<{ n: number }>('select ai.store_kb_items($1, 1, $2::jsonb) as n', [entry.id, JSON.stringify(rows)]))[0]!.n, rows.length);
      }
      const { rows: stored } = await pool.query<{ id: string }>(
        `select i.id from ai.kb_items i join ai.kb_vectors v on v.item_id = i.id where i.kb_id = $1 and v.model = $2 order by i.position`, [kb.id, model]);
      return stored.map((r) => r.id);
    };
    return { id: kb.id as string, store };
  }

  const exactTop = (q: Float32Array, data: Float32Array[], ids: string[], k: number) =>
    data.map((v, i) => ({ id: ids[i]!, s: dot(q, v) })).sort((a, b) => b.s - a.s).slice(0, k).map((x) => x.id);

  before(async () => {
    database = await startPgvectorDatabase();
    await migrate(database.url);
    pool = new pg.Pool({ connectionString: database.url, max: 1 });
    pool.on('connect', (client) => client.on('notice', (n) => { if (n.message?.includes('Query Text')) plans.push(n.message); }));
    calls = aiCalls(pool);
    await pool.query(`insert into auth.users (id, email) values ($1, 'owner@example.com'), ($2, 'stranger@example.com')`, [owner, stranger]);
    await pool.query(PLANS_AS_NOTICES);
  });

  after(async () => {
    await pool?.end();
    await database?.stop();
  });

  it('is enabled by the migrations where the extension is available: pgvector in schema extensions, ai.kb_vectors.ann filled by a trigger', async () => {
    const { rows: [state] } = await pool.query(`select ai.pgvector_schema() as schema, ai.pgvector_in_use() as in_use,
      (select format_type(atttypid, atttypmod) from pg_attribute where attrelid = 'ai.kb_vectors'::regclass and attname = 'ann') as type,
      (select count(*)::int from pg_trigger where tgrelid = 'ai.kb_vectors'::regclass and tgname = 'kb_vectors_fill_ann') as triggers`);
    assert.deepEqual(state, { schema: 'extensions', in_use: true, type: 'extensions.vector', triggers: 1 });
    assert.equal((await pool.query('select ai.pgvector_enable() as again')).rows[0].again, true, 'enabling twice changes nothing and says it is on');
  });

  it('keeps each embedding in ann exactly as its float32 bytes, and makes the (model, dims) index before the first vector', async () => {
    const kb = await knowledgeBase('exact');
    const awkward = Float32Array.from([0.1, -3.5e-8, 1e-40, 123456.78, -1, 2 ** -126, 0.333333343267]);
    const [id] = await kb.store('awkward', [awkward]);
    const { rows: [row] } = await pool.query<{ ann: number[] }>('select ann::real[] as ann from ai.kb_vectors where item_id = $1', [id]);
    assert.deepEqual(row!.ann.map((x) => Math.fround(Number(x))), Array.from(awkward), 'every float32 decoded exactly, a subnormal one included');
    const { rows: indexes } = await pool.query(`select x.model, x.dims, pg_get_indexdef(c.oid) as def from ai.kb_vector_indexes x
      join pg_class c on c.relname = x.index_name where x.model = 'awkward'`);
    assert.equal(indexes.length, 1);
    assert.match(indexes[0].def, /USING hnsw \(\(\(ann\)::extensions\.vector\(7\)\) extensions\.vector_cosine_ops\) WHERE \(\(model = 'awkward'::text\) AND \(dims = 7\)\)/);
  });

  it('searches through the HNSW index, within the knowledge base, and finds the exact nearest', async () => {
    const kb = await knowledgeBase('big');
    const other = await knowledgeBase('other');
    const data = Array.from({ length: 3000 }, () => unit(48));
    const ids = await kb.store('m', data);
    await other.store('m', Array.from({ length: 300 }, () => unit(48)));
    await pool.query('analyze ai.kb_vectors');
    // At 3,000 rows sorting them all costs less than the index, and the
    // planner rightly scans exactly; without sorts it must take the HNSW
    // index, which shows the statement matches the partial index at all.
    await pool.query('set enable_sort = off');
    let recall = 0;
    for (let q = 0; q < 5; q++) {
      const query = unit(48);
      plans = [];
      const found = await searchVectors(calls, { ctx: userCtx(owner), kbId: kb.id, limit: 10, filter: null, embeddingModel: 'm' }, query);
      assert.equal(found.via, 'pgvector');
      assert.equal(found.candidates, 300);
      assert.ok(found.scored.every((s) => ids.includes(s.id)), 'only this knowledge base\'s items');
      for (const s of found.scored) assert.ok(Math.abs(s.score - dot(query, data[ids.indexOf(s.id)]!)) < 1e-5, 'scored by cosine in SQL');
      const truth = exactTop(query, data, ids, 10);
      recall += truth.filter((id) => found.scored.some((s) => s.id === id)).length / 10;
      const plan = plans.find((p) => p.includes('from ai.kb_vectors v'));
      assert.match(plan ?? '', /Index Scan using kb_vectors_hnsw_\w+ on kb_vectors v/, `the function's statement used the HNSW index:\n${plan}`);
    }
    await pool.query('reset enable_sort');
    assert.ok(recall / 5 >= 0.9, `recall@10 ${recall / 5}`);

    await assert.rejects(searchVectors(calls, { ctx: userCtx(stranger), kbId: kb.id, limit: 10, filter: null, embeddingModel: 'm' }, unit(48)),
      (err: { status?: number; message?: string }) => err.status === 404 && err.message === 'Knowledge base not found');
  });

  it('applies filter_metadata inside the index scan, still returning a full page', async () => {
    const kb = await knowledgeBase('filtered');
    const data = Array.from({ length: 1500 }, () => unit(24));
    const ids = await kb.store('f', data, (i) => ({ shelf: i % 5 === 0 ? 'rare' : 'common' }));
    await pool.query('analyze ai.kb_vectors');
    const rare = new Set(ids.filter((_, i) => i % 5 === 0));
    const query = unit(24);
    await pool.query('set enable_sort = off');
    plans = [];
    const found = await searchVectors(calls, { ctx: service, kbId: kb.id, limit: 10, filter: { shelf: 'rare' }, embeddingModel: 'f' }, query);
    await pool.query('reset enable_sort');
    assert.match(plans.find((p) => p.includes('from ai.kb_vectors v')) ?? '', /Index Scan using kb_vectors_hnsw_\w+ on kb_vectors v/);
    assert.equal(found.via, 'pgvector');
    assert.equal(found.candidates, 300, 'iterative scans keep going past the rows the filter drops');
    assert.ok(found.scored.every((s) => rare.has(s.id)));
    const truth = exactTop(query, data.filter((_, i) => i % 5 === 0), [...rare], 10);
    assert.ok(truth.filter((id) => found.scored.some((s) => s.id === id)).length >= 9);
  });

  it('indexes 2,001 to 4,000 dimensions as halfvec and leaves wider vectors to the sign bits', async () => {
    const kb = await knowledgeBase('wide');
    const wide = Array.from({ length: 20 }, () => unit(2048));
    const huge = Array.from({ length: 20 }, () => unit(4100));
    const wideIds = await kb.store('wide', wide);
    const hugeIds = await kb.store('huge', huge);
    const { rows } = await pool.query(`select x.model, x.index_name is not null as indexed,
        (select pg_get_indexdef(c.oid) from pg_class c where c.relname = x.index_name) as def
      from ai.kb_vector_indexes x where x.model in ('wide', 'huge') order by x.model`);
    assert.deepEqual(rows.map((r) => [r.model, r.indexed]), [['huge', false], ['wide', true]]);
    assert.match(rows[1].def, /\(\(ann\)::extensions\.halfvec\(2048\)\) extensions\.halfvec_cosine_ops/);

    const w = await searchVectors(calls, { ctx: service, kbId: kb.id, limit: 3, filter: null, embeddingModel: 'wide' }, wide[7]!);
    assert.equal(w.via, 'pgvector');
    assert.equal(w.scored[0]!.id, wideIds[7]);
    const h = await searchVectors(calls, { ctx: service, kbId: kb.id, limit: 3, filter: null, embeddingModel: 'huge' }, huge[11]!);
    assert.equal(h.via, 'sign_bits');
    assert.equal(h.scored[0]!.id, hugeIds[11]);
  });

  it('pgvector_disable returns search to the sign bits; pgvector_enable backfills every row and rebuilds the indexes', async () => {
    const kb = await knowledgeBase('toggle');
    const data = Array.from({ length: 200 }, () => unit(16));
    const ids = await kb.store('t', data);
    const search = () => searchVectors(calls, { ctx: service, kbId: kb.id, limit: 5, filter: null, embeddingModel: 't' }, data[42]!);

    await pool.query('select ai.pgvector_disable()');
    assert.equal((await pool.query('select ai.pgvector_in_use() as on')).rows[0].on, false);
    assert.equal((await pool.query(`select count(*)::int as n from pg_indexes where schemaname = 'ai' and indexname like 'kb_vectors_hnsw_%'`)).rows[0].n, 0);
    const off = await search();
    assert.equal(off.via, 'sign_bits');
    assert.equal(off.scored[0]!.id, ids[42]);

    assert.equal((await pool.query('select ai.pgvector_enable() as on')).rows[0].on, true);
    const { rows: [counts] } = await pool.query(`select count(*)::int as rows, count(ann)::int as filled,
      count(*) filter (where ann::real[] = ai.float32le_reals(embedding))::int as equal from ai.kb_vectors`);
    assert.equal(counts.filled, counts.rows, 'every stored vector backfilled');
    assert.equal(counts.equal, counts.rows);
    const models = (await pool.query(`select count(distinct (model, dims))::int as n from ai.kb_vectors`)).rows[0].n;
    assert.equal((await pool.query(`select count(*)::int as n from ai.kb_vector_indexes x join pg_indexes i on i.indexname = x.index_name`)).rows[0].n, models - 1, 'an index for every pair but the one over 4,000 dimensions');
    const on = await search();
    assert.equal(on.via, 'pgvector');
    assert.deepEqual(on.scored.map((s) => s.id), off.scored.map((s) => s.id));
  });
});
