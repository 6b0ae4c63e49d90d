// The agent's (or orchestration's) sessions, newest first: open one to read and go on with it,
// delete one (its runs and messages with it), or start a new conversation.
import { Link, useNavigate } from 'react-router';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { useToast } from '../../app/toasts.tsx';
import type { ChatTarget } from './chatTarget.ts';

export function SessionList({ target, current, tick }: { target: ChatTarget; current: string | null; tick: number }) {
  const sessions = useAsync(() => must(ai.GET('/api/sessions')), [target, tick]);
  const notify = useToast();
  const navigate = useNavigate();
  const remove = async (id: string) => {
    try {
      await must(ai.DELETE('/api/sessions/{id}', { params: { path: { id } } }));
      notify('Session deleted');
      if (id === current) void navigate(target.base);
      sessions.reload();
    } catch (err) {
      notify((err as Error).message, 'error');
    }
  };
  const own = sessions.value?.filter((s) => (target.kind === 'agent' ? s.agent_id : s.orchestration_id) === target.id) ?? [];
  return (
    <nav className="session-list" aria-label="Sessions">
      <Link to={target.base} className="button">New conversation</Link>
      <ul className="plain-list">
        {own.map((s) => (
          <li key={s.id} className="inline-group">
            <Link to={`${target.base}/sessions/${s.id}`} aria-current={s.id === current ? 'page' : undefined} className="list-link">{s.title ?? new Date(s.created_at).toLocaleString()}</Link>
            <button type="button" className="icon-button" aria-label={`Delete the session ${s.title ?? s.id}`} onClick={() => void remove(s.id)}>×</button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
