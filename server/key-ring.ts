// The project's signing keys at work (sql/0111): the key in use signs every
// new token; every key of the set but a revoked one verifies, chosen by the
// token's `kid` (asymmetric) or its algorithm (HS256: the legacy JWT_SECRET,
// for tokens and API keys signed before, or while it is the key in use).
// Each process keeps the set in memory and reads it again when any process
// or a DBA changes it (NOTIFY pgbase_signing_keys), and when a token names a
// key it has never seen (at most four times a second), so a new key verifies
// everywhere at once and a revoked one stops everywhere at once.
import { exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, decodeProtectedHeader, errors as joseErrors, type CryptoKey, type JWK } from 'jose';
import type pg from 'pg';
import type { Logger } from 'pino';
import { listenChannel, type Listener } from '../db/listener.ts';
import { signToken, verifyToken, type Claims, type Verdict } from './keys.ts';
import { apiError } from './errors.ts';

export type SigningAlgorithm = 'ES256' | 'RS256' | 'HS256';
export type SigningKeyRow = { id: string; algorithm: SigningAlgorithm; status: 'standby' | 'in_use' | 'previously_used' | 'revoked'; public_jwk: JWK | null; created_at: Date; updated_at: Date };

type Verifier = { algorithm: 'ES256' | 'RS256'; key: CryptoKey | Uint8Array };
type Signer = { kind: 'legacy' } | { kind: 'asymmetric'; kid: string; algorithm: 'ES256' | 'RS256'; key: CryptoKey | Uint8Array };

/** A fresh asymmetric key pair as JWKs (the private one stays in the server and, encrypted, in the database). */
export async function newKeyPair(algorithm: 'ES256' | 'RS256'): Promise<{ publicJwk: JWK; privateJwk: JWK }> {
  const { publicKey, privateKey } = await generateKeyPair(algorithm, { extractable: true, ...(algorithm === 'RS256' ? { modulusLength: 2048 } : {}) });
  return { publicJwk: await exportJWK(publicKey), privateJwk: await exportJWK(privateKey) };
}

// Verified asymmetric tokens by their text, as keys.ts keeps HS256 ones: ES256 costs more than the rest
// of a simple request. An entry names its key, so a revoked key's tokens stop at once. Bounded.
const VERIFIED_MAX = 10_000;

export type KeyRing = Awaited<ReturnType<typeof keyRing>>;

