// A query's rows in a read-only ARIA grid, virtualised (10,000 rows render at
// once without freezing the page); every value is text.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { display } from '../tables/values.ts';

const ROW_HEIGHT = 30;

export function ResultsGrid({ columns, rows }: { columns: Array<{ name: string; type: string }>; rows: unknown[][] }) {
  const scroller = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 20 });
  // The first frame after these rows were painted (a Performance API mark, for `npm run bench:studio`).
  useEffect(() => {
    const frame = requestAnimationFrame(() => performance.mark('studio-results-painted'));
    return () => cancelAnimationFrame(frame);
  }, [rows]);
  const template = { gridTemplateColumns: `repeat(${columns.length}, minmax(140px, 1fr))` };
  return (
    <div className="results" ref={scroller} role="grid" aria-label="Query results" aria-rowcount={rows.length + 1} aria-colcount={columns.length} aria-readonly="true" tabIndex={0}>
      <div role="row" aria-rowindex={1} className="results-row results-head" style={template}>
        {columns.map((c, i) => <div key={i} role="columnheader" aria-colindex={i + 1} className="results-cell"><span className="column-name">{c.name}</span> <span className="column-type">{c.type}</span></div>)}
      </div>
      <div role="rowgroup" style={{ height: v.getTotalSize(), position: 'relative' }}>
        {v.getVirtualItems().map((item) => (
          <div key={item.key} role="row" aria-rowindex={item.index + 2} className="results-row" style={{ ...template, transform: `translateY(${item.start}px)` }}>
            {rows[item.index]!.map((value, i) => <div key={i} role="gridcell" aria-colindex={i + 1} className={value === null ? 'results-cell null' : 'results-cell'}>{display(value)}</div>)}
          </div>
        ))}
      </div>
    </div>
  );
}
