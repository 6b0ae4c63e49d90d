// The project's workflows: name, owner, deployed version and the last run
// with its status; a new one is named here and opens on the canvas.
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { LastRun } from './LastRun.tsx';

export default function WorkflowList() {
  const list = useAsync(() => must(ai.GET('/api/workflows', { params: { query: { limit: 200 } } })), []);
  const [name, setName] = useState('');
  const [error, setError] = useState<Error>();
  const navigate = useNavigate();
  const create = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const made = await must(ai.POST('/api/workflows', { body: { name } }));
      void navigate(`/workflows/${made.id}`);
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <div className="single">
      <PageHeader title="Workflows" />
      <form className="field-row" onSubmit={(e) => void create(e)}>
        <label>New workflow<input required value={name} onChange={(e) => setName(e.target.value)} placeholder="Name" /></label>
        <button type="submit" className="primary">Create</button>
      </form>
      <ErrorNote error={error ?? list.error} />
      {list.loading && !list.value ? <Loading what="workflows" /> : list.value?.items.length === 0 ? <p className="empty">No workflows yet.</p> : (
        <table className="list-table">
          <caption className="sr-only">Workflows</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Owner</th><th scope="col">Deployed</th><th scope="col">Last run</th><th scope="col">Changed</th></tr></thead>
          <tbody>
            {list.value?.items.map((w) => (
              <tr key={w.id}>
                <td><Link to={`/workflows/${w.id}`}>{w.name}</Link></td>
                <td className="mono small">{w.owner_id ?? 'the project'}</td>
                <td>{w.deployed ? `version ${w.active_version}` : 'no'}</td>
                <td><LastRun workflowId={w.id} /></td>
                <td>{new Date(w.updated_at).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
