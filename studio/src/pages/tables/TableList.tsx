// The schemas and their tables, each with its row estimate; a search narrows
// the list (`/` goes to it). Tables are links, so a table has a URL.
import { useState } from 'react';
import { NavLink } from 'react-router';
import type { components } from '../../api/client.ts';
import type { Table } from './values.ts';

export function TableList(p: { schemas: Array<components['schemas']['Schema']>; schema: string; tables: Table[]; onSchema: (s: string) => void; onNew: () => void }) {
  const [search, setSearch] = useState('');
  const shown = p.tables.filter((t) => t.name.toLowerCase().includes(search.toLowerCase()));
  const current = p.schemas.find((s) => s.name === p.schema);
  return (
    <aside className="table-list" aria-label="Tables">
      <label>Schema
        <select value={p.schema} onChange={(e) => p.onSchema(e.target.value)}>
          {p.schemas.map((s) => <option key={s.name} value={s.name}>{s.name}{s.protected ? ' (platform)' : ''}</option>)}
        </select>
      </label>
      {current?.protected && <p className="muted small">The platform owns this schema: change it with care.</p>}
      <label>Search tables<input type="search" data-shortcut="search" value={search} onChange={(e) => setSearch(e.target.value)} /></label>
      <button type="button" className="primary" onClick={p.onNew}>New table</button>
      <ul className="plain-list">
        {shown.map((t) => (
          <li key={t.id}>
            <NavLink to={`/tables/${encodeURIComponent(t.schema)}/${encodeURIComponent(t.name)}`} className={({ isActive }) => (isActive ? 'list-link active' : 'list-link')}>
              <span>{t.name}</span>
              <span className="muted small" aria-label={`about ${t.live_rows_estimate} rows`}>{t.live_rows_estimate.toLocaleString()}</span>
              {t.exposed && !t.rls_enabled && <span className="badge badge-warn" title="Row level security is off">RLS off</span>}
            </NavLink>
          </li>
        ))}
        {shown.length === 0 && <li className="muted">No tables{search ? ' match' : ' here yet'}.</li>}
      </ul>
    </aside>
  );
}
