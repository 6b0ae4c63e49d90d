import { NavLink } from 'react-router';

export function SettingsNav() {
  return (
    <nav className="subnav" aria-label="Settings">
      <ul className="plain-list">
        <li><NavLink to="/settings/operators" className={({ isActive }) => (isActive ? 'list-link active' : 'list-link')}>Operators</NavLink></li>
        <li><NavLink to="/settings/audit" className={({ isActive }) => (isActive ? 'list-link active' : 'list-link')}>Audit log</NavLink></li>
      </ul>
    </nav>
  );
}
