// The control plane's users and storage, over HTTP as the Studio calls them:
// bad input answered 4xx with words, never a 500; search that takes % and _
// as themselves; pagination; a user's e-mails kept in the outbox without
// SMTP; files read back under a sandbox (an HTML file cannot run as a page
// of the Studio's origin); a deletion without the CSRF token refused and
// nothing lost.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { setupOperator, type Operator } from '../helpers/studio.ts';

describe('Studio: users and storage through the control plane', () => {
  let p: TestPlatform;
  let op: Operator;
  const users = (path = '') => `/api/platform/auth/default/users${path}`;
  const storage = (path: string) => `/api/platform/storage/default/v1${path}`;

  before(async () => {
    p = await startTestPlatform();
    op = await setupOperator(p);
  });
  after(() => stopTestPlatform(p));

  it('creates users, refusing a short password or a bad e-mail with words', async () => {
    for (const [i, email] of ['a_b@example.com', 'a%b@example.com', 'ab@example.com'].entries()) {
      await op.json(users(), 201, { method: 'POST', body: { email, password: `password-${i}` } });
    }
    const short = await op.json<{ code: string; message: string }>(users(), 400, { method: 'POST', body: { email: 'c@example.com', password: 'x' } });
    assert.match(short.message, /^password: at least \d+ characters$/);
    const bad = await op.call(users(), { method: 'POST', body: { email: 'not an address', password: 'password-ok' } });
    assert.equal(bad.status, 400, await bad.text());
    const dup = await op.call(users(), { method: 'POST', body: { email: 'ab@example.com', password: 'password-ok' } });
    assert.equal(dup.status, 422, await dup.text());
  });

  it('searches with % and _ as themselves, and pages', async () => {
    const found = await op.json<{ users: Array<{ email: string }>; total: number }>(`${users()}?search=${encodeURIComponent('a_b')}`, 200);
    assert.deepEqual(found.users.map((u) => u.email), ['a_b@example.com']);
    assert.equal((await op.json<{ total: number }>(`${users()}?search=${encodeURIComponent('%')}`, 200)).total, 1);
    const page = await op.json<{ users: unknown[]; total: number; page: number; per_page: number }>(`${users()}?per_page=2&page=2`, 200);
    assert.deepEqual([page.users.length, page.total, page.page, page.per_page], [1, 3, 2, 2]);
    assert.equal((await op.call(`${users()}?per_page=5000`)).status, 400);
  });

  it('answers a bad id, an unknown user and a bad ban duration with 4xx', async () => {
    assert.equal((await op.call(users('/not-a-uuid'))).status, 400);
    assert.equal((await op.call(users('/00000000-0000-4000-8000-000000000000'))).status, 404);
    const [{ id }] = (await op.json<{ users: Array<{ id: string }> }>(`${users()}?search=ab%40`, 200)).users as [{ id: string }];
    const ban = await op.call(users(`/${id}`), { method: 'PUT', body: { ban_duration: 'a while' } });
    assert.equal(ban.status, 400, await ban.text());
    const sent = await op.json<{ sent: boolean; via: string }>(users(`/${id}/recovery`), 200, { method: 'POST' });
    assert.deepEqual(sent, { sent: true, via: 'mail_outbox', email: 'ab@example.com' } as unknown);
    // Sent by the worker: kept in the outbox, as there is no SMTP_URL.
    const kept = await eventually('the recovery mail kept', async () => (await p.adminPool.query<{ template: string; transport: string }>("select template, transport from platform.mail_outbox where recipient = 'ab@example.com'")).rows, (rows) => rows.length === 1);
    assert.deepEqual(kept[0], { template: 'recovery', transport: 'log' });
  });

  it('serves files to the Studio under a sandbox, and refuses a deletion without the CSRF token', async () => {
    await op.json(storage('/bucket'), 200, { method: 'POST', body: { name: 'files' } });
    const upload = await fetch(`${p.platformUrl}${storage('/object/files/page.html')}`, { method: 'POST', headers: { cookie: op.cookie, 'x-csrf-token': op.csrf, 'content-type': 'text/html' }, body: '<script>parent.alert(1)</script>' });
    assert.equal(upload.status, 200, await upload.text());
    const read = await op.call(storage('/object/files/page.html'));
    assert.equal(read.status, 200);
    assert.equal(await read.text(), '<script>parent.alert(1)</script>');
    assert.equal(read.headers.get('content-security-policy'), 'sandbox');
    assert.equal(read.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(read.headers.get('content-disposition'), "attachment; filename*=UTF-8''page.html", 'a page is downloaded, never shown');

    const refused = await fetch(`${p.platformUrl}${storage('/object/files')}`, { method: 'DELETE', headers: { cookie: op.cookie, 'content-type': 'application/json' }, body: JSON.stringify({ prefixes: ['page.html'] }) });
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { code: string }).code, 'csrf_failed');
    assert.equal((await op.call(storage('/object/files/page.html'))).status, 200, 'nothing was deleted');
  });
});
