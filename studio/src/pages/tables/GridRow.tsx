// One row of the data grid: its select box and the cells in view. Memoised:
// a row re-renders only when its own data, selection, the active cell in it
// or the columns in view change, so scrolling and loading more rows cost
// only the rows that come into view.
import type { VirtualItem } from '@tanstack/react-virtual';
import { memo } from 'react';
import { CellEditor } from './CellEditor.tsx';
import { display, type Column, type Row } from './values.ts';

type Props = {
  index: number;
  row: Row;
  start: number;
  columns: Column[];
  cols: VirtualItem[];
  selectWidth: number;
  selected: boolean;
  /** The active cell's column when it is in this row, else -1. */
  activeCol: number;
  editing: boolean;
  editable: boolean;
  onActivate: (row: number, col: number) => void;
  onEdit: (row: number, col: number) => void;
  onSelect: (row: number, on: boolean) => void;
  onSave: (row: number, column: Column, value: unknown) => Promise<void>;
  onStopEditing: () => void;
};

export const GridRow = memo(function GridRow(p: Props) {
  return (
    <div role="row" aria-rowindex={p.index + 2} aria-selected={p.selected} className={p.selected ? 'grid-row selected' : 'grid-row'} style={{ transform: `translateY(${p.start}px)` }}>
      <div role="gridcell" aria-colindex={1} className="grid-cell grid-select" style={{ width: p.selectWidth }}>
        <input type="checkbox" aria-label={`Select row ${p.index + 1}`} checked={p.selected} tabIndex={-1} onChange={(e) => p.onSelect(p.index, e.target.checked)} />
      </div>
      {p.cols.map((v) => {
        const c = p.columns[v.index]!;
        const isActive = p.activeCol === v.index;
        const value = p.row[c.name];
        return (
          <div key={c.name} role="gridcell" aria-colindex={v.index + 2} data-cell={`${p.index}:${v.index}`} tabIndex={isActive ? 0 : -1}
            className={`grid-cell${isActive ? ' active' : ''}${value === null || value === undefined ? ' null' : ''}`}
            style={{ width: v.size, transform: `translateX(${p.selectWidth + v.start}px)` }}
            onClick={() => p.onActivate(p.index, v.index)}
            onDoubleClick={() => p.editable && c.is_updatable && p.onEdit(p.index, v.index)}>
            <span className="cell-text">{display(value)}</span>
            {isActive && p.editing && (
              <CellEditor column={c} value={value} onCancel={p.onStopEditing}
                onSave={async (next) => {
                  await p.onSave(p.index, c, next);
                  p.onStopEditing();
                }} />
            )}
          </div>
        );
      })}
    </div>
  );
});
