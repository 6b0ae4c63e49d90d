// Publishable and secret API keys at the gate (sql/0112): `sb_publishable_…`
// acts as anon, `sb_secret_…` as service_role. Each process keeps the keys'
// SHA-256 hashes in memory and reads them again when any process or a DBA
// changes them (NOTIFY pgbase_api_keys), and when a key it does not know
// arrives (at most four times a second), so a deleted key stops everywhere
// at once. A secret key is refused from a browser, as Supabase refuses it.
// The same notice carries whether the legacy JWT API keys are on (sql/0113).
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type pg from 'pg';
import type { Logger } from 'pino';
import { listenChannel, type Listener } from '../db/listener.ts';
import { isLegacyApiKey, type TokenVerifier, type Verdict } from './keys.ts';

export const isApiKey = (key: string) => key.startsWith('sb_publishable_') || key.startsWith('sb_secret_');

/** A browser sent it: an Origin header, or a browser's User-Agent (what Supabase's gateway looks at). */
export function fromBrowser(headers: IncomingHttpHeaders): boolean {
  if (typeof headers.origin === 'string' && headers.origin !== '') return true;
  const agent = headers['user-agent'];
  return typeof agent === 'string' && /^Mozilla\/5\.0 /.test(agent);
}

const ROLE = { publishable: 'anon', secret: 'service_role' } as const;

export type ApiKeyRing = Awaited<ReturnType<typeof apiKeyRing>>;

export async function apiKeyRing(opts: { adminPool: pg.Pool; adminUrl: string; log: Logger; listen?: boolean }) {
  let byHash = new Map<string, { id: string; type: 'publishable' | 'secret' }>();
  let legacy = true;
  let lastUnknownReload = 0;
  const read = async () => {
    const { rows } = await opts.adminPool.query<{ id: string; type: 'publishable' | 'secret'; key_hash: string }>('select * from auth.api_key_hashes()');
    byHash = new Map(rows.map((r) => [r.key_hash, { id: r.id, type: r.type }]));
    legacy = (await opts.adminPool.query<{ on: boolean }>('select legacy_api_keys as on from auth.api_key_settings')).rows[0]?.on ?? true;
  };
  const reload = () => read().catch((err: Error) => opts.log.error({ error: err.message }, 'API keys not read again'));
  let listener: Listener | undefined;
  if (opts.listen !== false) {
    listener = listenChannel({ url: opts.adminUrl, channel: 'pgbase_api_keys', name: 'api-keys', log: opts.log, onNotify: () => void reload(), onListening: (again) => (again ? reload() : undefined) });
    await listener.ready;
  }
  await read();

  /** The claims a key stands for: anon or service_role; invalid for a key not in the set. */
  const check = async (key: string): Promise<Verdict> => {
    const hash = createHash('sha256').update(key).digest('hex');
    let found = byHash.get(hash);
    if (!found && Date.now() - lastUnknownReload > 250) {
      // A key made on another process a moment ago.
      lastUnknownReload = Date.now();
      await reload();
      found = byHash.get(hash);
    }
    if (!found || !key.startsWith(`sb_${found.type}_`)) return { ok: false, reason: 'invalid' };
    return { ok: true, claims: { role: ROLE[found.type], api_key_id: found.id } };
  };

  return {
    /**
     * What every surface verifies with: an sb_ key against this set, anything
     * else with `tokens` (the signing keys), a legacy API key refused while
     * they are turned off (sql/0113; tokens of the same secret still pass).
     */
    verifier: (tokens: TokenVerifier): TokenVerifier => async (token) => {
      if (isApiKey(token)) return check(token);
      const verdict = await tokens(token);
      return verdict.ok && !legacy && isLegacyApiKey(verdict.claims) ? { ok: false, reason: 'legacy_disabled' } : verdict;
    },
    reload: read,
    stop: async () => {
      await listener?.stop();
    },
  };
}
