// An operator of the control plane, as the Studio is one: the first operator
// made through the setup link the platform's start printed (or signed in
// with a password), then requests with the session cookie and, on changes,
// the CSRF token, exactly as the browser app sends them.
import assert from 'node:assert/strict';
import type { TestPlatform } from './platform.ts';

export type Operator = {
  cookie: string;
  csrf: string;
  email: string;
  /** A request to the control plane as this operator: cookie always, CSRF token on changes. */
  call: (path: string, init?: { method?: string; body?: unknown; headers?: Record<string, string> }) => Promise<Response>;
  /** The JSON body, after asserting the status. */
  json: <T>(path: string, status: number, init?: { method?: string; body?: unknown }) => Promise<T>;
};

export const OPERATOR_PASSWORD = 'a-long-operator-password';

function operator(p: TestPlatform, cookie: string, csrf: string, email: string): Operator {
  const call: Operator['call'] = (path, init = {}) => fetch(`${p.platformUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      cookie, ...(init.method && init.method !== 'GET' ? { 'x-csrf-token': csrf } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers,
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return {
    cookie, csrf, email, call,
    json: async <T>(path: string, status: number, init?: { method?: string; body?: unknown }) => {
      const res = await call(path, init);
      const text = await res.text();
      assert.equal(res.status, status, `${init?.method ?? 'GET'} ${path}: ${text}`);
      return JSON.parse(text) as T;
    },
  };
}

/** The session cookie a sign-in set (name=value only). */
export function sessionCookie(res: Response): string {
  const set = res.headers.getSetCookie().find((c) => c.startsWith('pgbase_studio='));
  assert.ok(set, 'a session cookie was set');
  return set.split(';')[0]!;
}

/** The first operator, through the platform's one-time setup link. */
export async function setupOperator(p: TestPlatform, email = 'first-operator@example.com'): Promise<Operator> {
  assert.ok(p.setupUrl, 'the start made a setup link');
  const token = new URL(p.setupUrl).hash.slice(1);
  const res = await fetch(`${p.platformUrl}/api/platform/studio/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, email, password: OPERATOR_PASSWORD }) });
  const body = (await res.json()) as { csrf_token: string };
  assert.equal(res.status, 200, JSON.stringify(body));
  return operator(p, sessionCookie(res), body.csrf_token, email);
}

export async function signInOperator(p: TestPlatform, email: string, password = OPERATOR_PASSWORD): Promise<Operator> {
  const res = await fetch(`${p.platformUrl}/api/platform/studio/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  const body = (await res.json()) as { csrf_token: string };
  assert.equal(res.status, 200, JSON.stringify(body));
  return operator(p, sessionCookie(res), body.csrf_token, email);
}
