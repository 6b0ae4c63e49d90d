// The Studio in Debian's Chromium, driven by playwright-core (no browser
// download): a page that records what must never happen (an uncaught error,
// a Content-Security-Policy violation, a dialog opened by script, as an
// injected `alert` would), axe-core's check of the page as it stands, and
// screenshots under test-output/studio/ for a reviewer to look at.
import { AxeBuilder } from '@axe-core/playwright';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { OPERATOR_PASSWORD } from './studio.ts';

const root = path.resolve(import.meta.dirname, '..', '..');
export const SCREENSHOTS = path.join(root, 'test-output', 'studio');

/** Debian's Chromium (apt-get install chromium), or CHROMIUM_PATH. */
export function chromiumPath(): string | null {
  for (const candidate of [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser']) if (candidate && existsSync(candidate)) return candidate;
  return null;
}

export type StudioPage = {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** What went wrong in the page so far: uncaught errors, CSP violations, script dialogs. */
  problems: string[];
  /** A screenshot at test-output/studio/<name>.png. */
  shot: (name: string) => Promise<void>;
  /** axe-core on the page as it is: no serious or critical violation. */
  axe: (what: string) => Promise<void>;
  /** After each test: a screenshot of the page as a failed test left it (failed-<test>.png). */
  afterTest: (t: { name: string; passed?: boolean }) => Promise<void>;
  /** Asserts nothing went wrong in the page, then closes the browser. */
  close: () => Promise<void>;
};

export async function openBrowser(baseURL: string, opts: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {}): Promise<StudioPage> {
  const executablePath = chromiumPath();
  assert.ok(executablePath, 'Chromium is installed (apt-get install chromium)');
  const browser = await chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  const context = await browser.newContext({ baseURL, colorScheme: opts.colorScheme ?? 'light', viewport: opts.viewport ?? { width: 1400, height: 900 }, acceptDownloads: true });
  // Reported as console errors, which the listener below collects; injected
  // by the browser itself, so the page's CSP does not apply to it.
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'}`));
  });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /CSP violation|Content Security Policy/.test(m.text())) problems.push(m.text());
  });
  page.on('dialog', (d) => {
    problems.push(`a script opened a ${d.type()} dialog: ${d.message()}`);
    void d.dismiss();
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    browser, context, page, problems,
    shot: async (name) => {
      await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: false });
    },
    axe: async (what) => {
      const result = await new AxeBuilder({ page }).options({ resultTypes: ['violations'] }).analyze();
      const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(bad.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`), [], `axe on ${what}`);
    },
    afterTest: async (t) => {
      if (t.passed !== false) return;
      await page.screenshot({ path: path.join(SCREENSHOTS, `failed-${t.name.replace(/[^\w]+/g, '-').slice(0, 80)}.png`) }).catch(() => undefined);
    },
    close: async () => {
      await browser.close();
      assert.deepEqual(problems, [], 'nothing went wrong in the page');
    },
  };
}

/** Through the one-time setup link: the first operator, signed in. */
export async function setUpFirstOperator(s: StudioPage, setupUrl: string, email = 'first-operator@example.com'): Promise<void> {
  await s.page.goto(setupUrl);
  await s.page.getByLabel('E-mail').fill(email);
  await s.page.getByLabel('Password').fill(OPERATOR_PASSWORD);
  await s.page.getByRole('button', { name: 'Create operator' }).click();
  await s.page.waitForURL(/\/tables/);
}

/** The password form of /sign-in. */
export async function signIn(s: StudioPage, email: string, password = OPERATOR_PASSWORD): Promise<void> {
  await s.page.goto('/sign-in');
  await s.page.getByLabel('E-mail').fill(email);
  await s.page.getByLabel('Password').fill(password);
  await s.page.getByRole('button', { name: 'Sign in' }).click();
}