export async function keyRing(opts: { adminPool: pg.Pool; adminUrl: string; secret: string; masterKey: string; log: Logger; listen?: boolean }) {
  const { adminPool, secret, masterKey, log } = opts;
  let verifiers = new Map<string, Verifier>();
  /** Every kid of the set at the last read, revoked ones too: a revoked key's token is refused without a read. */
  let known = new Set<string>();
  let legacyVerifies = true;
  let signer: Signer = { kind: 'legacy' };
  const verified = new Map<string, { kid: string; claims: Claims; until: number }>();
  let lastUnknownReload = 0;
  let loading: Promise<void> | undefined;

  const read = async () => {
    const { rows } = await adminPool.query<SigningKeyRow>('select * from auth.signing_key_set()');
    const next = new Map<string, Verifier>();
    for (const r of rows) {
      if (r.algorithm === 'HS256' || r.status === 'revoked' || !r.public_jwk) continue;
      next.set(r.id, { algorithm: r.algorithm, key: await importJWK(r.public_jwk, r.algorithm) });
    }
    const legacy = rows.find((r) => r.algorithm === 'HS256');
    const { rows: [inUse] } = await adminPool.query<{ id: string; algorithm: SigningAlgorithm; private_jwk: string | null }>('select * from auth.signing_key_in_use($1)', [masterKey]);
    signer = inUse && inUse.algorithm !== 'HS256' && inUse.private_jwk
      ? { kind: 'asymmetric', kid: inUse.id, algorithm: inUse.algorithm, key: await importJWK(JSON.parse(inUse.private_jwk) as JWK, inUse.algorithm) }
      : { kind: 'legacy' };
    verifiers = next;
    known = new Set(rows.map((r) => r.id));
    // No row yet (a database not initialised by a server): the legacy secret, as before keys existed.
    legacyVerifies = !legacy || legacy.status !== 'revoked';
    for (const [token, hit] of verified) if (!verifiers.has(hit.kid)) verified.delete(token);
  };
  // Reads overlapping one another share the later one: the set read last wins.
  const load = (): Promise<void> => {
    const next = (loading ?? Promise.resolve()).then(read, read).finally(() => {
      if (loading === next) loading = undefined;
    });
    loading = next;
    return next;
  };
  const reload = () => load().catch((err: Error) => log.error({ error: err.message }, 'signing keys not read again'));

  let listener: Listener | undefined;
  if (opts.listen !== false) {
    listener = listenChannel({ url: opts.adminUrl, channel: 'pgbase_signing_keys', name: 'signing-keys', log, onNotify: () => void reload(), onListening: (again) => (again ? reload() : undefined) });
    await listener.ready;
  }
  await load();

  const verify = async (token: string): Promise<Verdict> => {
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      return { ok: false, reason: 'invalid' };
    }
    if (header.alg === 'HS256') return legacyVerifies ? verifyToken(secret, token) : { ok: false, reason: 'invalid' };
    if (typeof header.kid !== 'string') return { ok: false, reason: 'invalid' };
    const hit = verified.get(token);
    if (hit && verifiers.has(hit.kid)) {
      if (Date.now() < hit.until) return { ok: true, claims: hit.claims };
      verified.delete(token);
    }
    let v = verifiers.get(header.kid);
    if (!v && !known.has(header.kid)) {
      // A key made on another process a moment ago: its notice is being read, or has not arrived yet.
      if (loading) await loading.catch(() => undefined);
      else if (Date.now() - lastUnknownReload > 250) {
        lastUnknownReload = Date.now();
        await reload();
      }
      v = verifiers.get(header.kid);
    }
    if (!v || header.alg !== v.algorithm) return { ok: false, reason: 'invalid' };
    try {
      const { payload } = await jwtVerify(token, v.key, { algorithms: [v.algorithm] });
      const now = Date.now();
      if (payload.nbf === undefined || payload.nbf * 1000 <= now) {
        if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
        verified.set(token, { kid: header.kid, claims: payload as Claims, until: Math.min(typeof payload.exp === 'number' ? payload.exp * 1000 : Infinity, now + 300_000) });
      }
      return { ok: true, claims: payload as Claims };
    } catch (err) {
      return { ok: false, reason: err instanceof joseErrors.JWTExpired ? 'expired' : 'invalid' };
    }
  };

  /** A token of the key in use, with its `kid` (the legacy secret's tokens carry none, as before). */
  const sign = async (claims: Claims, expiresInSeconds: number): Promise<string> => {
    const s = signer;
    if (s.kind === 'legacy') return signToken(secret, claims, expiresInSeconds);
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims).setProtectedHeader({ alg: s.algorithm, kid: s.kid, typ: 'JWT' }).setIssuedAt(now).setExpirationTime(now + expiresInSeconds).sign(s.key);
  };

  return {
    verify,
    sign,
    /** The published set: every asymmetric key not revoked (standby ones too, so caches know them before they sign). */
    jwks: async (): Promise<{ keys: JWK[] }> => {
      const { rows } = await adminPool.query<SigningKeyRow>(`select * from auth.signing_key_set() where algorithm <> 'HS256' and status <> 'revoked'`);
      return { keys: rows.map((r) => r.public_jwk!) };
    },
    reload: load,
    stop: async () => {
      await listener?.stop();
    },
  };
}

