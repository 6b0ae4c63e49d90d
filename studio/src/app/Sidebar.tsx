// The areas of the Studio, one link each; the current one is marked for
// assistive technology (aria-current) and the eye alike; the AI surface's
// areas follow the database's.
import { NavLink } from 'react-router';

export const AREAS: Array<{ to: string; label: string; icon: string }> = [
  { to: '/tables', label: 'Table editor', icon: '▦' },
  { to: '/sql', label: 'SQL editor', icon: '⌘' },
  { to: '/database', label: 'Database', icon: '◫' },
  { to: '/auth', label: 'Authentication', icon: '◉' },
  { to: '/storage', label: 'Storage', icon: '⬚' },
  { to: '/realtime', label: 'Realtime', icon: '↯' },
  { to: '/workflows', label: 'Workflows', icon: '⇶' },
  { to: '/agents', label: 'Agents', icon: '☺' },
  { to: '/orchestrations', label: 'Orchestrations', icon: '⋔' },
  { to: '/knowledge', label: 'Knowledge', icon: '❏' },
  { to: '/ai', label: 'AI usage and keys', icon: '¤' },
  { to: '/observe', label: 'Observe', icon: '◔' },
  { to: '/api-docs', label: 'API docs', icon: '⟨⟩' },
  { to: '/settings', label: 'Settings', icon: '⚙' },
];

export function Sidebar() {
  return (
    <nav className="sidebar" aria-label="Studio">
      <ul>
        {AREAS.map((a) => (
          <li key={a.to}>
            <NavLink to={a.to} className={({ isActive }) => (isActive ? 'nav-link active' : 'nav-link')}>
              <span className="nav-icon" aria-hidden="true">{a.icon}</span>
              <span>{a.label}</span>
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
