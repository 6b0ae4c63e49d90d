// The agent's sessions, newest first: open one to read and go on with it,
// delete one (its runs and messages with it), or start a new conversation.
import { Link, useNavigate } from 'react-router';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { useToast } from '../../app/toasts.tsx';

export function SessionList({ agentId, current, tick }: { agentId: string; current: string | null; tick: number }) {
  const sessions = useAsync(() => must(ai.GET('/api/sessions')), [agentId, tick]);
  const notify = useToast();
  const navigate = useNavigate();
  const remove = async (id: string) => {
    try {
      await must(ai.DELETE('/api/sessions/{id}', { params: { path: { id } } }));
      notify('Session deleted');
      if (id === current) void navigate(`/agents/${agentId}`);
      sessions.reload();
    } catch (err) {
      notify((err as Error).message, 'error');
    }
  };
  const own = sessions.value?.filter((s) => s.agent_id === agentId) ?? [];
  return (
    <nav className="session-list" aria-label="Sessions">
      <Link to={`/agents/${agentId}`} className="button">New conversation</Link>
      <ul className="plain-list">
        {own.map((s) => (
          <li key={s.id} className="inline-group">
            <Link to={`/agents/${agentId}/sessions/${s.id}`} aria-current={s.id === current ? 'page' : undefined} className="list-link">{s.title ?? new Date(s.created_at).toLocaleString()}</Link>
            <button type="button" className="icon-button" aria-label={`Delete the session ${s.title ?? s.id}`} onClick={() => void remove(s.id)}>×</button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