/** The first key set of a database, once: `algorithm` in use (the legacy secret stays, previously used, for what it signed). */
export async function initializeSigningKeys(adminPool: pg.Pool, masterKey: string, algorithm: SigningAlgorithm): Promise<void> {
  const { rows: [existing] } = await adminPool.query<{ n: number }>('select count(*)::int as n from auth.signing_keys');
  if (existing!.n > 0) return;
  const pair = algorithm === 'HS256' ? null : await newKeyPair(algorithm);
  await adminPool.query('select auth.initialize_signing_keys($1, $2, $3, $4)', [algorithm, pair ? JSON.stringify(pair.publicJwk) : null, pair ? JSON.stringify(pair.privateJwk) : null, masterKey]);
}

type Db = pg.Pool | pg.ClientBase;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PRIVATE_FIELDS = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']);

/** A private JWK someone brings: which algorithm it signs with, its public half, and its kid if usable. */
async function checkedPrivateKey(jwk: JWK): Promise<{ algorithm: 'ES256' | 'RS256'; publicJwk: JWK; signingJwk: JWK; kid: string | null }> {
  const bad = (why: string) => apiError(400, 'validation_failed', `private_jwk: ${why}`);
  if (!jwk || typeof jwk !== 'object' || typeof jwk.d !== 'string') throw bad('a private key in JWK form (with "d") is required');
  const algorithm = jwk.kty === 'EC' && jwk.crv === 'P-256' ? 'ES256' : jwk.kty === 'RSA' ? 'RS256' : null;
  if (!algorithm) throw bad('EC P-256 (ES256) or RSA (RS256) only');
  if (algorithm === 'RS256' && Buffer.from(String(jwk.n ?? ''), 'base64url').length < 256) throw bad('RSA keys must be 2048 bits or more');
  // Only the key material is kept: a key_ops of ["sign", "verify"] (as key files often say) is not a usage a private key can be imported with.
  const material = Object.fromEntries(Object.entries(jwk).filter(([k]) => !['kid', 'alg', 'use', 'key_ops', 'ext'].includes(k))) as JWK;
  try {
    await importJWK(material, algorithm);
  } catch (err) {
    throw bad((err as Error).message);
  }
  const publicJwk = Object.fromEntries(Object.entries(material).filter(([k]) => !PRIVATE_FIELDS.has(k))) as JWK;
  return { algorithm, publicJwk, signingJwk: material, kid: typeof jwk.kid === 'string' && UUID.test(jwk.kid) ? jwk.kid : null };
}

/** The key set's administration (the control plane's routes and `npm run signing-keys`): each move one SQL call (sql/0111). */
export function signingKeys(db: Db, masterKey: string) {
  const one = async (id: string) => (await db.query<SigningKeyRow>('select * from auth.signing_key_set() where id = $1', [id])).rows[0]!;
  return {
    list: async () => (await db.query<SigningKeyRow>('select * from auth.signing_key_set()')).rows,
    /** A new standby key: published at once, signing nothing until it is made in use. */
    add: async (algorithm: 'ES256' | 'RS256') => {
      const pair = await newKeyPair(algorithm);
      const { rows: [made] } = await db.query<{ id: string }>('select auth.add_signing_key($1, $2, $3, $4) as id', [algorithm, JSON.stringify(pair.publicJwk), JSON.stringify(pair.privateJwk), masterKey]);
      return one(made!.id);
    },
    /** An existing private key (a JWK: EC P-256 or RSA of 2048 bits or more), as standby, keeping its kid when that is a UUID. */
    import: async (privateJwk: JWK) => {
      const { algorithm, publicJwk, signingJwk, kid } = await checkedPrivateKey(privateJwk);
      const { rows: [made] } = await db.query<{ id: string }>('select auth.import_signing_key($1, $2, $3, $4, $5) as id', [kid, algorithm, JSON.stringify(publicJwk), JSON.stringify(signingJwk), masterKey]);
      return one(made!.id);
    },
    /** `in_use` (the key in use becomes previously used) or `revoked`. */
    setStatus: async (id: string, status: string) => (await db.query<SigningKeyRow>('select * from auth.set_signing_key_status($1, $2)', [id, status])).rows[0]!,
    remove: async (id: string) => {
      await db.query('select auth.delete_signing_key($1)', [id]);
    },
  };
}
