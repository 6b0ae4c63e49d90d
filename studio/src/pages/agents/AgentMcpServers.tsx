// The agent's MCP servers, whose tools it is offered at each run: added
// (streamable HTTP or SSE), switched off and on, removed, and each asked for
// its tools on demand. Headers are shown masked, as the API answers them.
import { useState, type FormEvent } from 'react';
import { ai, must } from '../../api/client.ts';
import { useAction } from '../../app/useAction.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { McpServerTools } from './McpServerTools.tsx';

export function AgentMcpServers({ agentId }: { agentId: string }) {
  const path = { params: { path: { id: agentId } } };
  const servers = useAsync(() => must(ai.GET('/api/agents/{id}/mcp-servers', path)), [agentId]);
  const { error, run } = useAction();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [transport, setTransport] = useState<'streamable_http' | 'sse'>('streamable_http');
  const add = (e: FormEvent) => {
    e.preventDefault();
    void run(() => must(ai.POST('/api/agents/{id}/mcp-servers', { ...path, body: { name, url, transport } })), () => { setName(''); setUrl(''); servers.reload(); });
  };
  const server = (serverId: string) => ({ params: { path: { id: agentId, serverId } } });
  return (
    <section aria-labelledby="agent-mcp-title">
      <h2 id="agent-mcp-title">MCP servers</h2>
      <ErrorNote error={error ?? servers.error} />
      <ul className="plain-list stack">
        {servers.value?.map((m) => (
          <li key={m.id}>
            <div className="inline-group">
              <span>{m.name} <span className="mono small">{m.url}</span>{m.transport === 'sse' ? ' (SSE)' : ''}</span>
              <label className="inline-group small"><input type="checkbox" checked={m.enabled} onChange={(e) => void run(() => must(ai.PUT('/api/agents/{id}/mcp-servers/{serverId}', { ...server(m.id), body: { enabled: e.target.checked } })), servers.reload)} />on</label>
              <button type="button" className="link-button" aria-label={`Remove the MCP server ${m.name}`} onClick={() => void run(() => must(ai.DELETE('/api/agents/{id}/mcp-servers/{serverId}', server(m.id))), servers.reload)}>Remove</button>
            </div>
            <McpServerTools agentId={agentId} serverId={m.id} name={m.name} />
          </li>
        ))}
      </ul>
      <form className="stack" onSubmit={add}>
        <label>MCP server name<input required value={name} onChange={(e) => setName(e.target.value)} /></label>
        <label>URL<input required type="url" value={url} onChange={(e) => setUrl(e.target.value)} /></label>
        <label>Transport
          <select value={transport} onChange={(e) => setTransport(e.target.value as 'streamable_http' | 'sse')}>
            <option value="streamable_http">Streamable HTTP</option><option value="sse">SSE (older servers)</option>
          </select>
        </label>
        <button type="submit">Add MCP server</button>
      </form>
    </section>
  );
}
