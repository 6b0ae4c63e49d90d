// The agent's tools: each assignment with its config_override (JSON, saved
// with PATCH), removed with a click; a builtin or custom tool assigned by
// name from the project's tool list.
import { useState } from 'react';
import { ai, must } from '../../api/client.ts';
import { useAction } from '../../app/useAction.ts';
import { useAsync } from '../../app/useAsync.ts';
import { useToast } from '../../app/toasts.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';

function Override({ agentId, id, value, onSaved }: { agentId: string; id: string; value: unknown; onSaved: () => void }) {
  const [text, setText] = useState(JSON.stringify(value ?? {}, null, 2));
  const notify = useToast();
  const save = async () => {
    try {
      await must(ai.PATCH('/api/agents/{id}/tools/{assignmentId}', { params: { path: { id: agentId, assignmentId: id } }, body: { config_override: JSON.parse(text) as Record<string, unknown> } }));
      notify('Tool settings saved');
      onSaved();
    } catch (err) {
      notify((err as Error).message, 'error');
    }
  };
  return (
    <div className="stack">
      <label>config_override (JSON)<textarea className="mono" rows={2} value={text} onChange={(e) => setText(e.target.value)} /></label>
      <button type="button" onClick={() => void save()}>Save tool settings</button>
    </div>
  );
}

export function AgentTools({ agentId }: { agentId: string }) {
  const assigned = useAsync(() => must(ai.GET('/api/agents/{id}/tools', { params: { path: { id: agentId } } })), [agentId]);
  const tools = useAsync(() => must(ai.GET('/api/tools')), []);
  const [choice, setChoice] = useState('');
  const { error, run } = useAction();
  const act = (what: () => Promise<unknown>) => run(what, assigned.reload);
  const taken = new Set(assigned.value?.map((a) => a.tool_name));
  return (
    <section aria-labelledby="agent-tools-title">
      <h2 id="agent-tools-title">Tools</h2>
      <ErrorNote error={error ?? assigned.error} />
      <ul className="plain-list stack">
        {assigned.value?.map((a) => (
          <li key={a.id} className="card">
            <div className="card-head"><strong className="mono">{a.tool_name}</strong> <span className="muted small">{a.tool_type}</span>
              <button type="button" className="link-button" aria-label={`Remove ${a.tool_name}`} onClick={() => void act(() => must(ai.DELETE('/api/agents/{id}/tools/{assignmentId}', { params: { path: { id: agentId, assignmentId: a.id } } })))}>Remove</button>
            </div>
            {a.tool_type === 'builtin' && <Override agentId={agentId} id={a.id} value={a.config_override} onSaved={assigned.reload} />}
          </li>
        ))}
      </ul>
      <form className="field-row" onSubmit={(e) => { e.preventDefault(); if (choice) void act(() => must(ai.POST('/api/agents/{id}/tools', { params: { path: { id: agentId } }, body: { tool_name: choice } }))).then(() => setChoice('')); }}>
        <label>Tool
          <select value={choice} onChange={(e) => setChoice(e.target.value)}>
            <option value="">Choose a tool</option>
            {tools.value?.filter((t) => !taken.has(t.name)).map((t) => <option key={t.name} value={t.name}>{t.name} ({t.tool_type})</option>)}
          </select>
        </label>
        <button type="submit" disabled={!choice}>Assign</button>
      </form>
    </section>
  );
}
