// Fixed windows per key, in this process's memory (as GoTrue keeps its
// limits): a window opens with a key's first hit, and past `count` hits in
// it the key is refused until it closes. Used by the identity service's
// per-address limits and the Studio's sign-in.
export type Rate = { count: number; seconds: number };

export type RateWindow = {
  /** Counts one hit of `key`: allowed, or refused with the seconds until its window closes. */
  hit: (key: string) => { ok: true } | { ok: false; retryAfterSeconds: number };
  close: () => void;
};

export function rateWindow(rate: Rate): RateWindow {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [key, w] of windows) if (w.resetAt <= now) windows.delete(key);
  }, 60_000);
  sweep.unref();
  return {
    hit: (key) => {
      const now = Date.now();
      let w = windows.get(key);
      if (!w || w.resetAt <= now) {
        w = { count: 0, resetAt: now + rate.seconds * 1000 };
        windows.set(key, w);
      }
      w.count++;
      return w.count > rate.count ? { ok: false, retryAfterSeconds: Math.ceil((w.resetAt - now) / 1000) } : { ok: true };
    },
    close: () => clearInterval(sweep),
  };
}
