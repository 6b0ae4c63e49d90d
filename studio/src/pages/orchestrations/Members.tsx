// An orchestration's members: the agents it may delegate to, in order, each
// with the role the coordinator is told; added from the project's agents,
// removed with a click.
import { useState, type FormEvent } from 'react';
import { ai, must } from '../../api/client.ts';
import { useAction } from '../../app/useAction.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';

export function Members({ orchestrationId }: { orchestrationId: string }) {
  const members = useAsync(() => must(ai.GET('/api/orchestrations/{id}/entities', { params: { path: { id: orchestrationId } } })), [orchestrationId]);
  const agents = useAsync(() => must(ai.GET('/api/agents')), []);
  const [agent, setAgent] = useState('');
  const [role, setRole] = useState('');
  const { error, run } = useAction();
  const act = (what: () => Promise<unknown>) => run(what, members.reload);
  const name = (id: string) => agents.value?.find((a) => a.id === id)?.name ?? id;
  const add = (e: FormEvent) => {
    e.preventDefault();
    void act(() => must(ai.POST('/api/orchestrations/{id}/entities', { params: { path: { id: orchestrationId } }, body: { entity_type: 'agent', entity_ref_id: agent, ...(role ? { role_description: role } : {}) } }))).then(() => { setAgent(''); setRole(''); });
  };
  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <ErrorNote error={error ?? members.error} />
      <ol className="plain-list">
        {members.value?.map((m) => (
          <li key={m.id} className="inline-group">
            <strong>{name(m.entity_ref_id)}</strong><span className="small muted">{m.role_description ?? ''}</span>
            <button type="button" className="link-button" aria-label={`Remove ${name(m.entity_ref_id)}`} onClick={() => void act(() => must(ai.DELETE('/api/orchestrations/{id}/entities/{entityId}', { params: { path: { id: orchestrationId, entityId: m.id } } })))}>Remove</button>
          </li>
        ))}
      </ol>
      <form className="stack" onSubmit={add}>
        <label>Agent<select value={agent} onChange={(e) => setAgent(e.target.value)} required><option value="">Choose an agent</option>{agents.value?.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}</select></label>
        <label>Role<input value={role} onChange={(e) => setRole(e.target.value)} placeholder="What the coordinator hands it" /></label>
        <button type="submit" disabled={!agent}>Add member</button>
      </form>
    </section>
  );
}
