// What the startup log says about the Studio: where it is, and, on a data
// directory with no operator yet, a one-time setup link (as PocketBase
// prints one) where the first operator creates their account. The token rides
// in the link's fragment, which browsers never send to a server or put in a
// Referer. Each start makes a new link and the last one made is the one that
// works (sql/0098 studio.open_setup); once an operator exists, none is made.
import type pg from 'pg';
import type { Logger } from 'pino';
import { newToken, tokenHash } from './session.ts';

export async function announceStudio(pool: pg.Pool, platformUrl: string, log: Logger): Promise<string | null> {
  const token = newToken();
  const opened = (await pool.query<{ opened: boolean }>('select studio.open_setup($1) as opened', [tokenHash(token)])).rows[0]!.opened;
  if (!opened) {
    log.info({ studio_url: platformUrl }, `Studio: open ${platformUrl}`);
    return null;
  }
  const setupUrl = `${platformUrl}/setup#${token}`;
  log.warn({ studio_url: platformUrl, setup_url: setupUrl }, `Studio: no operator yet. Create the first one at ${setupUrl} (the link works once), or run npm run studio-operator -- --email <you>`);
  return setupUrl;
}
