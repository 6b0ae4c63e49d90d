// The agent's knowledge bases, each a search tool it may call: given and
// taken away here.
import { useState } from 'react';
import { ai, must } from '../../api/client.ts';
import { useAction } from '../../app/useAction.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';

export function AgentKnowledge({ agentId }: { agentId: string }) {
  const path = { params: { path: { id: agentId } } };
  const kbs = useAsync(() => must(ai.GET('/api/agents/{id}/knowledge-bases', path)), [agentId]);
  const all = useAsync(() => must(ai.GET('/api/knowledge-bases')), []);
  const { error, run } = useAction();
  const [kb, setKb] = useState('');
  const taken = new Set(kbs.value?.map((k) => k.knowledge_base_id));
  return (
    <section aria-labelledby="agent-knowledge-title">
      <h2 id="agent-knowledge-title">Knowledge</h2>
      <ErrorNote error={error ?? kbs.error} />
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
    </section>
  );
}
