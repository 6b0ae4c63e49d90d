// The sources' bucket is made on first use (ai.ensure_source_bucket): first
// uploads at once all succeed, one bucket made. (sql/0073: seen once in a
// full run, a first use that passed the id check together with another's
// then broke the name's unique index, 409. The window is narrow; this test
// goes through it often, not always.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('first uploads at once', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startTestPlatform({ WORKER: 'off', LOG_LEVEL: 'warn' });
  });
  after(() => stopTestPlatform(p));

  it('all succeed, and make one bucket', async () => {
    const service = p.keys.serviceRoleKey;
    const upload = (i: number) => {
      const form = new FormData();
      form.append('file', new Blob([`text ${i}`]), `first-${i}.txt`);
      return fetch(`${p.url}/api/sources/upload`, { method: 'POST', headers: { apikey: service, authorization: `Bearer ${service}` }, body: form });
    };
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => upload(i)));
    assert.deepEqual(await Promise.all(answers.map(async (r) => (r.status === 201 ? 201 : `${r.status} ${await r.text()}`))), answers.map(() => 201));
    assert.equal((await p.adminPool.query(`select count(*)::int as n from storage.buckets where id = 'ai-sources'`)).rows[0].n, 1);
  });
});
