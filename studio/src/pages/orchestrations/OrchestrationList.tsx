// The project's orchestrations (a coordinator delegating to member agents);
// a new one is named here and opens with its members and playground.
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { ModelPicker } from '../agents/ModelPicker.tsx';

export default function OrchestrationList() {
  const list = useAsync(() => must(ai.GET('/api/orchestrations')), []);
  const [name, setName] = useState('');
  const [model, setModel] = useState('');
  const [error, setError] = useState<Error>();
  const navigate = useNavigate();
  const create = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const made = await must(ai.POST('/api/orchestrations', { body: { name, ...(model ? { model } : {}) } }));
      void navigate(`/orchestrations/${made.id}`);
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <div className="single">
      <PageHeader title="Orchestrations" />
      <form className="field-row" onSubmit={(e) => void create(e)}>
        <label>New orchestration<input required value={name} onChange={(e) => setName(e.target.value)} placeholder="Name" /></label>
        <ModelPicker value={model} onChange={setModel} />
        <button type="submit" className="primary">Create</button>
      </form>
      <ErrorNote error={error ?? list.error} />
      {list.value?.length === 0 ? <p className="empty">No orchestrations yet.</p> : (
        <table className="list-table">
          <caption className="sr-only">Orchestrations</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Strategy</th><th scope="col">Model</th><th scope="col">Changed</th></tr></thead>
          <tbody>{list.value?.map((o) => (
            <tr key={o.id}><td><Link to={`/orchestrations/${o.id}`}>{o.name}</Link></td><td>{o.strategy}</td><td className="mono small">{o.model ?? 'the default'}</td><td>{new Date(o.updated_at).toLocaleString()}</td></tr>
          ))}</tbody>
        </table>
      )}
    </div>
  );
}
