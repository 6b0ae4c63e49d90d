// A run as its page shows it, live: the stored record (status, totals,
// timeline) and every event in order. Events are followed from the first
// (or, after a dropped connection or a server restart, from the last one
// seen: Last-Event-ID), and the record is read again as they arrive (at most
// every 400 ms) and once more when the run ends.
import { useEffect, useRef, useState } from 'react';
import { follow, type RunEvent } from '../../api/events.ts';
import type { RunRecord, RunSource } from './runSource.ts';

export function useLiveRun(source: RunSource) {
  const [record, setRecord] = useState<RunRecord>();
  const [error, setError] = useState<Error>();
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [connection, setConnection] = useState<'live' | 'reconnecting' | 'ended'>('live');
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);

  useEffect(() => {
    const stop = new AbortController();
    const reload = () => source.load().then((r) => {
      if (stop.signal.aborted) return;
      if (performance.getEntriesByName('studio-run-record').length === 0) performance.mark('studio-run-record');
      setRecord(r);
      setError(undefined);
    }, (e: unknown) => setError(e as Error));
    const soon = () => { if (!timer.current) timer.current = setTimeout(() => { timer.current = undefined; void reload(); }, 400); };
    setEvents([]);
    void reload();
    void follow({
      signal: stop.signal, open: (after) => source.open(after, stop.signal),
      onEvent: (e) => { setEvents((now) => [...now, e]); soon(); },
      onState: (state) => { setConnection(state); if (state === 'ended') void reload(); },
    });
    return () => { stop.abort(); clearTimeout(timer.current); timer.current = undefined; };
  }, [source]);

  return { record, error, events, connection };
}
