// The project's agents: name, model, owner; a new one is named here (its
// model chosen from the router's catalogue) and opens with its playground.
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { ModelPicker } from './ModelPicker.tsx';

export default function AgentList() {
  const list = useAsync(() => must(ai.GET('/api/agents')), []);
  const [name, setName] = useState('');
  const [model, setModel] = useState('');
  const [error, setError] = useState<Error>();
  const navigate = useNavigate();
  const create = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const made = await must(ai.POST('/api/agents', { body: { name, ...(model ? { model } : {}) } }));
      void navigate(`/agents/${made.id}`);
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <div className="single">
      <PageHeader title="Agents" />
      <form className="field-row" onSubmit={(e) => void create(e)}>
        <label>New agent<input required value={name} onChange={(e) => setName(e.target.value)} placeholder="Name" /></label>
        <ModelPicker value={model} onChange={setModel} />
        <button type="submit" className="primary">Create</button>
      </form>
      <ErrorNote error={error ?? list.error} />
      {list.loading && !list.value ? <Loading what="agents" /> : list.value?.length === 0 ? <p className="empty">No agents yet.</p> : (
        <table className="list-table">
          <caption className="sr-only">Agents</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Model</th><th scope="col">Owner</th><th scope="col">Changed</th></tr></thead>
          <tbody>
            {list.value?.map((a) => (
              <tr key={a.id}>
                <td><Link to={`/agents/${a.id}`}>{a.name}</Link></td>
                <td className="mono small">{a.model ?? 'the default'}</td>
                <td className="mono small">{a.owner_id ?? 'the project'}</td>
                <td>{new Date(a.updated_at).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
