import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../server/config.ts';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.PORT, 54321);
    assert.equal(c.PLATFORM_PORT, 54323);
    assert.equal(c.EMBEDDED_DB_PORT, 54322);
    assert.equal(c.WORKER, 'in-process');
    assert.equal(c.apiUrl, 'http://localhost:54321');
    assert.equal(c.platformUrl, 'http://localhost:54323');
    assert.match(c.dataDir, /\.data$/);
    assert.match(c.migrationsDir, /migrations$/);
  });

  it('names every bad variable and what it expects', () => {
    assert.throws(
      () => loadConfig({ PORT: 'eighty', JWT_SECRET: 'too-short', WORKER: 'sometimes', DATABASE_URL: 'mysql://x' }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        const byVar = Object.fromEntries(err.issues.map((i) => [i.split(':')[0], i]));
        assert.match(byVar.PORT!, /PORT: expected number \(got "eighty"\)/);
        assert.match(byVar.JWT_SECRET!, /at least 32 characters/);
        assert.doesNotMatch(byVar.JWT_SECRET!, /too-short/, 'a secret is never echoed back');
        assert.match(byVar.WORKER!, /expected one of "in-process", "off"/);
        assert.match(byVar.DATABASE_URL!, /postgres:\/\/ connection URL/);
        return true;
      },
    );
  });

  it('treats empty variables as unset', () => {
    assert.equal(loadConfig({ PORT: '', DATABASE_URL: '' }).PORT, 54321);
  });

  it('stops `npm start` before doing anything, with the message on stderr', () => {
    const result = spawnSync(process.execPath, ['server/main.ts'], {
      env: { ...process.env, PORT: '70000', DATA_DIR: '/nonexistent/never-created' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(result.status, 78);
    assert.match(result.stderr, /Invalid configuration:\n {2}- PORT: must be at most 65535 \(got "70000"\)/);
    assert.doesNotMatch(result.stderr, /at .*\.ts:\d+/, 'no stack trace');
  });
});
