// /api/ai-provider-keys (spec 2.12, 3.5, 4.18): the project's vendor keys,
// validated with the vendor before they are stored, encrypted at rest, and
// only ever shown masked. Written with the service-role key.
import express, { type Request, type Router } from 'express';
import type pg from 'pg';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import { route } from '../../errors.ts';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { parse } from '../parse.ts';
import { isProvider, PROVIDERS, validateKey, vendors, type Provider, type Verdict } from './vendors.ts';
import type { StoredKeyRead } from './key-cache.ts';

type KeyRecord = { id: string; provider: string; masked_key: string; is_valid: boolean; last_validated_at: Date | null; created_at: Date; updated_at: Date };
const RECORD = 'id, provider, masked_key, is_valid, last_validated_at, created_at, updated_at';

const providerField = z.string({ error: 'provider is required' }).refine(isProvider, { message: `provider must be one of ${PROVIDERS.join(', ')}` });
export const ProviderKeyBody = z.object({ provider: providerField, api_key: z.string({ error: 'api_key is required' }).min(1, 'api_key is required') });
export const ProviderKeyBatch = z.record(z.string(), z.string().nullable()).refine((b) => Object.keys(b).every(isProvider), {
  message: `keys must be provider names: ${PROVIDERS.join(', ')}`,
});

/** The decrypted key the router uses: the project's, else the platform's, else none. */
export type KeySource = (provider: Provider) => Promise<string | undefined>;

/** The project's stored key, decrypted (undefined: none stored, or unreadable). */
export const storedKey = (adminPool: pg.Pool, masterKey: string): StoredKeyRead => async (provider) => {
  try {
    const { rows } = await adminPool.query<{ key: string | null }>('select ai.provider_key($1, $2) as key', [provider, masterKey]);
    return rows[0]?.key ?? undefined;
  } catch (err) {
    // A key encrypted with another master key cannot be read: as if none were stored.
    if ((err as { code?: string }).code !== '39000' && !/Wrong key or corrupt data/i.test((err as Error).message)) throw err;
    return undefined;
  }
};

/** The project's key (read through `stored`: key-cache.ts keeps it), else the platform's. */
export function keySource(stored: StoredKeyRead, config: Config): KeySource {
  const byProvider = vendors(config);
  return async (provider) => (await stored(provider)) ?? byProvider[provider].platformKey;
}

/**
 * The provider-key rows in SQL (sql/0022), as the caller: grants let only the
 * service role write. After a change it tells `changed` (this server's
 * router forgets the keys it kept; other replicas hear the trigger's notice).
 */
function keyStore(calls: AiCalls, masterKey: string, changed: () => void) {
  return {
    list: (req: Request) => calls.call<KeyRecord>(req, `select ${RECORD} from ai.provider_keys order by array_position(array['openai','anthropic','gemini','openrouter'], provider)`, []),
    /** 403 before any vendor call for a caller who may not change project configuration. */
    requireService: (req: Request) => calls.call(req, 'select ai.require_service()', []),
    /** Stores all of `keys` or none, answering the records. */
    putAll: async (req: Request, keys: Array<{ provider: Provider; key: string; valid: boolean }>) => {
      const rows = await calls.transaction(req, async (c) => {
        const out: Array<KeyRecord & { inserted: boolean }> = [];
        for (const k of keys) out.push((await c.query<KeyRecord & { inserted: boolean }>('select * from ai.put_provider_key($1, $2, $3, $4)', [k.provider, k.key, k.valid, masterKey])).rows[0]!);
        return out;
      });
      changed();
      return rows;
    },
    /** The router's catalogue: each priced model (prefix), and whether its provider's key is stored. */
    catalogue: (req: Request) => calls.call(req, `select m.provider, m.model_prefix as model, m.input_per_million::float8 as input_per_million,
        m.output_per_million::float8 as output_per_million, exists (select 1 from ai.provider_keys k where k.provider = m.provider) as has_key
      from ai.model_prices m order by m.provider, m.model_prefix`, []),
    remove: async (req: Request, provider: Provider) => {
      await calls.call(req, 'delete from ai.provider_keys where provider = $1', [provider]);
      changed();
    },
  };
}

/** changed: told after this server changed a key (keyStore). */
export function providerKeyRoutes(calls: AiCalls, config: Config, masterKey: string, changed: () => void): Router {
  const r = express.Router();
  const byProvider = vendors(config);
  const keys = keyStore(calls, masterKey, changed);
  const check = (provider: Provider, key: string): Promise<Verdict> => validateKey(byProvider[provider], key, config.AI_KEY_VALIDATION_TIMEOUT_MS);
  const record = ({ inserted: _i, ...row }: KeyRecord & { inserted?: boolean }) => row;

  r.get('/', route(async (req, res) => {
    res.json(await keys.list(req));
  }));

  r.get('/platform_supported', route(async (_req, res) => {
    res.json({ providers: PROVIDERS.filter((p) => byProvider[p].platformKey) });
  }));

  // The router's catalogue: each model (prefix) it knows a price for, and whether a key for its provider is held.
  r.get('/models', route(async (req, res) => {
    res.json(await keys.catalogue(req));
  }));

  r.post('/validate', route(async (req, res) => {
    const body = parse(ProviderKeyBody, req.body);
    const verdict = await check(body.provider as Provider, body.api_key);
    res.json(verdict.outcome === 'accepted' ? { is_valid: true } : { is_valid: false, error: verdict.reason });
  }));

  // One key: asked of the vendor first; refused means nothing is stored (an existing key stays).
  r.post('/', route(async (req, res) => {
    const body = parse(ProviderKeyBody, req.body);
    await keys.requireService(req);
    const provider = body.provider as Provider;
    const verdict = await check(provider, body.api_key);
    if (verdict.outcome === 'rejected') throw aiErrors.keyRejected({ [provider]: verdict.reason });
    const [row] = await keys.putAll(req, [{ provider, key: body.api_key, valid: verdict.outcome === 'accepted' }]);
    res.status(row!.inserted ? 201 : 200).json(record(row!));
  }));

  // Any subset at once: null or empty values are left alone; one refusal stores none.
  r.put('/', route(async (req, res) => {
    const body = parse(ProviderKeyBatch, req.body);
    await keys.requireService(req);
    const given = (Object.entries(body) as Array<[Provider, string | null]>).filter(([, key]) => typeof key === 'string' && key !== '') as Array<[Provider, string]>;
    const verdicts = await Promise.all(given.map(async ([provider, key]) => [provider, key, await check(provider, key)] as const));
    const rejected = Object.fromEntries(verdicts.flatMap(([p, , v]) => (v.outcome === 'rejected' ? [[p, v.reason]] : [])));
    if (Object.keys(rejected).length > 0) throw aiErrors.keyRejected(rejected);
    const rows = await keys.putAll(req, verdicts.map(([provider, key, v]) => ({ provider, key, valid: v.outcome === 'accepted' })));
    res.json(rows.map(record));
  }));

  r.delete('/:provider', route(async (req, res) => {
    const provider = req.params.provider;
    if (!isProvider(provider)) throw aiErrors.unknownProvider(String(provider));
    await keys.remove(req, provider);
    res.status(204).end();
  }));

  return r;
}
