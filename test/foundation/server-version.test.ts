// The supported PostgreSQL versions are checked when the server starts: the
// run's own server passes, and one below the minimum is refused with the fix;
// a DATABASE_URL that cannot work says what to change.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { checkServerVersion, MIN_SERVER_VERSION, waitForDatabase } from '../../db/database.ts';
import { clusterUrl, databaseUrl } from '../helpers/db.ts';

describe('PostgreSQL version check and DATABASE_URL errors', () => {
  it('names the fix when DATABASE_URL names a database that does not exist', async () => {
    await assert.rejects(waitForDatabase(databaseUrl('no_such_database'), 5000, pino({ level: 'silent' })), (err: Error) => {
      assert.match(err.message, /database "no_such_database" does not exist; create that database \(createdb\) or name an existing one in DATABASE_URL$/);
      return true;
    });
  });

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
