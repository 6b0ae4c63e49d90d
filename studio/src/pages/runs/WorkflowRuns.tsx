// A workflow's run history (its last 100 runs).
import { Link, useParams } from 'react-router';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { RunHistory } from './RunHistory.tsx';

export default function WorkflowRuns() {
  const { id = '' } = useParams();
  const runs = useAsync(async () => {
    const [w, list] = await Promise.all([must(ai.GET('/api/workflows/{id}', { params: { path: { id } } })), must(ai.GET('/api/workflows/{id}/executions', { params: { path: { id } } }))]);
    return { name: w.name, runs: list.map((e) => ({ id: e.id, status: e.status, at: e.created_at, tokens_in: e.tokens_in, tokens_out: e.tokens_out, cost_usd: e.cost_usd, error: e.error, href: `/runs/workflow/${id}/${e.id}` })) };
  }, [id]);
  return (
    <div className="single">
      <h1><Link to={`/workflows/${id}`}>{runs.value?.name ?? 'Workflow'}</Link> / runs</h1>
      <ErrorNote error={runs.error} />
      {runs.value ? <RunHistory runs={runs.value.runs} /> : !runs.error && <Loading what="the runs" />}
    </div>
  );
}
