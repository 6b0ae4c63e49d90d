// The keyboard shortcuts, listed on `?`: `/` goes to the page's search box;
// pages add their own (Ctrl+Enter runs a query, Alt+N adds a row).
import { useEffect, useState } from 'react';
import { Dialog } from '../components/Dialog.tsx';

export const SHORTCUTS: Array<[keys: string, what: string]> = [
  ['/', 'Search (the page\'s search or filter box)'],
  ['Ctrl+Enter or ⌘+Enter', 'Run the query (SQL editor)'],
  ['Alt+N', 'New row (table editor)'],
  ['Arrow keys, Enter, Escape', 'Move in the grid, edit a cell, stop editing'],
  ['?', 'This list'],
];

const typing = (t: EventTarget | null) => t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));

export function Shortcuts() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (typing(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === '?') {
        e.preventDefault();
        setOpen(true);
      } else if (e.key === '/') {
        const search = document.querySelector<HTMLElement>('[data-shortcut="search"]');
        if (search) {
          e.preventDefault();
          search.focus();
        }
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  if (!open) return null;
  return (
    <Dialog title="Keyboard shortcuts" onClose={() => setOpen(false)}>
      <dl className="shortcuts">
        {SHORTCUTS.map(([keys, what]) => <div key={keys}><dt><kbd>{keys}</kbd></dt><dd>{what}</dd></div>)}
      </dl>
    </Dialog>
  );
}
