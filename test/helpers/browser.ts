// A browser's walk through an OAuth sign-in: follow each 302 until it lands
// on the app (a URL under `site`), and return where it landed. Callback URLs
// are built from API_EXTERNAL_URL, so hops to it are sent to the test
// platform's own address.
import assert from 'node:assert/strict';
import type { TestPlatform } from './platform.ts';

export async function followToApp(p: TestPlatform, site: string, start: string): Promise<URL> {
  let url = start;
  for (let hop = 0; hop < 5; hop++) {
    const res = await fetch(url, { redirect: 'manual' });
    assert.equal(res.status, 302, `${url} answered ${res.status}: ${await res.text()}`);
    const location = res.headers.get('location')!;
    if (location.startsWith(site)) return new URL(location);
    url = location.replace(p.config.apiUrl, p.url);
  }
  throw new Error('too many redirects');
}
