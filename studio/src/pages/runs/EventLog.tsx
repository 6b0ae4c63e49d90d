// A run's events as a log: number, type and the event itself as JSON text,
// newest last, in a scrolling region.
import type { RunEvent } from '../../api/events.ts';

export function EventLog({ events }: { events: RunEvent[] }) {
  return (
    <div className="event-log" role="log" aria-label="Events" tabIndex={0}>
      {events.length === 0 ? <p className="muted">No events yet.</p> : (
        <ol className="plain-list">
          {events.map((e, i) => {
            const { type, ...rest } = e.data;
            return <li key={e.id ?? `n${i}`}><span className="mono muted">{e.id ?? ''}</span> <strong>{type}</strong> <code className="small">{JSON.stringify(rest).slice(0, 400)}</code></li>;
          })}
        </ol>
      )}
    </div>
  );
}
