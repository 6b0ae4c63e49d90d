// A source added to a knowledge base (or re-indexed) while its extraction is
// ending must not be left waiting (sql/0050). Two real connections make the
// interleaving happen every time: one ends the extraction in an open
// transaction, the other adds the source meanwhile; the add has to wait for
// that commit and then act on how the extraction ended: a job for an
// extracted source, failed with words for a failed one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('indexing wakes up for an extraction ending meanwhile', () => {
  let p: TestPlatform;
  let kb: string;

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    kb = (await p.adminPool.query(`insert into ai.knowledge_bases (name, strategy, indexing_config, retrieval_config)
      values ('wakeup', 'chunk_embed', '{"embedding_model": null}', '{"method": "full_text"}') returning id`)).rows[0].id;
  });
  after(async () => {
    await stopTestPlatform(p);
  });

  const extracting = async (name: string) => (await p.adminPool.query(`insert into ai.sources (name, origin, extension, content_type, size_bytes, object_path, extraction_status)
      values ($1, 'upload', 'txt', 'text/plain', 1, 'x/original.txt', 'extracting') returning id`, [name])).rows[0].id as string;
  const asService = async (c: pg.PoolClient) => c.query(`select set_config('request.jwt.claims', '{"role": "service_role"}', false), set_config('request.jwt.claim.role', 'service_role', false)`);

  /** Ends the source's extraction as `status` in a transaction held open while `meanwhile` runs, then commits. */
  async function endingMeanwhile(source: string, status: string, meanwhile: (c: pg.PoolClient) => Promise<unknown>) {
    const ending = await p.adminPool.connect();
    const adding = await p.adminPool.connect();
    try {
      await asService(adding);
      await ending.query('begin');
      await ending.query(`update ai.sources set extraction_status = $2 where id = $1`, [source, status]);
      let settled = false;
      const added = meanwhile(adding).finally(() => (settled = true));
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(settled, false, 'the add waits for the extraction that is ending');
      await ending.query('commit');
      return await added;
    } finally {
      await adding.query(`select set_config('request.jwt.claims', '', false), set_config('request.jwt.claim.role', '', false)`);
      ending.release();
      adding.release();
    }
  }
  const jobFor = async (entry: string) => (await p.adminPool.query(`select t.identifier as task_identifier, j.payload->>'run' as run from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id where j.key = $1`, [`kb-source:${entry}`])).rows;
  const entry = async (id: string) => (await p.adminPool.query(`select index_status, error_message from ai.kb_sources where id = $1`, [id])).rows[0];

  it('queues the indexing job of a source whose extraction succeeded while it was being added', async () => {
    const source = await extracting('extracted meanwhile');
    const { rows: [added] } = await endingMeanwhile(source, 'extracted', (c) => c.query(`select * from ai.add_kb_source($1, $2)`, [kb, source])) as pg.QueryResult;
    assert.deepEqual(await jobFor(added.id), [{ task_identifier: 'ai_kb_index', run: '1' }]);
    assert.equal((await entry(added.id)).index_status, 'pending', 'pending with its job queued (no worker runs here)');
  });

  it('fails, with words, a source whose extraction failed while it was being added', async () => {
    const source = await extracting('failed meanwhile');
    const { rows: [added] } = await endingMeanwhile(source, 'failed', (c) => c.query(`select * from ai.add_kb_source($1, $2)`, [kb, source])) as pg.QueryResult;
    assert.deepEqual(await entry(added.id), { index_status: 'failed', error_message: 'The source could not be read (extraction failed): re-extract it, then reindex' });
    assert.deepEqual(await jobFor(added.id), []);
  });

  it('queues a re-indexed source whose re-extraction succeeded meanwhile', async () => {
    const source = await extracting('reindexed meanwhile');
    const client = await p.adminPool.connect();
    const { rows: [added] } = await asService(client).then(() => client.query(`select * from ai.add_kb_source($1, $2)`, [kb, source])).finally(() => {
      void client.query(`select set_config('request.jwt.claims', '', false), set_config('request.jwt.claim.role', '', false)`).finally(() => client.release());
    });
    assert.deepEqual(await jobFor(added.id), [], 'still extracting: it waits');
    await endingMeanwhile(source, 'extracted', (c) => c.query(`select ai.reindex_kb_sources($1, array[$2]::uuid[], false)`, [kb, added.id]));
    assert.deepEqual(await jobFor(added.id), [{ task_identifier: 'ai_kb_index', run: '2' }], 'the new run is queued');
  });
});
