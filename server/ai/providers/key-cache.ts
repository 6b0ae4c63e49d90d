// The project's provider keys, kept in memory once decrypted: a model call
// would otherwise read its key first, one round trip as costly as the call
// against a fast model (bench/RESULTS.md, durable runs). Every replica
// forgets what it kept when told the keys changed (NOTIFY ai_provider_keys
// from a trigger, sql/0076: any change, API or SQL) and when its listener
// reconnects (notices sent while it was away are lost); the router of this
// process forgets at once when its own routes change a key. Only keys found
// are kept: a missing key is looked for again on each call, so a key stored
// after a refusal is used at once. Nothing is kept before the listener
// first listens, nor for longer than KEEP_MS, a bound should a notice be
// lost without the connection dropping.
import type { Logger } from 'pino';
import { listenChannel } from '../../../db/listener.ts';
import type { Provider } from './vendors.ts';

const KEEP_MS = 60_000;

/** A stored key as read from the database (undefined: none stored, or unreadable). */
export type StoredKeyRead = (provider: Provider) => Promise<string | undefined>;

export function keptKeys(read: StoredKeyRead, opts: { adminUrl: string; log: Logger }) {
  const kept = new Map<Provider, { key: string; at: number }>();
  // Bumped on every change: a read that began before it is not kept.
  let generation = 0;
  let listening = false;
  const forget = () => {
    generation++;
    kept.clear();
  };
  const listener = listenChannel({
    url: opts.adminUrl, channel: 'ai_provider_keys', name: 'provider-keys', log: opts.log,
    onNotify: forget,
    onListening: () => {
      forget();
      listening = true;
    },
  });
  return {
    read: async (provider: Provider): Promise<string | undefined> => {
      const hit = kept.get(provider);
      if (hit && Date.now() - hit.at < KEEP_MS) return hit.key;
      const at = generation;
      const key = await read(provider);
      if (key !== undefined && listening && at === generation) kept.set(provider, { key, at: Date.now() });
      return key;
    },
    forget,
    stop: async () => {
      listening = false;
      forget();
      await listener.stop();
    },
  };
}
