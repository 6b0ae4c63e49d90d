// Sessions as GoTrue returns them: the SQL functions issue and rotate refresh
// tokens; this turns their row into a signed access token and the session body.
import type { Config } from '../config.ts';
import { signToken, type Keys } from '../keys.ts';

export type SessionRow = {
  session_id: string;
  refresh_token: string;
  aal: string;
  amr: Array<{ method: string; timestamp: number }>;
  user: Record<string, unknown> & { id: string; email?: string; phone?: string; app_metadata?: unknown; user_metadata?: unknown; is_anonymous?: boolean };
};

export async function sessionBody(row: SessionRow, config: Config, keys: Keys): Promise<Record<string, unknown>> {
  const u = row.user;
  const expiresIn = config.JWT_EXPIRY;
  const accessToken = await signToken(
    keys.jwtSecret,
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
