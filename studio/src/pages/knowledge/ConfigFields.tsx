// Settings as a form generated from their defaults (the strategy's
// default_indexing_config from /api/config/kb-defaults): a number, text or
// switch per key, nested objects as JSON.
import { useState } from 'react';

type Props = { legend: string; defaults: Record<string, unknown>; value: Record<string, unknown>; onChange: (v: Record<string, unknown>) => void };

function JsonValue({ label, value, onChange }: { label: string; value: unknown; onChange: (v: unknown) => void }) {
  const [text, setText] = useState(JSON.stringify(value));
  const [bad, setBad] = useState(false);
  return (
    <label>{label}
      <input className="mono" value={text} aria-invalid={bad ? 'true' : undefined} onChange={(e) => setText(e.target.value)}
        onBlur={() => { try { onChange(JSON.parse(text)); setBad(false); } catch { setBad(true); } }} />
    </label>
  );
}

export function ConfigFields({ legend, defaults, value, onChange }: Props) {
  const set = (k: string, v: unknown) => onChange({ ...value, [k]: v });
  return (
    <fieldset className="stack">
      <legend>{legend}</legend>
      {Object.entries(defaults).map(([k, d]) => {
        const v = value[k] ?? d;
        if (typeof d === 'number') return <label key={k}>{k}<input type="number" value={String(v)} onChange={(e) => set(k, Number(e.target.value))} /></label>;
        if (typeof d === 'boolean') return <label key={k} className="inline-group"><input type="checkbox" checked={v === true} onChange={(e) => set(k, e.target.checked)} />{k}</label>;
        if (typeof d === 'string') return <label key={k}>{k}<input value={String(v)} onChange={(e) => set(k, e.target.value)} /></label>;
        return <JsonValue key={k} label={k} value={v} onChange={(x) => set(k, x)} />;
      })}
    </fieldset>
  );
}
