// The AI surface's project-wide pages: what it spent, the vendors' keys, the settings registry and the tools.
import { NavLink } from 'react-router';

export function AiNav() {
  return (
    <nav className="subnav" aria-label="AI">
      <NavLink to="/ai/usage" className="list-link">Usage</NavLink>
      <NavLink to="/ai/keys" className="list-link">Provider keys</NavLink>
      <NavLink to="/ai/settings" className="list-link">Settings</NavLink>
      <NavLink to="/ai/tools" className="list-link">Tools</NavLink>
    </nav>
  );
}
