// The login the request pools use: `authenticator`, which can only switch
// into the API roles. A server sets its password (derived from the JWT
// secret) at boot; a standalone worker only checks it.
import pg from 'pg';
import { withCredentials } from '../db/pool.ts';
import { passwordMatches } from '../db/role-password.ts';
import { authenticatorPassword } from './keys.ts';

/**
 * The request pool logs in as `authenticator`, which can only switch into the
 * API roles. Its password is derived from the JWT secret and set at boot.
 */
export async function enableAuthenticator(adminPool: pg.Pool, adminUrl: string, jwtSecret: string): Promise<string> {
  const password = authenticatorPassword(jwtSecret);
  // Roles are cluster-wide: replicas (or projects sharing a cluster) booting
  // together race on this row ('tuple concurrently updated'). Retry briefly.
  for (let attempt = 1; ; attempt++) {
    try {
      await adminPool.query(`alter role authenticator with login password ${escapeLiteral(password)}`);
      break;
    } catch (err) {
      if ((err as { code?: string }).code !== 'XX000' || attempt >= 10) throw err;
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 80));
    }
  }
  return withCredentials(adminUrl, 'authenticator', password);
}

/**
 * The authenticator login as the servers set it, for a standalone worker:
 * checked against the stored verifier where the admin login may read it
 * (trust authentication would let a wrong password in), else by logging in.
 */
export async function existingAuthenticator(adminPool: pg.Pool, adminUrl: string, jwtSecret: string): Promise<string> {
  const password = authenticatorPassword(jwtSecret);
  const url = withCredentials(adminUrl, 'authenticator', password);
  const refused = new Error('This worker cannot log in as authenticator: give it the servers\' JWT_SECRET (or their DATA_DIR), and start a server first, which sets that login');
  const stored = await adminPool.query<{ rolpassword: string | null }>(`select rolpassword from pg_catalog.pg_authid where rolname = 'authenticator'`)
    .then((r) => ({ readable: true, verifier: r.rows[0]?.rolpassword ?? null }), () => ({ readable: false, verifier: null }));
  if (stored.readable) {
    if (!stored.verifier || !passwordMatches(stored.verifier, 'authenticator', password)) throw refused;
    return url;
  }
  const probe = new pg.Client({ connectionString: url });
  try {
    await probe.connect();
    return url;
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw code === '28P01' || code === '28000' ? refused : err;
  } finally {
    await probe.end().catch(() => undefined);
  }
}

function escapeLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
