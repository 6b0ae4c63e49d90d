// The supported PostgreSQL versions are checked when the server starts: the
// run's own server passes, and one below the minimum is refused with the fix.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkServerVersion, MIN_SERVER_VERSION } from '../../db/database.ts';
import { clusterUrl } from '../helpers/db.ts';

describe('PostgreSQL version check', () => {
  it('accepts the server the tests run on (15 or later)', async () => {
    assert.equal(MIN_SERVER_VERSION, 150000);
    await checkServerVersion(clusterUrl());
  });

  it('refuses an older server, naming its version and what to do', async () => {
    // This server stands in for an old one by raising the bar above it.
    await assert.rejects(checkServerVersion(clusterUrl(), 990000), (err: Error) => {
      assert.match(err.message, /^DATABASE_URL points at PostgreSQL \d+\.\d+.*; pgbase needs PostgreSQL 15 or later .*unset DATABASE_URL to use the embedded PostgreSQL 17$/);
      return true;
    });
  });
});
