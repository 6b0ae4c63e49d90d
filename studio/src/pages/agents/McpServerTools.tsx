// An MCP server's tools, asked for when the list is opened (the server is
// contacted then, not on every page load): each as the agent's model is
// offered it, with its description and input schema. The server's words
// are shown as text.
import { useState } from 'react';
import { ai, must } from '../../api/client.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';

type Listed = Awaited<ReturnType<typeof listTools>>;
const listTools = (agentId: string, serverId: string) => must(ai.GET('/api/agents/{id}/mcp-servers/{serverId}/tools', { params: { path: { id: agentId, serverId } } }));

export function McpServerTools({ agentId, serverId, name }: { agentId: string; serverId: string; name: string }) {
  const [tools, setTools] = useState<Listed>();
  const [error, setError] = useState<Error>();
  const [busy, setBusy] = useState(false);
  const ask = () => {
    setBusy(true);
    setError(undefined);
    listTools(agentId, serverId).then(setTools, setError).finally(() => setBusy(false));
  };
  return (
    <details onToggle={(e) => { if ((e.target as HTMLDetailsElement).open && !tools && !busy) ask(); }}>
      <summary>Tools of {name}</summary>
      <div aria-live="polite" aria-busy={busy}>
        {busy && <p className="small muted">Asking {name}…</p>}
        <ErrorNote error={error} />
        {error && <button type="button" className="link-button" onClick={ask}>Ask again</button>}
        {tools?.length === 0 && <p className="small muted">The server offers no tools.</p>}
        <ul className="plain-list" aria-label={`Tools of ${name}`}>
          {tools?.map((t) => (
            <li key={t.name}>
              <span className="mono">{t.offered_as}</span>{t.description ? ` ${t.description}` : ''}
              <details><summary>input schema</summary><pre className="small">{JSON.stringify(t.input_schema, null, 2)}</pre></details>
            </li>
          ))}
        </ul>
      </div>
    </details>
  );
}
