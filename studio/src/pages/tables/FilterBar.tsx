// PostgREST-style filters on the rows: a column, an operator and a value per
// line, all of them applied together (and), sent to the server as they are.
import { useState, type FormEvent } from 'react';
import type { Filter } from './useRows.ts';
import type { Column } from './values.ts';

const OPS: Array<[Filter['op'], string]> = [
  ['eq', 'equals'], ['neq', 'is not'], ['gt', '>'], ['gte', '≥'], ['lt', '<'], ['lte', '≤'], ['like', 'like'], ['ilike', 'ilike'], ['is', 'is'], ['in', 'in (comma list)'],
];

type Draft = { column: string; op: Filter['op']; value: string };

export function FilterBar({ columns, onApply }: { columns: Column[]; onApply: (f: Filter[]) => void }) {
  const [drafts, setDrafts] = useState<Draft[]>([]);
  const change = (i: number, patch: Partial<Draft>) => setDrafts((d) => d.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  const apply = (e?: FormEvent) => {
    e?.preventDefault();
    onApply(drafts.map((d) => ({ column: d.column, op: d.op, value: d.op === 'in' ? d.value.split(',').map((v) => v.trim()) : d.value })));
  };
  return (
    <form className="filter-bar" aria-label="Filters" onSubmit={apply}>
      {drafts.map((d, i) => (
        <div key={i} className="filter-line">
          <select aria-label={`Filter ${i + 1} column`} value={d.column} onChange={(e) => change(i, { column: e.target.value })}>
            {columns.map((c) => <option key={c.name} value={c.name}>{c.name}</option>)}
          </select>
          <select aria-label={`Filter ${i + 1} operator`} value={d.op} onChange={(e) => change(i, { op: e.target.value as Filter['op'] })}>
            {OPS.map(([op, label]) => <option key={op} value={op}>{label}</option>)}
          </select>
          {d.op === 'is' ? (
            <select aria-label={`Filter ${i + 1} value`} value={d.value} onChange={(e) => change(i, { value: e.target.value })}>
              {['null', 'not_null', 'true', 'false'].map((v) => <option key={v} value={v}>{v.replace('_', ' ')}</option>)}
            </select>
          ) : (
            <input aria-label={`Filter ${i + 1} value`} value={d.value} onChange={(e) => change(i, { value: e.target.value })} />
          )}
          <button type="button" aria-label={`Remove filter ${i + 1}`} onClick={() => setDrafts((x) => x.filter((_, j) => j !== i))}>Remove</button>
        </div>
      ))}
      <div className="filter-actions">
        <button type="button" onClick={() => setDrafts((d) => [...d, { column: columns[0]?.name ?? '', op: 'eq', value: d.length === 0 ? '' : '' }])}>Add filter</button>
        {drafts.length > 0 && <button type="submit" className="primary">Apply filters</button>}
        {drafts.length > 0 && <button type="button" onClick={() => { setDrafts([]); onApply([]); }}>Clear</button>}
      </div>
    </form>
  );
}
