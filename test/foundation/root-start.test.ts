// The commonest fresh set-up: root, the project in a private home (mode 0700,
// like /root/app), `npm ci`, `npm start`, with no extra step. Postgres cannot
// run as root and the 'postgres' user cannot enter that home: the cluster and
// the binaries must go where it can, and DATA_DIR must stay private.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort } from '../helpers/cluster.ts';

const root = path.resolve(import.meta.dirname, '..', '..');
const asRoot = process.getuid?.() === 0;

describe('npm start as root in a private home', { skip: asRoot ? false : 'needs root: it checks what root sees' }, () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'pgbase-private-home-'));
  const app = path.join(home, 'app');
  let cluster: string | undefined;
  after(() => {
    rmSync(home, { recursive: true, force: true });
    if (cluster) rmSync(path.dirname(cluster), { recursive: true, force: true });
  });

  it('installs and starts with no extra step, DATA_DIR private, the cluster outside it', async () => {
    assert.equal(statSync(home).mode & 0o777, 0o700);
    // The working tree as a clone has it: tracked files and new ones git does not ignore.
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root }).toString().split('\0').filter(Boolean);
    for (const file of files) {
      if (!existsSync(path.join(root, file))) continue; // deleted in the working tree
      mkdirSync(path.dirname(path.join(app, file)), { recursive: true });
      cpSync(path.join(root, file), path.join(app, file));
    }
    const install = spawnSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, encoding: 'utf8', timeout: 240_000 });
    assert.equal(install.status, 0, install.stderr);

    const port = await freePort();
    const child = spawn('npm', ['start'], {
      cwd: app,
      env: { ...process.env, PORT: String(port), PLATFORM_PORT: String(await freePort()), EMBEDDED_DB_PORT: String(await freePort()), DATA_DIR: '', DATABASE_URL: '', JWT_SECRET: '', EMBEDDED_DB_ROOT_HOME: '', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      let up = false;
      for (let i = 0; i < 600 && !up && child.exitCode === null; i++) {
        up = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status === 200, () => false);
        if (!up) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(up, `the server came up:\n${output.slice(-3000)}`);
      const dataDir = path.join(app, '.data');
      assert.equal(statSync(dataDir).mode & 0o077, 0, 'DATA_DIR stays private');
      const placement = JSON.parse(readFileSync(path.join(dataDir, 'embedded-db.json'), 'utf8')) as { cluster: string; binaries: string };
      cluster = placement.cluster;
      assert.match(placement.cluster, /^\/var\/lib\/pgbase\/[0-9a-f]{16}\/pg$/, 'the cluster is where the postgres user can reach it');
      assert.ok(existsSync(path.join(placement.binaries, 'bin', 'postgres')), 'the binaries are copied beside it');
      assert.doesNotMatch(output, /cannot reach|EACCES|GRAPHILE_ENV/);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0, `a clean shutdown:\n${output.slice(-2000)}`);
    assert.ok(!existsSync(path.join(cluster!, 'postmaster.pid')), 'Postgres was stopped');
  });
});
