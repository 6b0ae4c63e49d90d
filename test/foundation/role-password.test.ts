// db/role-password.ts against verifiers PostgreSQL itself made: the password a
// SCRAM-SHA-256 or md5 verifier came from is recognised, any other is not.
// (A standalone worker checks its authenticator login this way.)
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import pg from 'pg';
import { passwordMatches } from '../../db/role-password.ts';
import { clusterUrl } from '../helpers/db.ts';

describe('role passwords', () => {
  it('recognises the password a SCRAM-SHA-256 or md5 verifier was made from, and nothing else', async () => {
    const role = `pw_${randomBytes(6).toString('hex')}`;
    const client = new pg.Client({ connectionString: clusterUrl() });
    await client.connect();
    try {
      await client.query(`create role ${role} login`);
      for (const [encryption, shape] of [['scram-sha-256', /^SCRAM-SHA-256\$4096:/], ['md5', /^md5[0-9a-f]{32}$/]] as const) {
        await client.query(`set password_encryption = '${encryption}'`);
        await client.query(`alter role ${role} password 'correct horse'`);
        const stored = (await client.query<{ rolpassword: string }>('select rolpassword from pg_authid where rolname = $1', [role])).rows[0]!.rolpassword;
        assert.match(stored, shape);
        assert.equal(passwordMatches(stored, role, 'correct horse'), true, encryption);
        assert.equal(passwordMatches(stored, role, 'correct horse!'), false, `${encryption}: another password`);
      }
      const md5 = (await client.query<{ rolpassword: string }>('select rolpassword from pg_authid where rolname = $1', [role])).rows[0]!.rolpassword;
      assert.equal(passwordMatches(md5, 'authenticator', 'correct horse'), false, 'md5 is salted with the role name');
      assert.equal(passwordMatches('', role, ''), false, 'no verifier matches nothing');
    } finally {
      await client.query(`drop role if exists ${role}`).catch(() => undefined);
      await client.end();
    }
  });
});
