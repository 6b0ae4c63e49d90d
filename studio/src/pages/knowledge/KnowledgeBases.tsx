// Knowledge bases: each with its strategy, sources and how indexing stands;
// a new one made with a strategy and its settings (a form from the
// strategy's defaults).
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { ConfigFields } from './ConfigFields.tsx';
import { KnowledgeNav } from './KnowledgeNav.tsx';

type Strategy = { label: string; default_indexing_config: Record<string, unknown> };

export default function KnowledgeBases() {
  const list = useAsync(() => must(ai.GET('/api/knowledge-bases')), []);
  const defaults = useAsync(() => must(ai.GET('/api/config/kb-defaults')), []);
  const strategies = (defaults.value?.strategies ?? {}) as Record<string, Strategy>;
  const [name, setName] = useState('');
  const [strategy, setStrategy] = useState('chunk_embed');
  const [settings, setSettings] = useState<Record<string, unknown>>({});
  const [error, setError] = useState<Error>();
  const navigate = useNavigate();
  const create = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const indexing = { ...strategies[strategy]?.default_indexing_config, ...settings, strategy };
      const made = await must(ai.POST('/api/knowledge-bases', { body: { name, indexing_config: indexing } }));
      void navigate(`/knowledge/bases/${made.id}`);
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <div className="split">
      <KnowledgeNav />
      <div className="split-main">
        <PageHeader title="Knowledge bases" />
        <ErrorNote error={error ?? list.error} />
        <table className="list-table">
          <caption className="sr-only">Knowledge bases</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Strategy</th><th scope="col">Sources</th><th scope="col">Indexed</th><th scope="col">Items</th><th scope="col">Full-text index</th></tr></thead>
          <tbody>
            {list.value?.map((k) => (
              <tr key={k.id}>
                <td><Link to={`/knowledge/bases/${k.id}`}>{k.name}</Link></td>
                <td>{k.strategy}</td><td className="num">{k.status.sources}</td><td className="num">{k.status.indexed}</td><td className="num">{k.status.items}</td><td>{k.bm25_status}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <h2>New knowledge base</h2>
        <form className="stack kb-form" onSubmit={(e) => void create(e)}>
          <label>Name<input required value={name} onChange={(e) => setName(e.target.value)} /></label>
          <label>Strategy
            <select value={strategy} onChange={(e) => { setStrategy(e.target.value); setSettings({}); }}>
              {Object.entries(strategies).map(([k, s]) => <option key={k} value={k}>{s.label}</option>)}
            </select>
          </label>
          {strategies[strategy] && <ConfigFields key={strategy} legend="Indexing settings" defaults={strategies[strategy].default_indexing_config} value={settings} onChange={setSettings} />}
          <button type="submit" className="primary">Create knowledge base</button>
        </form>
      </div>
    </div>
  );
}
