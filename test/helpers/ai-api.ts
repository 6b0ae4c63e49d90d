// Calling /api as a user token or the service-role key, for AI surface tests:
// the headers supabase-js would send, and a JSON reader that asserts the status.
import assert from 'node:assert/strict';
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
