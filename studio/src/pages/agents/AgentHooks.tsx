// The agent's hooks (event, type, matcher; immutable once made, so removed
// and added again); an approval on a tool is added here: the run waits for
// a person to approve or deny the call.
import { useState } from 'react';
import { ai, must } from '../../api/client.ts';
import { useAction } from '../../app/useAction.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';

export function AgentHooks({ agentId }: { agentId: string }) {
  const hooks = useAsync(() => must(ai.GET('/api/agents/{id}/hooks', { params: { path: { id: agentId } } })), [agentId]);
  const [matcher, setMatcher] = useState('');
  const [message, setMessage] = useState('');
  const { error, run } = useAction();
  const act = (what: () => Promise<unknown>) => run(what, hooks.reload);
  const path = { params: { path: { id: agentId } } };
  return (
    <section aria-labelledby="agent-hooks-title">
      <h2 id="agent-hooks-title">Hooks</h2>
      <ErrorNote error={error ?? hooks.error} />
      <ul className="plain-list">
        {hooks.value?.map((h) => (
          <li key={h.id} className="inline-group">
            <span>{h.event} · {h.type}{h.matcher ? ` · ${h.matcher}` : ''}</span>
            <button type="button" className="link-button" aria-label={`Remove the ${h.event} ${h.type} hook`} onClick={() => void act(() => must(ai.DELETE('/api/agents/{id}/hooks/{hookId}', { params: { path: { id: agentId, hookId: h.id } } })))}>Remove</button>
          </li>
        ))}
      </ul>
      <form className="stack" onSubmit={(e) => { e.preventDefault(); void act(() => must(ai.POST('/api/agents/{id}/hooks', { ...path, body: { event: 'PreToolUse', type: 'approval', config: message ? { message } : {}, matcher: matcher || null } }))); }}>
        <h3>Ask for approval before a tool runs</h3>
        <label>Tool (empty: every tool)<input value={matcher} onChange={(e) => setMatcher(e.target.value)} className="mono" /></label>
        <label>Question<input value={message} onChange={(e) => setMessage(e.target.value)} /></label>
        <button type="submit">Add approval</button>
      </form>
    </section>
  );
}
