import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startWorkerCli } from '../helpers/platform-process.ts';
import { startTestPlatform, stopTestPlatform } from '../helpers/platform.ts';
import { passwordMatches } from '../../db/role-password.ts';
import { authenticatorPassword } from '../../server/keys.ts';

describe('worker', () => {
  it('runs jobs added from SQL inside the server process', async () => {
    let resolveSeen: (v: unknown) => void;
    const seen = new Promise((r) => (resolveSeen = r));
    const p = await startTestPlatform({}, { extraTasks: { test_echo: async (payload) => resolveSeen(payload) } });
    try {
      await p.adminPool.query(`select graphile_worker.add_job('test_echo', json_build_object('hello', 'world'))`);
      assert.deepEqual(await seen, { hello: 'world' });
      assert.equal(p.worker?.ready(), true);
    } finally {
      await stopTestPlatform(p);
    }
  });

  it('with WORKER=off the server is healthy without one (workers run apart with `npm run worker`)', async () => {
    const p = await startTestPlatform({ WORKER: 'off' });
    try {
      assert.equal(p.worker, undefined);
      const res = await fetch(`${p.url}/health`);
      assert.equal(res.status, 200);
    } finally {
      await stopTestPlatform(p);
    }
  });
});

describe('npm run worker', () => {
  it('runs every job apart from the servers, the AI surface\'s too: a source uploaded to a WORKER=off server is extracted; stops on SIGTERM', async () => {
    const p = await startTestPlatform({ WORKER: 'off' });
    const worker = await startWorkerCli(p, { DB_AUTHENTICATOR_URL: '' });
    try {
      assert.equal(worker.child.exitCode, null, worker.output());
      assert.match(worker.output(), /"msg":"pgbase worker is up \(no ports\)"/);
      const graphile = await p.adminPool.query(`select to_regclass('graphile_worker._private_jobs') as t`);
      assert.notEqual(graphile.rows[0].t, null, 'graphile-worker schema installed');

      const form = new FormData();
      form.append('file', new Blob(['Carried by the worker.\n\nSecond paragraph.']), 'apart.txt');
      const service = p.keys.serviceRoleKey;
      const made = await fetch(`${p.url}/api/sources/upload`, { method: 'POST', headers: { apikey: service, authorization: `Bearer ${service}` }, body: form });
      assert.equal(made.status, 201, await made.clone().text());
      const { id } = (await made.json()) as { id: string };
      let status = '';
      for (let i = 0; i < 300 && !['extracted', 'failed', 'attention_required'].includes(status); i++) {
        await new Promise((r) => setTimeout(r, 50));
        status = (await p.adminPool.query(`select extraction_status from ai.sources where id = $1`, [id])).rows[0].extraction_status;
      }
      assert.equal(status, 'extracted', `the standalone worker ran ai_source_extract:\n${worker.output()}`);
      const pages = await fetch(`${p.url}/api/sources/${id}`, { headers: { apikey: service, authorization: `Bearer ${service}` } });
      assert.deepEqual(((await pages.json()) as { progress: unknown }).progress, { pages_done: 1, pages_total: 1 });

      assert.equal(await worker.stop(), 0, 'SIGTERM stops it cleanly');
    } finally {
      await worker.kill();
      await stopTestPlatform(p);
    }
  });

  it('refuses to start with another JWT secret, saying why, and leaves the servers\' database login alone', async () => {
    const p = await startTestPlatform({ WORKER: 'off' });
    try {
      const login = `select rolpassword from pg_authid where rolname = 'authenticator'`;
      const other = 'another-secret-of-at-least-thirty-two-characters';
      const refused = await startWorkerCli(p, { JWT_SECRET: other, DB_AUTHENTICATOR_URL: '' }).then(() => '', (err: Error) => err.message);
      assert.match(refused, /^npm run worker exited \(1\)/);
      // The login still opens with the servers' secret and not the worker's. (Its verifier string may differ:
      // platforms of other test files, sharing this cluster, set the same password with a fresh salt as they start.)
      const stored = (await p.adminPool.query(login)).rows[0].rolpassword as string;
      assert.equal(passwordMatches(stored, 'authenticator', authenticatorPassword(p.keys.jwtSecret)), true, 'the login the server set is untouched');
      assert.equal(passwordMatches(stored, 'authenticator', authenticatorPassword(other)), false);
      assert.match(refused, /cannot log in as authenticator: give it the servers' JWT_SECRET/);
    } finally {
      await stopTestPlatform(p);
    }
  });
});
