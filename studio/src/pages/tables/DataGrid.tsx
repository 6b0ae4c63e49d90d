// The rows of a table as an ARIA grid, virtualised both ways: only the rows
// and columns in view (and a few beyond) are in the page, so a million rows
// scroll as smoothly as ten. One cell at a time is in the tab order (a roving
// tabindex): arrows, Home, End, PageUp and PageDown move it; Enter edits it;
// Space selects its row. Headers sort (aria-sort says how). Every value is
// rendered as text.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { GridRow } from './GridRow.tsx';
import type { Column, Row } from './values.ts';
import type { Order } from './useRows.ts';

const ROW_HEIGHT = 34;
const SELECT_WIDTH = 44;
const COLUMN_WIDTH = 200;

type Props = {
  label: string;
  columns: Column[];
  rows: Row[];
  total: number | null;
  more: boolean;
  /** Whether filters narrow the rows (an empty grid says "match" then). */
  filtered: boolean;
  order: Order[];
  editable: boolean;
  selected: Set<number>;
  onSelect: (index: number, on: boolean) => void;
  onSort: (column: string) => void;
  onNear: (index: number) => void;
  onSave: (index: number, column: Column, value: unknown) => Promise<void>;
};

export function DataGrid(p: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState({ row: 0, col: 0 });
  const [editing, setEditing] = useState(false);
  const count = p.rows.length + (p.more ? 1 : 0);
  const rowsV = useVirtualizer({ count, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 6, useFlushSync: false });
  const colsV = useVirtualizer({ horizontal: true, count: p.columns.length, getScrollElement: () => scroller.current, estimateSize: () => COLUMN_WIDTH, overscan: 2, useFlushSync: false });
  const items = rowsV.getVirtualItems();
  const cols = colsV.getVirtualItems();
  // Stable, so the memoised rows are not rendered again for a new function.
  const activate = useCallback((row: number, col: number) => setActive({ row, col }), []);
  const edit = useCallback((row: number, col: number) => {
    setActive({ row, col });
    setEditing(true);
  }, []);
  const stopEditing = useCallback(() => setEditing(false), []);

  // Ask for the next page as the end comes into view.
  const lastIndex = items.at(-1)?.index ?? 0;
  useEffect(() => p.onNear(lastIndex), [lastIndex, p.rows.length]); // eslint-disable-line react-hooks/exhaustive-deps

  // The active cell keeps the focus as it moves (when the grid has it).
  useEffect(() => {
    if (editing || !scroller.current?.contains(document.activeElement)) return;
    scroller.current.querySelector<HTMLElement>(`[data-cell="${active.row}:${active.col}"]`)?.focus({ preventScroll: true });
  }, [active, editing, items.length]);

  const move = (row: number, col: number) => {
    const r = Math.max(0, Math.min(p.rows.length - 1, row));
    const c = Math.max(0, Math.min(p.columns.length - 1, col));
    setActive({ row: r, col: c });
    rowsV.scrollToIndex(r);
    colsV.scrollToIndex(c);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (editing || p.rows.length === 0) return;
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? 300) / ROW_HEIGHT) - 1);
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(active.row + 1, active.col), ArrowUp: () => move(active.row - 1, active.col),
      ArrowRight: () => move(active.row, active.col + 1), ArrowLeft: () => move(active.row, active.col - 1),
      PageDown: () => move(active.row + page, active.col), PageUp: () => move(active.row - page, active.col),
      Home: () => move(e.ctrlKey ? 0 : active.row, 0), End: () => move(e.ctrlKey ? p.rows.length - 1 : active.row, p.columns.length - 1),
      Enter: () => p.editable && p.columns[active.col]?.is_updatable && setEditing(true),
      ' ': () => p.onSelect(active.row, !p.selected.has(active.row)),
    };
    const act = keys[e.key];
    if (act) {
      e.preventDefault();
      act();
    }
  };

  const totalWidth = SELECT_WIDTH + colsV.getTotalSize();
  const sortOf = (name: string) => {
    const o = p.order.find((x) => x.column === name);
    return o ? (o.ascending ? 'ascending' : 'descending') : 'none';
  };

  return (
    <div className="grid" ref={scroller} role="grid" aria-label={p.label} aria-rowcount={(p.total ?? p.rows.length) + 1} aria-colcount={p.columns.length + 1} onKeyDown={onKeyDown}>
      <div role="rowgroup" className="grid-head" style={{ width: totalWidth }}>
        <div role="row" aria-rowindex={1} className="grid-row grid-head-row">
          <div role="columnheader" aria-colindex={1} className="grid-cell grid-select" style={{ width: SELECT_WIDTH }}><span className="sr-only">Select</span></div>
          {cols.map((v) => {
            const c = p.columns[v.index]!;
            const sort = sortOf(c.name);
            return (
              <div key={c.name} role="columnheader" aria-colindex={v.index + 2} aria-sort={sort} className="grid-cell" style={{ width: v.size, transform: `translateX(${SELECT_WIDTH + v.start}px)` }}>
                <button type="button" className="column-sort" onClick={() => p.onSort(c.name)} title={`${c.name} ${c.type}${c.is_primary_key ? ', primary key' : ''}`}>
                  <span className="column-name">{c.name}</span>
                  <span className="column-type">{c.format}</span>
                  <span aria-hidden="true">{sort === 'ascending' ? '▲' : sort === 'descending' ? '▼' : ''}</span>
                </button>
              </div>
            );
          })}
        </div>
      </div>
      {p.rows.length === 0 && !p.more && <p className="grid-empty muted">No rows{p.filtered ? ' match' : ' yet'}.</p>}
      <div role="rowgroup" className="grid-body" style={{ height: rowsV.getTotalSize(), width: totalWidth }}>
        {items.map((r) => {
          const row = p.rows[r.index];
          if (!row) return <div key="loading" role="row" aria-rowindex={r.index + 2} className="grid-row muted" style={{ transform: `translateY(${r.start}px)` }}><div role="gridcell" aria-colindex={1} className="grid-cell">Loading more rows…</div></div>;
          return (
            <GridRow key={r.key} index={r.index} row={row} start={r.start} columns={p.columns} cols={cols} selectWidth={SELECT_WIDTH} selected={p.selected.has(r.index)}
              activeCol={active.row === r.index ? active.col : -1} editing={editing && active.row === r.index} editable={p.editable}
              onActivate={activate} onEdit={edit} onSelect={p.onSelect} onSave={p.onSave} onStopEditing={stopEditing} />
          );
        })}
      </div>
    </div>
  );
}
