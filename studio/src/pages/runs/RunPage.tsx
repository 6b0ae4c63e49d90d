// One page for any run (a workflow execution, an agent run, an orchestration
// run), at an address that can be reloaded or shared: its status and totals,
// cancel while it runs, the trace id to paste into a tracing backend, the
// timeline and the events, followed live from whichever server runs it.
import { useMemo } from 'react';
import { Link, useParams } from 'react-router';
import { useToast } from '../../app/toasts.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { EventLog } from './EventLog.tsx';
import { runSource, type RunKind } from './runSource.ts';
import { RunTotals } from './RunTotals.tsx';
import { Timeline } from './Timeline.tsx';
import { useLiveRun } from './useLiveRun.ts';

export default function RunPage() {
  const { kind = 'workflow', owner = '', id = '' } = useParams();
  const runKind = (['workflow', 'agent', 'orchestration'].includes(kind) ? kind : 'workflow') as RunKind;
  // An orchestration run is named by its id alone (/runs/orchestration/{run}).
  const [ownerId, runId] = runKind === 'orchestration' ? ['', owner] : [owner, id];
  const source = useMemo(() => runSource(runKind, ownerId, runId), [runKind, ownerId, runId]);
  const live = useLiveRun(source);
  const notify = useToast();
  const back = runKind === 'workflow' ? <Link to={`/workflows/${ownerId}`}>the workflow</Link> : null;
  return (
    <div className="single run-page">
      <div className="page-header">
        <h1>{source.title} <span className="mono small">{runId}</span></h1>
        <div className="page-actions">
          {back}
          <span role="status" className="small">{live.connection === 'reconnecting' ? 'Reconnecting…' : live.connection === 'live' ? 'Live' : 'Ended'}</span>
          {live.record && ['running', 'queued', 'waiting', 'waiting_approval', 'waiting_client'].includes(live.record.status) && (
            <button type="button" className="danger" onClick={() => void source.cancel().then(() => notify('Cancelling the run'), (e: Error) => notify(e.message, 'error'))}>Cancel run</button>
          )}
        </div>
      </div>
      <ErrorNote error={live.error} />
      {!live.record ? <Loading what="the run" /> : (
        <>
          <RunTotals record={live.record} />
          <h2>Timeline</h2>
          <Timeline root={live.record.timeline} />
        </>
      )}
      <h2>Events</h2>
      <EventLog events={live.events} />
    </div>
  );
}
