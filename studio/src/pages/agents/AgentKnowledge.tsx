// The agent's knowledge bases (each a search tool it may call) and MCP
// servers (whose tools it is offered at each run): added and removed here.
// An MCP server's headers are shown masked, as the API answers them.
import { useState, type FormEvent } from 'react';
import { ai, must } from '../../api/client.ts';
import { useAction } from '../../app/useAction.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';

export function AgentKnowledge({ agentId }: { agentId: string }) {
  const path = { params: { path: { id: agentId } } };
  const kbs = useAsync(() => must(ai.GET('/api/agents/{id}/knowledge-bases', path)), [agentId]);
  const all = useAsync(() => must(ai.GET('/api/knowledge-bases')), []);
  const servers = useAsync(() => must(ai.GET('/api/agents/{id}/mcp-servers', path)), [agentId]);
  const { error, run } = useAction();
  const [kb, setKb] = useState('');
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const taken = new Set(kbs.value?.map((k) => k.knowledge_base_id));
  const addServer = (e: FormEvent) => {
    e.preventDefault();
    void run(() => must(ai.POST('/api/agents/{id}/mcp-servers', { ...path, body: { name, url, transport: 'streamable_http' } })), () => { setName(''); setUrl(''); servers.reload(); });
  };
  return (
    <section aria-labelledby="agent-knowledge-title">
      <h2 id="agent-knowledge-title">Knowledge and MCP servers</h2>
      <ErrorNote error={error ?? kbs.error ?? servers.error} />
      <ul className="plain-list">
        {kbs.value?.map((k) => (
          <li key={k.id} className="inline-group">
            <span>{k.name} <span className="mono small">({k.tool_name})</span></span>
            <button type="button" className="link-button" aria-label={`Take ${k.name} from the agent`} onClick={() => void run(() => must(ai.DELETE('/api/agents/{id}/knowledge-bases/{assignmentId}', { params: { path: { id: agentId, assignmentId: k.id } } })), kbs.reload)}>Remove</button>
          </li>
        ))}
      </ul>
      <form className="field-row" onSubmit={(e) => { e.preventDefault(); if (kb) void run(() => must(ai.POST('/api/agents/{id}/knowledge-bases', { ...path, body: { knowledge_base_id: kb } })), () => { setKb(''); kbs.reload(); }); }}>
        <label>Knowledge base<select value={kb} onChange={(e) => setKb(e.target.value)}><option value="">Choose</option>{all.value?.filter((k) => !taken.has(k.id)).map((k) => <option key={k.id} value={k.id}>{k.name}</option>)}</select></label>
        <button type="submit" disabled={!kb}>Give it</button>
      </form>
      <ul className="plain-list">
        {servers.value?.map((m) => (
          <li key={m.id} className="inline-group">
            <span>{m.name} <span className="mono small">{m.url}</span>{m.enabled ? '' : ' (off)'}</span>
            <button type="button" className="link-button" aria-label={`Remove the MCP server ${m.name}`} onClick={() => void run(() => must(ai.DELETE('/api/agents/{id}/mcp-servers/{serverId}', { params: { path: { id: agentId, serverId: m.id } } })), servers.reload)}>Remove</button>
          </li>
        ))}
      </ul>
      <form className="stack" onSubmit={addServer}>
        <label>MCP server name<input required value={name} onChange={(e) => setName(e.target.value)} /></label>
        <label>URL (streamable HTTP)<input required type="url" value={url} onChange={(e) => setUrl(e.target.value)} /></label>
        <button type="submit">Add MCP server</button>
      </form>
    </section>
  );
}
