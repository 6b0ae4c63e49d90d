// Calling /api as a user token or the service-role key, for AI surface tests:
// the headers supabase-js would send, and a JSON reader that asserts the status.
import assert from 'node:assert/strict';
import { createClient } from '@supabase/supabase-js';
import { GOOD_KEY } from './openai-server.ts';
import type { TestPlatform } from './platform.ts';

/** `platform` is read on each call, so the helpers can be made before the platform starts. */
export function aiApi(platform: () => TestPlatform) {
  const headers = (token: string) => ({ apikey: token === platform().keys.serviceRoleKey ? token : platform().keys.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' });
  const api = (token: string, path: string, init: RequestInit = {}) => fetch(`${platform().url}/api${path}`, { ...init, headers: headers(token) });
  return {
    headers,
    api,
    post: (token: string, path: string, body: unknown) => api(token, path, { method: 'POST', body: JSON.stringify(body) }),
    put: (token: string, path: string, body: unknown) => api(token, path, { method: 'PUT', body: JSON.stringify(body) }),
    patch: (token: string, path: string, body: unknown) => api(token, path, { method: 'PATCH', body: JSON.stringify(body) }),
    /** The body as JSON, after asserting the status (the body is the message when it differs). */
    json: async <T>(res: Response, status: number): Promise<T> => {
      const body = await res.text();
      assert.equal(res.status, status, body);
      return JSON.parse(body) as T;
    },
  };
}

/** A user signed up through supabase-js (email confirmation off in tests): their session. */
export async function signUp(p: TestPlatform, email: string) {
  const { data, error } = await createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } }).auth.signUp({ email, password: 'a-good-password' });
  assert.ok(data.session, error?.message ?? 'no session');
  return data.session;
}

/** The scripted vendor's OpenAI key stored as the project's, so runs reach the test server. */
export async function storeOpenAiKey(p: TestPlatform): Promise<void> {
  await p.adminPool.query(`insert into ai.provider_keys (provider, encrypted_key, masked_key, is_valid) values ('openai', ai.encrypt($1, $2), ai.mask($1), true)`, [GOOD_KEY, p.keys.aiMasterKey]);
}
