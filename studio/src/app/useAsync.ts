// Loading something for a page: its value, error and whether it is loading,
// loaded again when `deps` change or on reload(). A result that arrives after
// a newer request started is dropped.
import { useCallback, useEffect, useRef, useState } from 'react';

export type Async<T> = { value: T | undefined; error: Error | undefined; loading: boolean; reload: () => void };

export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): Async<T> {
  const [value, setValue] = useState<T>();
  const [error, setError] = useState<Error>();
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const id = ++latest.current;
    setLoading(true);
    load().then(
      (v) => {
        if (id !== latest.current) return;
        setValue(v);
        setError(undefined);
        setLoading(false);
      },
      (e: unknown) => {
        if (id !== latest.current) return;
        setError(e instanceof Error ? e : new Error(String(e)));
        setLoading(false);
      },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { value, error, loading, reload };
}
