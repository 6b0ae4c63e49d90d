// The tools agents can be given: the builtins, then the custom HTTP tools
// with their input schema; a custom tool is tried from a form of its
// schema, and made here from a name, an endpoint and its input schema (JSON).
import { useState, type FormEvent } from 'react';
import { ai, must } from '../../api/client.ts';
import { useAction } from '../../app/useAction.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { AiNav } from './AiNav.tsx';
import { ToolTry } from './ToolTry.tsx';

export default function ToolsPage() {
  const tools = useAsync(() => must(ai.GET('/api/tools')), []);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [endpoint, setEndpoint] = useState('');
  const [schema, setSchema] = useState('{"type": "object", "properties": {}}');
  const { error, run } = useAction();
  const create = (e: FormEvent) => {
    e.preventDefault();
    return run(() => must(ai.POST('/api/tools', { body: { name, description, type: 'http', input_schema: JSON.parse(schema) as Record<string, unknown>, config: { endpoint } } })), () => { setName(''); tools.reload(); });
  };
  return (
    <div className="split">
      <AiNav />
      <div className="split-main">
        <PageHeader title="Tools" />
        <ErrorNote error={tools.error} />
        <table className="list-table">
          <caption className="sr-only">Tools</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Description</th><th scope="col">Input</th></tr></thead>
          <tbody>
            {tools.value?.map((t) => (
              <tr key={`${t.tool_type}:${t.name}`}>
                <th scope="row" className="mono">{t.name}</th><td>{t.tool_type}</td><td>{t.description}</td>
                <td><details><summary>schema</summary><pre className="small">{JSON.stringify(t.input_schema, null, 2)}</pre></details></td>
              </tr>
            ))}
          </tbody>
        </table>
        <ToolTry tools={tools.value?.flatMap((t) => (t.tool_type === 'custom' && t.id ? [{ id: t.id, name: t.name, input_schema: t.input_schema }] : [])) ?? []} />
        <h2>New custom tool</h2>
        <form className="stack kb-form" onSubmit={(e) => void create(e)}>
          <label>Name<input required value={name} onChange={(e) => setName(e.target.value)} className="mono" /></label>
          <label>Description<input required value={description} onChange={(e) => setDescription(e.target.value)} /></label>
          <label>Endpoint (HTTPS)<input required type="url" value={endpoint} onChange={(e) => setEndpoint(e.target.value)} /></label>
          <label>Input schema (JSON Schema)<textarea className="mono" rows={4} value={schema} onChange={(e) => setSchema(e.target.value)} /></label>
          <ErrorNote error={error} />
          <button type="submit" className="primary">Create tool</button>
        </form>
      </div>
    </div>
  );
}
