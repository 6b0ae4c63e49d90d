// The knowledge area's two halves: the documents (sources) and the knowledge bases built from them.
import { NavLink } from 'react-router';

export function KnowledgeNav() {
  return (
    <nav className="subnav" aria-label="Knowledge">
      <NavLink to="/knowledge/sources" className="list-link">Sources</NavLink>
      <NavLink to="/knowledge/bases" className="list-link">Knowledge bases</NavLink>
    </nav>
  );
}
