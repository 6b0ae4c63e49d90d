// A block's settings as a form generated from its type's config schema (the
// JSON Schema the registry holds and the copilot is shown): text, numbers and
// switches as inputs, code in CodeMirror, anything else as JSON; the whole
// config as JSON below for keys the schema does not name. A field reaches the
// block when it is left (blur), one undo step each.
import { useEffect, useId, useState } from 'react';
import { CodeField } from './CodeField.tsx';

type Property = { type?: string | string[]; format?: string; description?: string };
type Schema = { properties?: Record<string, Property>; required?: string[] };
type Props = { schema: Record<string, unknown>; config: Record<string, unknown>; onChange: (config: Record<string, unknown>) => void };

const json = (v: unknown) => (v === undefined ? '' : JSON.stringify(v, null, 2));

/** A JSON text box whose value reaches the block only when it parses. */
function JsonField({ label, value, onCommit }: { label: string; value: unknown; onCommit: (v: unknown) => void }) {
  const [text, setText] = useState(json(value));
  const [bad, setBad] = useState<string>();
  const id = useId();
  useEffect(() => setText(json(value)), [value]);
  const commit = () => {
    if (text.trim() === '') return onCommit(undefined);
    try {
      onCommit(JSON.parse(text));
      setBad(undefined);
    } catch (err) {
      setBad(`Not JSON: ${(err as Error).message}`);
    }
  };
  return (
    <label>
      {label}
      <textarea className="mono" rows={3} value={text} onChange={(e) => setText(e.target.value)} onBlur={commit} aria-invalid={bad ? 'true' : undefined} aria-describedby={bad ? id : undefined} />
      {bad && <span id={id} className="error-text small">{bad}</span>}
    </label>
  );
}

/** A text or number box whose value reaches the block on blur. */
function TextField({ label, value, numeric, onCommit }: { label: string; value: unknown; numeric: boolean; onCommit: (v: unknown) => void }) {
  const [text, setText] = useState(value === undefined ? '' : String(value));
  useEffect(() => setText(value === undefined ? '' : String(value)), [value]);
  const commit = () => onCommit(text === '' ? undefined : numeric ? Number(text) : text);
  return <label>{label}<input type={numeric ? 'number' : 'text'} value={text} onChange={(e) => setText(e.target.value)} onBlur={commit} /></label>;
}

export function ConfigForm({ schema, config, onChange }: Props) {
  const s = schema as Schema;
  const required = new Set(s.required ?? []);
  const set = (key: string, value: unknown) => {
    const next = { ...config };
    if (value === undefined) delete next[key];
    else next[key] = value;
    onChange(next);
  };
  return (
    <div className="config-form stack">
      {Object.entries(s.properties ?? {}).map(([key, prop]) => {
        const label = `${key}${required.has(key) ? ' (required)' : ''}`;
        const type = Array.isArray(prop.type) ? prop.type[0] : prop.type;
        if (key === 'code' && type === 'string') return <div key={key}><span className="field-label">{label}</span><CodeField value={String(config[key] ?? '')} label={key} onCommit={(t) => set(key, t || undefined)} /></div>;
        if (type === 'boolean') return <label key={key} className="inline-group"><input type="checkbox" checked={config[key] === true} onChange={(e) => set(key, e.target.checked)} />{label}</label>;
        if (type === 'string' || type === 'integer' || type === 'number') return <TextField key={key} label={label} value={config[key]} numeric={type !== 'string'} onCommit={(v) => set(key, v)} />;
        return <JsonField key={key} label={label} value={config[key]} onCommit={(v) => set(key, v)} />;
      })}
      <details>
        <summary>All settings as JSON</summary>
        <JsonField label="config" value={config} onCommit={(v) => onChange(v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {})} />
      </details>
    </div>
  );
}
