// Migrating stops with a clear message where a Supabase extension whose API
// pgbase provides (supabase_vault, pgmq, pg_cron, pg_net) is installed and
// pgbase's migration for it is still to run; once pgbase's own is applied,
// or without the extension, nothing is refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extensionClash } from '../../db/migrate.ts';

describe('a Supabase extension already in the database', () => {
  it('stops migrating, naming the extension and what to do', () => {
    const message = extensionClash(['plpgsql', 'pg_cron'], ['0121_cron.sql', '0123_net.sql']);
    assert.match(message!, /^The pg_cron extension is installed in this database, and pgbase provides its API itself \(sql\/0121_cron\.sql\)\. Drop the extension/);
    assert.equal(message!.split('\n').length, 1);
    assert.equal(extensionClash(['pgmq', 'pg_net'], ['0119_pgmq.sql', '0123_net.sql'])!.split('\n').length, 2, 'each one named');
  });

  it('lets a database without them, or with pgbase\'s own already applied, go on', () => {
    assert.equal(extensionClash(['plpgsql', 'pgcrypto'], ['0118_vault.sql', '0119_pgmq.sql']), null);
    assert.equal(extensionClash(['pg_cron'], []), null);
  });
});
