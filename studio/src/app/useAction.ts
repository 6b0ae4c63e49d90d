// A page's change sent to the server: `run(what, then)` awaits it, clears
// or keeps its error for the page to show, and calls `then` (a reload) when
// it went through; `busy` while it is under way.
import { useCallback, useState } from 'react';

export function useAction() {
  const [error, setError] = useState<Error>();
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (what: () => Promise<unknown>, then?: () => void): Promise<boolean> => {
    setBusy(true);
    try {
      await what();
      setError(undefined);
      then?.();
      return true;
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { error, busy, run };
}
