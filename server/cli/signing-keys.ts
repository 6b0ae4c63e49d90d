// `npm run signing-keys -- <command>`: the project's signing keys (sql/0111)
// from a shell, as the control plane's /auth/{ref}/signing-keys moves them:
//   list                      the set, in use first (no private part)
//   add [ES256|RS256]         a new standby key (published at once, signing nothing)
//   import <file.json>        an existing private key (a JWK, or a JSON array of them: the first), as standby
//   use <id>                  makes it the key in use (the one in use becomes previously used)
//   revoke <id>               a previously used key stops verifying, on every server at once
//   delete <id>               a standby or revoked key leaves the set
// Talks to the running server's database, or starts the embedded one.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { JWK } from 'jose';
import { loadConfig } from '../config.ts';
import { signingKeys } from '../key-ring.ts';
import { loadLocalSecrets, needsLocalSecrets, resolveKeys } from '../keys.ts';
import { onProjectDatabase } from './database.ts';
import { runCli } from './run.ts';

const USAGE = 'usage: npm run signing-keys -- list | add [ES256|RS256] | import <private-jwk.json> | use <id> | revoke <id> | delete <id>';

await runCli(async () => {
  const { positionals: [command, arg] } = parseArgs({ allowPositionals: true });
  const config = loadConfig();
  const { aiMasterKey } = await resolveKeys(config, needsLocalSecrets(config) ? await loadLocalSecrets(config.dataDir) : undefined);
  const out = await onProjectDatabase(config, async (client) => {
    const keys = signingKeys(client, aiMasterKey);
    const record = (action: string, id: string) => client.query(`select studio.record(null, 'cli', $1, $2, '{}', null)`, [action, id]);
    switch (command) {
      case 'list': return { keys: await keys.list() };
      case 'add': {
        if (arg !== undefined && arg !== 'ES256' && arg !== 'RS256') throw new Error(USAGE);
        const made = await keys.add(arg ?? 'ES256');
        await record('add_signing_key', made.id);
        return made;
      }
      case 'import': {
        if (!arg) throw new Error(USAGE);
        const parsed = JSON.parse(readFileSync(arg, 'utf8')) as JWK | JWK[];
        const made = await keys.import(Array.isArray(parsed) ? parsed[0]! : parsed);
        await record('import_signing_key', made.id);
        return made;
      }
      case 'use': case 'revoke': {
        if (!arg) throw new Error(USAGE);
        const moved = await keys.setStatus(arg, command === 'use' ? 'in_use' : 'revoked');
        await record(command === 'use' ? 'use_signing_key' : 'revoke_signing_key', arg);
        return moved;
      }
      case 'delete': {
        if (!arg) throw new Error(USAGE);
        await keys.remove(arg);
        await record('delete_signing_key', arg);
        return { id: arg };
      }
      default: throw new Error(USAGE);
    }
  });
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
});
