// Signing in to the Studio in Chromium, as a newcomer does after `npm start`:
// the page says how to set up; the one-time link from the startup log makes
// the first operator; the sidebar works with the keyboard alone; signing out
// ends the session in the database (the old cookie is worth nothing); a wrong
// password is refused; ten failures lock an e-mail, right password or not;
// too many attempts from one address are refused too.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { setUpFirstOperator, signIn, type StudioPage } from '../../helpers/chromium.ts';
import { query } from '../../helpers/db.ts';
import type { StudioServer } from '../../helpers/studio-process.ts';
import { studioSuite } from '../../helpers/studio-suite.ts';

const root = path.resolve(import.meta.dirname, '..', '..', '..');
const run = promisify(execFile);

describe('Studio in Chromium: signing in', () => {
  let server: StudioServer;
  let s: StudioPage;
  const alert = () => s.page.getByRole('alert');

  studioSuite({ env: { STUDIO_SIGN_IN_RATE: '14/300' }, setUp: false }, (run) => ({ server, s } = run));

  it('says how to set up before any operator exists, then makes the first one through the setup link', async () => {
    assert.ok(server.setupUrl, 'the startup log printed a setup link');
    assert.match(server.setupUrl, /^http:\/\/localhost:\d+\/setup#[\w-]{40,}$/);
    await s.page.goto('/');
    await s.page.waitForURL(/\/sign-in$/);
    await s.page.getByRole('heading', { name: 'Set up the Studio' }).waitFor();
    await s.axe('the sign-in page before setup');
    await s.shot('setup-needed');

    await setUpFirstOperator(s, server.setupUrl);
    await s.page.getByRole('heading', { name: 'Table editor' }).waitFor();
    await s.page.getByText('first-operator@example.com').waitFor();
    assert.equal(new URL(s.page.url()).hash, '', 'the token leaves the address bar');
    const cookies = await s.context.cookies();
    const session = cookies.find((c) => c.name === 'pgbase_studio')!;
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    assert.equal(await s.page.evaluate(() => document.cookie), '', 'the page cannot read the session cookie');
    await s.axe('the table editor, empty');
  });

  it('moves through the sidebar with the keyboard alone', async () => {
    await s.page.goto('/tables');
    await s.page.getByRole('heading', { name: 'Table editor' }).waitFor();
    await s.page.locator('body').focus();
    await s.page.keyboard.press('Tab');
    assert.equal(await s.page.evaluate(() => document.activeElement?.textContent), 'Skip to the page', 'the first Tab reaches the skip link');
    const sidebar = s.page.getByRole('navigation', { name: 'Studio' });
    for (let i = 0; i < 10 && !(await sidebar.getByRole('link', { name: 'Table editor' }).evaluate((el) => el === document.activeElement)); i++) await s.page.keyboard.press('Tab');
    assert.ok(await sidebar.getByRole('link', { name: 'Table editor' }).evaluate((el) => el === document.activeElement), 'Tab reaches the sidebar');
    await s.page.keyboard.press('Tab');
    await s.page.keyboard.press('Enter');
    await s.page.waitForURL(/\/sql$/);
    await sidebar.locator('a[aria-current="page"]', { hasText: 'SQL editor' }).waitFor();
    await s.page.keyboard.press('Tab');
    await s.page.keyboard.press('Tab');
    await s.page.keyboard.press('Enter');
    await s.page.waitForURL(/\/auth\/users$/);
    await s.page.getByRole('heading', { name: 'Users' }).waitFor();
  });

  it('signs out, ending the session in the database', async () => {
    const cookie = (await s.context.cookies()).find((c) => c.name === 'pgbase_studio')!;
    await s.page.getByRole('button', { name: 'Sign out' }).click();
    await s.page.waitForURL(/\/sign-in$/);
    await s.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const [ended] = await query<{ open: number }>(server.databaseUrl, 'select count(*)::int as open from studio.sessions where ended_at is null');
    assert.equal(ended!.open, 0);
    const state = await fetch(`${server.studioUrl}/api/platform/studio/state`, { headers: { cookie: `pgbase_studio=${cookie.value}` } });
    assert.equal(((await state.json()) as { operator: unknown }).operator, null, 'the old cookie opens nothing');
    await s.axe('the sign-in page');
    await s.shot('sign-in');
  });

  it('refuses a wrong password, and signs in with the right one', async () => {
    await signIn(s, 'first-operator@example.com', 'not-the-password');
    await alert().getByText('Wrong e-mail or password').waitFor();
    assert.match(s.page.url(), /\/sign-in$/);
    await s.axe('the sign-in page with its error');
    await signIn(s, 'first-operator@example.com');
    await s.page.waitForURL(/\/tables$/);
    await s.page.getByRole('button', { name: 'Sign out' }).click();
    await s.page.waitForURL(/\/sign-in$/);
  });

  it('locks an e-mail after ten failures, even for the right password, and then refuses the address', async () => {
    // A second operator, made as a script makes one.
    await run(process.execPath, ['server/cli/studio-operator.ts', '--email', 'second@example.com', '--password', 'second-operator-password'], {
      cwd: root, env: { ...process.env, DATABASE_URL: server.databaseUrl, JWT_SECRET: server.jwtSecret, LOG_LEVEL: 'silent' },
    });
    for (let i = 0; i < 10; i++) {
      await signIn(s, 'second@example.com', `wrong-${i}`);
      await alert().getByText('Wrong e-mail or password').waitFor();
    }
    await signIn(s, 'second@example.com', 'second-operator-password');
    await alert().getByText('Too many failed sign-ins: try again in 15 minutes').waitFor();
    assert.match(s.page.url(), /\/sign-in$/);
    await s.shot('sign-in-locked');
    // 13 attempts from this address so far (STUDIO_SIGN_IN_RATE=14/300): one more is heard, then none.
    await signIn(s, 'first-operator@example.com', 'wrong-again');
    await alert().getByText('Wrong e-mail or password').waitFor();
    await signIn(s, 'first-operator@example.com');
    await alert().getByText(/^Too many sign-in attempts from this address: try again in \d+ minutes?$/).waitFor();
    const [failures] = await query<{ n: number }>(server.databaseUrl, "select count(*)::int as n from studio.sign_in_failures where email = 'second@example.com'");
    assert.equal(failures!.n, 10, 'the ten failures hold the lock (a refusal while locked does not extend it)');
  });
});
