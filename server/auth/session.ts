// Sessions as GoTrue returns them: the SQL functions issue and rotate refresh
// tokens; this turns their row into a signed access token and the session body.
import type { Request } from 'express';
import type pg from 'pg';
import type { Config } from '../config.ts';
import { authErrors } from './errors.ts';
import type { Keys } from '../keys.ts';
import { clientIp, userAgent } from './request.ts';

export type SessionRow = {
  session_id: string;
  refresh_token: string;
  aal: string;
  amr: Array<{ method: string; timestamp: number }>;
  user: Record<string, unknown> & { id: string; email?: string; phone?: string; app_metadata?: unknown; user_metadata?: unknown; is_anonymous?: boolean };
  /** The OAuth client a session was issued to (sql/0114): its tokens carry client_id. */
  client_id?: string | null;
};

export async function sessionBody(row: SessionRow, config: Config, keys: Keys): Promise<Record<string, unknown>> {
  const u = row.user;
  const expiresIn = config.JWT_EXPIRY;
  const accessToken = await keys.sign(
    {
      iss: `${config.apiUrl}/auth/v1`,
      sub: u.id,
      aud: 'authenticated',
      email: u.email ?? '',
      phone: u.phone ?? '',
      app_metadata: u.app_metadata ?? {},
      user_metadata: u.user_metadata ?? {},
      role: 'authenticated',
      aal: row.aal,
      amr: row.amr,
      session_id: row.session_id,
      is_anonymous: u.is_anonymous ?? false,
      ...(row.client_id ? { client_id: row.client_id } : {}),
    },
    expiresIn,
  );
  return {
    access_token: accessToken,
    token_type: 'bearer',
    expires_in: expiresIn,
    expires_at: Math.floor(Date.now() / 1000) + expiresIn,
    refresh_token: row.refresh_token,
    user: u,
  };
}

/** A new session for a user who just proved who they are (`method` goes into amr), bound to this request's agent and address. */
export async function issueSession(pool: pg.Pool, req: Request, userId: string, method: string): Promise<SessionRow> {
  const { rows } = await pool.query<SessionRow>('select * from auth.issue_session($1, $2, $3, $4)', [userId, method, userAgent(req), clientIp(req)]);
  return rows[0]!;
}

/** The signed-in user behind the bearer token (verified by the gateway). */
export function currentUser(req: Request): { id: string; sessionId: string | null; email: string } {
  // A bearer that did not verify: GoTrue's 403, naming why as its JWT library does.
  if (req.auth?.bearerRefused) throw authErrors.badJwt(req.auth.bearerRefused, req.auth.bearer ?? '');
  const claims = req.auth?.claims;
  if (!claims || claims.role !== 'authenticated' || typeof claims.sub !== 'string') {
    throw authErrors.bearerRequired();
  }
  return {
    id: claims.sub,
    sessionId: typeof claims.session_id === 'string' ? claims.session_id : null,
    email: typeof claims.email === 'string' ? claims.email : '',
  };
}

/**
 * Where a browser flow (e-mail link, OAuth) lands with a new session: the
 * target with the tokens in the fragment, as supabase-js reads them.
 */
export async function redirectWithSession(target: string, row: SessionRow, config: Config, keys: Keys, extra: Record<string, string> = {}): Promise<string> {
  const s = await sessionBody(row, config, keys);
  const fragment = new URLSearchParams({
    access_token: String(s.access_token), expires_at: String(s.expires_at), expires_in: String(s.expires_in),
    refresh_token: String(s.refresh_token), token_type: 'bearer', ...extra,
  });
  return `${target.split('#')[0]}#${fragment.toString()}`;
}
