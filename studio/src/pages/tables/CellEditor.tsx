// Editing one cell: the editor fits the column's type (a choice for booleans
// and enums, a date field for dates, a text area checked as JSON for json,
// jsonb and arrays, a line of text otherwise), NULL where allowed. A line
// edits over the cell; a text area opens in a dialog, where it has room
// wherever the cell is. Enter saves (Ctrl+Enter in a text area), Escape
// leaves it as it was; a value the type cannot take is refused here, before
// anything is sent.
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { Dialog } from '../../components/Dialog.tsx';
import { editText, kindOf, parseInput, type Column } from './values.ts';

export function CellEditor({ column, value, onSave, onCancel }: { column: Column; value: unknown; onSave: (v: unknown) => Promise<void>; onCancel: () => void }) {
  const kind = kindOf(column);
  const [text, setText] = useState(editText(value));
  const [isNull, setIsNull] = useState(value === null);
  const [error, setError] = useState<string>();
  const field = useRef<HTMLInputElement & HTMLTextAreaElement & HTMLSelectElement>(null);
  useEffect(() => field.current?.focus(), []);
  const multiline = kind === 'json' || kind === 'array' || (kind === 'text' && text.length > 80);

  const save = async () => {
    const parsed = parseInput(column, text, isNull);
    if (!parsed.ok) return setError(parsed.error);
    try {
      await onSave(parsed.value);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const onKeyDown = (e: KeyboardEvent) => {
    e.stopPropagation();
    if (e.key === 'Escape') {
      e.preventDefault();
      onCancel();
    } else if (e.key === 'Enter' && (!multiline || e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void save();
    }
  };
  const label = `${column.name} (${column.type})`;
  const common = { 'aria-label': label, disabled: isNull, onKeyDown, 'aria-invalid': error ? true : undefined, 'aria-describedby': error ? 'cell-error' : undefined } as const;

  const editor = (
    <div className={multiline ? 'cell-editor-wide' : 'cell-editor'} role="group" aria-label={`Edit ${column.name}`}>
      {kind === 'boolean' ? (
        <select ref={field} {...common} value={text} onChange={(e) => setText(e.target.value)}>
          <option value="true">true</option><option value="false">false</option>
        </select>
      ) : kind === 'enum' ? (
        <select ref={field} {...common} value={text} onChange={(e) => setText(e.target.value)}>
          {column.enums.map((v) => <option key={v} value={v}>{v}</option>)}
        </select>
      ) : multiline ? (
        <textarea ref={field} {...common} rows={6} value={text} onChange={(e) => { setText(e.target.value); setError(undefined); }} />
      ) : (
        <input ref={field} {...common} type={kind === 'date' ? 'date' : 'text'} value={text} onChange={(e) => { setText(e.target.value); setError(undefined); }} />
      )}
      {column.is_nullable && (
        <label className="inline"><input type="checkbox" checked={isNull} onChange={(e) => setIsNull(e.target.checked)} onKeyDown={onKeyDown} /> NULL</label>
      )}
      {error && <p id="cell-error" className="error-note" role="alert">{error}</p>}
      <div className="cell-editor-actions">
        <button type="button" onClick={onCancel} onKeyDown={onKeyDown}>Cancel</button>
        <button type="button" className="primary" onClick={() => void save()} onKeyDown={onKeyDown}>Save</button>
      </div>
    </div>
  );
  return multiline ? <Dialog title={`Edit ${column.name}`} onClose={onCancel} wide>{editor}</Dialog> : editor;
}
