// `npm run platform-token -- --email ops@example.com [--refs a,b] [--expires-in 30d]`
// prints a platform token for the control plane (PLATFORM_URL/api/platform/...).
// It is signed with PLATFORM_JWT_SECRET (or the one kept in DATA_DIR), lists the
// project refs it may touch, and expires (default 30 days).
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { loadLocalSecrets, needsLocalSecrets, resolveKeys, signPlatformToken } from '../keys.ts';
import { runCli } from './run.ts';

await runCli(async () => {
  const { values } = parseArgs({
    options: { email: { type: 'string' }, refs: { type: 'string' }, 'expires-in': { type: 'string', default: '30d' } },
  });
  if (!values.email || !/^[^@\s]+@[^@\s]+$/.test(values.email)) throw new Error('usage: npm run platform-token -- --email <operator e-mail> [--refs ref1,ref2] [--expires-in 30d|12h|3600]');
  const match = /^(\d+)([dhms]?)$/.exec(values['expires-in']);
  if (!match) throw new Error('--expires-in: a number of seconds, or with d, h, m or s');
  const seconds = Number(match[1]) * ({ d: 86400, h: 3600, m: 60, s: 1, '': 1 } as Record<string, number>)[match[2]!]!;
  const config = loadConfig();
  const local = needsLocalSecrets(config) ? await loadLocalSecrets(config.dataDir) : undefined;
  const keys = await resolveKeys(config, local);
  const refs = values.refs ? values.refs.split(',').map((r) => r.trim()).filter(Boolean) : [config.PROJECT_REF];
  process.stdout.write((await signPlatformToken(keys.platformSecret, values.email, refs, seconds)) + '\n');
});
