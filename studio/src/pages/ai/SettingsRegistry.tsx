// The settings registry as a form: each key with its type, default, allowed
// values or range and description from the registry; a value saved alone
// (refused with the server's words when it is not allowed), or returned to
// its default. Secrets show masked.
import { useState } from 'react';
import type { components } from '../../api/ai/index.ts';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { useToast } from '../../app/toasts.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { AiNav } from './AiNav.tsx';

type Setting = components['schemas']['Setting'];

function SettingRow({ s, onSaved }: { s: Setting; onSaved: () => void }) {
  const [value, setValue] = useState(s.value);
  const [error, setError] = useState<Error>();
  const notify = useToast();
  const id = `setting-${s.key}`;
  const save = async () => {
    try {
      const typed = s.type === 'number' || s.type === 'integer' ? Number(value) : s.type === 'boolean' ? value === 'true' : value;
      await must(ai.PUT('/api/settings', { body: { settings: { [s.key]: typed } } }));
      setError(undefined);
      notify(`${s.key} saved`);
      onSaved();
    } catch (err) {
      setError(err as Error);
    }
  };
  const reset = async () => {
    try {
      await must(ai.DELETE('/api/settings/{key}', { params: { path: { key: s.key } } }));
      notify(`${s.key} is back to its default`);
      onSaved();
    } catch (err) {
      setError(err as Error);
    }
  };
  const options = (s.options ?? []).map(String);
  return (
    <tr>
      <th scope="row"><label htmlFor={id} className="mono">{s.key}</label><div className="small muted">{s.description}</div></th>
      <td>{s.type}{s.min !== undefined || s.max !== undefined ? ` (${s.min ?? ''}–${s.max ?? ''})` : ''}</td>
      <td className="mono small">{s.default}</td>
      <td>
        {options.length > 0
          ? <select id={id} value={value} onChange={(e) => setValue(e.target.value)}>{options.map((o) => <option key={o}>{o}</option>)}</select>
          : s.type === 'boolean'
            ? <select id={id} value={value} onChange={(e) => setValue(e.target.value)}><option>true</option><option>false</option></select>
            : <input id={id} value={value} onChange={(e) => setValue(e.target.value)} inputMode={s.type === 'number' || s.type === 'integer' ? 'decimal' : undefined} aria-invalid={error ? 'true' : undefined} />}
        {error && <div className="error-text small" role="alert">{error.message}</div>}
      </td>
      <td className="inline-group">
        <button type="button" onClick={() => void save()} disabled={value === s.value} aria-label={`Save ${s.key}`}>Save</button>
        {s.is_overridden && <button type="button" className="link-button" onClick={() => void reset()} aria-label={`Reset ${s.key}`}>Default</button>}
      </td>
    </tr>
  );
}

export default function SettingsRegistry() {
  const list = useAsync(() => must(ai.GET('/api/settings')), []);
  const categories = [...new Set(list.value?.settings.map((s) => s.category) ?? [])];
  return (
    <div className="split">
      <AiNav />
      <div className="split-main">
        <PageHeader title="AI settings" />
        <ErrorNote error={list.error} />
        {categories.map((c) => (
          <table key={c} className="list-table settings-table">
            <caption>{c}</caption>
            <thead><tr><th scope="col">Setting</th><th scope="col">Type</th><th scope="col">Default</th><th scope="col">Value</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
            <tbody>{list.value!.settings.filter((s) => s.category === c).map((s) => <SettingRow key={`${s.key}:${s.value}`} s={s} onSaved={list.reload} />)}</tbody>
          </table>
        ))}
      </div>
    </div>
  );
}
