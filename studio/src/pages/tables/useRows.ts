// The rows the grid shows, loaded a page at a time from the server as the
// operator scrolls (keyset pages where the order allows, offset otherwise),
// so a table of a million rows costs only what is on screen and nearby.
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import type { Row } from './values.ts';

export type Filter = { column: string; op: 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'like' | 'ilike' | 'is' | 'in'; value: unknown };
export type Order = { column: string; ascending: boolean };

const PAGE = 500;

export type Rows = {
  rows: Row[];
  count: number | null;
  estimate: number;
  more: boolean;
  loading: boolean;
  error: Error | undefined;
  /** Loads the next page when `index` nears the end of what is loaded. */
  near: (index: number) => void;
  replace: (index: number, row: Row) => void;
  reload: () => void;
};

export function useRows(tableId: number, filters: Filter[], order: Order[]): Rows {
  const [rows, setRows] = useState<Row[]>([]);
  const [meta, setMeta] = useState<{ count: number | null; estimate: number; more: boolean; keyset: boolean; orderCols: string[] }>({ count: null, estimate: 0, more: true, keyset: false, orderCols: [] });
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<Error>();
  const [generation, setGeneration] = useState(0);
  const busy = useRef(false);
  const current = useRef(0);

  const load = useCallback(async (from: Row[], keyset: boolean, orderCols: string[], gen: number) => {
    if (busy.current) return;
    busy.current = true;
    setLoading(true);
    try {
      const last = from.at(-1);
      const after = from.length > 0 && keyset && last ? Object.fromEntries(orderCols.map((c) => [c, last[c]])) : null;
      const page = await must(api.POST('/api/platform/pg-meta/{ref}/tables/{id}/rows/query', {
        params: { path: { ref: ref(), id: String(tableId) } },
        body: { filters, order, limit: PAGE, ...(after ? { after } : { offset: from.length }) },
      }));
      if (gen !== current.current) return;
      setRows([...from, ...page.rows]);
      setMeta({ count: page.count, estimate: page.estimate, more: page.rows.length === PAGE, keyset: page.keyset, orderCols: page.order });
      setError(undefined);
    } catch (e) {
      if (gen === current.current) setError(e as Error);
    } finally {
      busy.current = false;
      if (gen === current.current) setLoading(false);
    }
  }, [tableId, JSON.stringify(filters), JSON.stringify(order)]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    const gen = ++current.current;
    busy.current = false;
    setRows([]);
    setMeta({ count: null, estimate: 0, more: true, keyset: false, orderCols: [] });
    void load([], false, [], gen);
  }, [load, generation]);

  const replace = useCallback((index: number, row: Row) => setRows((r) => r.map((x, i) => (i === index ? row : x))), []);
  return {
    rows, count: meta.count, estimate: meta.estimate, more: meta.more, loading, error, replace,
    near: (index) => {
      if (meta.more && !busy.current && index >= rows.length - 100) void load(rows, meta.keyset, meta.orderCols, current.current);
    },
    reload: () => setGeneration((g) => g + 1),
  };
}
