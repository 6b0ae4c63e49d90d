// An agent's run history (its last 100 runs).
import { Link, useParams } from 'react-router';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { RunHistory } from './RunHistory.tsx';

export default function AgentRuns() {
  const { id = '' } = useParams();
  const runs = useAsync(async () => {
    const [a, list] = await Promise.all([must(ai.GET('/api/agents/{id}', { params: { path: { id } } })), must(ai.GET('/api/agents/{id}/runs', { params: { path: { id } } }))]);
    return { name: a.name, runs: list.map((r) => ({ id: r.id, status: r.status, at: r.started_at, tokens_in: r.tokens_in, tokens_out: r.tokens_out, cost_usd: r.cost_usd, error: r.error, href: `/runs/agent/${id}/${r.id}` })) };
  }, [id]);
  return (
    <div className="single">
      <h1><Link to={`/agents/${id}`}>{runs.value?.name ?? 'Agent'}</Link> / runs</h1>
      <ErrorNote error={runs.error} />
      {runs.value ? <RunHistory runs={runs.value.runs} /> : !runs.error && <Loading what="the runs" />}
    </div>
  );
}
