// Saved snippets by folder, and the history of what ran: each opens in the editor.
import { useState } from 'react';
import { Link } from 'react-router';
import type { components } from '../../api/client.ts';

type Snippet = components['schemas']['Snippet'];
type Run = components['schemas']['HistoryEntry'];

export function SnippetPanel({ snippets, history, onOpenText }: { snippets: Snippet[]; history: Run[]; onOpenText: (sql: string) => void }) {
  const [tab, setTab] = useState<'snippets' | 'history'>('snippets');
  const folders = [...new Set(snippets.map((s) => s.folder))].sort();
  return (
    <aside className="snippet-panel" aria-label="Snippets and history">
      {/* Tabs as ARIA has them: one in the tab order, the arrow keys move between them. */}
      <div role="tablist" aria-label="Saved or ran" className="tabs" onKeyDown={(e) => {
        if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
        const next = tab === 'snippets' ? 'history' : 'snippets';
        setTab(next);
        document.getElementById(`sql-tab-${next}`)?.focus();
      }}>
        <button type="button" role="tab" id="sql-tab-snippets" aria-selected={tab === 'snippets'} tabIndex={tab === 'snippets' ? 0 : -1} onClick={() => setTab('snippets')}>Snippets</button>
        <button type="button" role="tab" id="sql-tab-history" aria-selected={tab === 'history'} tabIndex={tab === 'history' ? 0 : -1} onClick={() => setTab('history')}>History</button>
      </div>
      {tab === 'snippets' ? (
        <div role="tabpanel" aria-labelledby="sql-tab-snippets">
          {snippets.length === 0 && <p className="muted small">Nothing saved yet.</p>}
          {folders.map((f) => (
            <section key={f}>
              <h2 className="folder">{f || 'No folder'}</h2>
              <ul className="plain-list">
                {snippets.filter((s) => s.folder === f).map((s) => <li key={s.id}><Link className="list-link" to={`/sql/${s.id}`}>{s.name}</Link></li>)}
              </ul>
            </section>
          ))}
        </div>
      ) : (
        <div role="tabpanel" aria-labelledby="sql-tab-history">
          <ul className="plain-list history">
            {history.map((h) => (
              <li key={h.id}>
                <button type="button" className="history-item" onClick={() => onOpenText(h.sql)}>
                  <span className="mono">{h.sql.slice(0, 120)}</span>
                  <span className={h.error ? 'small error-text' : 'muted small'}>{h.error ? `failed: ${h.error.slice(0, 80)}` : `${h.row_count ?? 0} rows, ${h.duration_ms ?? 0} ms`}</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </aside>
  );
}
