// Rows from a CSV file: read in the browser (Papa Parse), previewed, each
// CSV column matched to a table column (by name, changeable, or skipped),
// then inserted in batches of 500 with a progress bar. An empty cell is
// NULL; a json column's cell is read as JSON.
import Papa from 'papaparse';
import { useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { kindOf, type Row, type Table } from './values.ts';
import { ScrollArea } from '../../components/ScrollArea.tsx';

const BATCH = 500;

export function CsvImport({ table, onDone, onClose }: { table: Table; onDone: (rows: number) => void; onClose: () => void }) {
  const columns = (table.columns ?? []).filter((c) => !c.is_generated && c.identity_generation !== 'ALWAYS');
  const [parsed, setParsed] = useState<{ headers: string[]; rows: string[][] }>();
  const [mapping, setMapping] = useState<Record<string, string>>({});
  const [progress, setProgress] = useState<{ done: number; total: number }>();
  const [error, setError] = useState<string>();

  const read = (file: File) => {
    setError(undefined);
    Papa.parse<string[]>(file, {
      skipEmptyLines: true,
      complete: (result) => {
        const [headers, ...rows] = result.data;
        if (!headers) return setError('The file is empty');
        setParsed({ headers, rows });
        setMapping(Object.fromEntries(headers.map((h) => [h, columns.some((c) => c.name === h) ? h : ''])));
      },
      error: (e) => setError(e.message),
    });
  };

  const toRow = (cells: string[], headers: string[]): Row => {
    const row: Row = {};
    headers.forEach((h, i) => {
      const target = mapping[h];
      const column = columns.find((c) => c.name === target);
      if (!column) return;
      const cell = cells[i] ?? '';
      if (cell === '') row[column.name] = null;
      else if (kindOf(column) === 'json' || (kindOf(column) === 'array' && cell.startsWith('['))) {
        try {
          row[column.name] = JSON.parse(cell) as unknown;
        } catch {
          row[column.name] = cell;
        }
      } else row[column.name] = cell;
    });
    return row;
  };

  const run = async () => {
    if (!parsed) return;
    const total = parsed.rows.length;
    setProgress({ done: 0, total });
    try {
      for (let i = 0; i < total; i += BATCH) {
        const rows = parsed.rows.slice(i, i + BATCH).map((cells) => toRow(cells, parsed.headers));
        await must(api.POST('/api/platform/pg-meta/{ref}/tables/{id}/rows', { params: { path: { ref: ref(), id: String(table.id) } }, body: { rows } }));
        setProgress({ done: Math.min(total, i + BATCH), total });
      }
      onDone(total);
      onClose();
    } catch (e) {
      setError(`Stopped after ${progress?.done ?? 0} rows: ${(e as Error).message}`);
    }
  };

  return (
    <Dialog title={`Import CSV into ${table.name}`} onClose={onClose} wide>
      <label>CSV file (a header line first)<input type="file" accept=".csv,text/csv" onChange={(e) => e.target.files?.[0] && read(e.target.files[0])} /></label>
      {parsed && (
        <>
          <p>{parsed.rows.length.toLocaleString()} rows. The first ones:</p>
          <ScrollArea className="preview-scroll" label="Preview of the file">
            <table className="list-table">
              <caption className="sr-only">Preview of the file</caption>
              <thead>
                <tr>{parsed.headers.map((h) => (
                  <th key={h} scope="col">
                    <label>{h} into
                      <select value={mapping[h] ?? ''} onChange={(e) => setMapping((m) => ({ ...m, [h]: e.target.value }))}>
                        <option value="">(skip)</option>
                        {columns.map((c) => <option key={c.name} value={c.name}>{c.name}</option>)}
                      </select>
                    </label>
                  </th>
                ))}</tr>
              </thead>
              <tbody>{parsed.rows.slice(0, 5).map((r, i) => <tr key={i}>{r.map((cell, j) => <td key={j}>{cell}</td>)}</tr>)}</tbody>
            </table>
          </ScrollArea>
        </>
      )}
      {progress && (
        <div className="progress-line">
          <progress max={progress.total} value={progress.done} aria-label="Rows imported" />
          <span role="status">{progress.done.toLocaleString()} of {progress.total.toLocaleString()} rows imported</span>
        </div>
      )}
      <ErrorNote error={error} />
      <div className="dialog-actions">
        <button type="button" onClick={onClose}>Cancel</button>
        <button type="button" className="primary" disabled={!parsed || !!progress} onClick={() => void run()}>Import {parsed ? parsed.rows.length.toLocaleString() : ''} rows</button>
      </div>
    </Dialog>
  );
}
