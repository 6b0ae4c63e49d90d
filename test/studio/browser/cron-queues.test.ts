// Database -> Cron and Queues in Chromium: a job scheduled from the form
// (its cron.schedule call shown before it runs) runs, its runs open in a
// dialog, it is paused after its SQL is shown; a command from the database
// renders as text; a queue made from the keyboard shows its messages, and
// is dropped after asking. Each dialog passes axe; screenshots saved.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StudioPage } from '../../helpers/chromium.ts';
import { query } from '../../helpers/db.ts';
import type { StudioServer } from '../../helpers/studio-process.ts';
import { studioSuite } from '../../helpers/studio-suite.ts';

describe('Studio in Chromium: cron jobs and queues', () => {
  let server: StudioServer;
  let s: StudioPage;
  const dialog = () => s.page.getByRole('dialog');
  /** Tabs until the focus is on the control with this label or text (a dozen presses at most). */
  const tabTo = async (name: string) => {
    for (let i = 0; i < 12; i++) {
      const here = await s.page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        return el?.getAttribute('aria-label') ?? el?.closest('label')?.textContent?.trim() ?? el?.textContent?.trim() ?? '';
      });
      if (here === name || here.startsWith(name)) return;
      await s.page.keyboard.press('Tab');
    }
    assert.fail(`${name} was not reached with Tab`);
  };

  studioSuite({
    prepare: async (started) => {
      await query(started.databaseUrl, `create table public.beats (at timestamptz not null default now());
        select cron.schedule('hostile', '0 4 * * *', $$select '<img src=x onerror=alert(1)>'$$);`);
    },
  }, (run) => ({ server, s } = run));

  it('schedules a job from the form, shows its runs, and pauses it after showing the SQL', async () => {
    await s.page.goto('/database/cron');
    await s.page.getByRole('heading', { name: 'Cron jobs' }).waitFor();
    // The list loads after the heading: wait for the job, then look at how its command is shown.
    await s.page.getByRole('cell', { name: 'hostile', exact: true }).waitFor();
    assert.equal(await s.page.locator('td', { hasText: "select '<img src=x onerror=alert(1)>'" }).count(), 1, 'a command is text');
    assert.equal(await s.page.locator('main img').count(), 0);
    await s.page.getByRole('button', { name: 'New job' }).click();
    await dialog().getByLabel('Name').fill('heartbeat');
    await dialog().getByLabel('Schedule (UTC)').fill('1 seconds');
    await dialog().getByLabel('SQL command').fill('insert into public.beats default values');
    await s.axe('the new cron job dialog');
    await dialog().getByRole('button', { name: 'Review SQL' }).click();
    await dialog().getByText("select cron.schedule('heartbeat', '1 seconds', 'insert into public.beats default values');").waitFor();
    await s.shot('database-cron-preview');
    await dialog().getByRole('button', { name: 'Run' }).click();
    await s.page.getByRole('cell', { name: 'heartbeat', exact: true }).waitFor();
    // It runs (the server's worker ticks), and its runs open in a dialog.
    for (let i = 0; i < 50; i++) {
      const [n] = await query<{ n: number }>(server.databaseUrl, 'select count(*)::int as n from public.beats');
      if (n!.n > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await s.page.getByRole('button', { name: 'Runs of heartbeat' }).click();
    await dialog().getByRole('cell', { name: 'succeeded' }).first().waitFor();
    await s.axe('a cron job\'s runs');
    await s.shot('database-cron-runs');
    await s.page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
    await s.page.getByRole('button', { name: 'Pause heartbeat' }).click();
    await dialog().getByText(/select cron\.alter_job\(\d+, active => false\);/).waitFor();
    await dialog().getByRole('button', { name: 'Run' }).click();
    await s.page.getByText('(paused)').first().waitFor();
    const [job] = await query<{ active: boolean }>(server.databaseUrl, "select active from cron.job where jobname = 'heartbeat'");
    assert.equal(job!.active, false);
    await s.shot('database-cron');
  });

  it('makes a queue from the keyboard, shows its messages, and drops it after asking', async () => {
    await s.page.goto('/database/queues');
    await s.page.getByRole('heading', { name: 'Queues' }).waitFor();
    await s.page.getByRole('button', { name: 'New queue' }).focus();
    await s.page.keyboard.press('Enter');
    await dialog().getByLabel('Name').waitFor();
    await tabTo('Name');
    await s.page.keyboard.type('emails');
    await s.page.keyboard.press('Enter');
    await dialog().getByText("select pgmq.create('emails');").waitFor();
    await tabTo('Run');
    await s.page.keyboard.press('Enter');
    await s.page.getByRole('cell', { name: 'emails', exact: true }).waitFor();
    await query(server.databaseUrl, `select pgmq.send('emails', '{"to": "a@example.com"}')`);
    await s.page.getByRole('button', { name: 'Refresh' }).click();
    await s.page.getByRole('row', { name: /emails 1 1/ }).waitFor();
    await s.axe('the queues');
    await s.shot('database-queues');
    await s.page.getByRole('button', { name: 'Drop emails' }).click();
    await dialog().getByText("select pgmq.drop_queue('emails');").waitFor();
    await dialog().getByRole('button', { name: 'Run' }).click();
    await s.page.getByText('No queues yet.').waitFor();
  });
});
