// A workflow's newest run in its list row: status and when, linked to the run's page.
import { Link } from 'react-router';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { runBadge } from '../runs/runStatus.ts';

export function LastRun({ workflowId }: { workflowId: string }) {
  const runs = useAsync(() => must(ai.GET('/api/workflows/{id}/executions', { params: { path: { id: workflowId } } })), [workflowId]);
  const last = runs.value?.[0];
  if (runs.loading) return <span className="muted">…</span>;
  if (!last) return <span className="muted">never</span>;
  return <Link to={`/runs/workflow/${workflowId}/${last.id}`}><span className={`badge ${runBadge(last.status)}`}>{last.status}</span> {new Date(last.created_at).toLocaleString()}</Link>;
}
