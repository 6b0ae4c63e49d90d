import { NavLink } from 'react-router';

/** The Authentication area's pages. */
export function AuthNav() {
  return (
    <nav className="subnav" aria-label="Authentication">
      <ul className="plain-list">
        <li><NavLink to="/auth/users" className={({ isActive }) => (isActive ? 'list-link active' : 'list-link')}>Users</NavLink></li>
        <li><NavLink to="/auth/signing-keys" className={({ isActive }) => (isActive ? 'list-link active' : 'list-link')}>Keys</NavLink></li>
        <li><NavLink to="/auth/oauth-apps" className={({ isActive }) => (isActive ? 'list-link active' : 'list-link')}>OAuth apps</NavLink></li>
        <li><NavLink to="/auth/settings" className={({ isActive }) => (isActive ? 'list-link active' : 'list-link')}>Settings</NavLink></li>
      </ul>
    </nav>
  );
}
