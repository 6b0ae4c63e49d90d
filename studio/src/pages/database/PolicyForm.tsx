// A policy, new (from a template, or blank) or edited: its name, kind,
// command, roles, condition and check; previewed as SQL, then run.
import { useState } from 'react';
import { api, must, ref, type components } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { PreviewedChange } from '../../components/PreviewedChange.tsx';

type Policy = components['schemas']['Policy'];
type Command = 'ALL' | 'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE';
const ROLES = ['anon', 'authenticated', 'service_role', 'public'];

export function PolicyForm({ tableId, tableName, editing, onDone, onClose }: { tableId: number; tableName: string; editing?: Policy | undefined; onDone: () => void; onClose: () => void }) {
  const templates = useAsync(() => must(api.GET('/api/platform/pg-meta/{ref}/tables/{id}/policy-templates', { params: { path: { ref: ref(), id: String(tableId) } } })), [tableId]);
  const [name, setName] = useState(editing?.name ?? '');
  const [action, setAction] = useState<'PERMISSIVE' | 'RESTRICTIVE'>(editing?.action ?? 'PERMISSIVE');
  const [command, setCommand] = useState<Command>((editing?.command as Command | undefined) ?? 'SELECT');
  const [roles, setRoles] = useState<string[]>(editing?.roles ?? ['authenticated']);
  const [using, setUsing] = useState(editing?.definition ?? '');
  const [check, setCheck] = useState(editing?.check ?? '');
  const path = { params: { path: { ref: ref(), id: String(tableId) } } };
  const body = () => ({ name, action, command, roles, ...(using && command !== 'INSERT' ? { using } : {}), ...(check && command !== 'SELECT' && command !== 'DELETE' ? { check } : {}) });
  const send = (preview: boolean) => editing
    ? must(api.PUT('/api/platform/pg-meta/{ref}/tables/{id}/policies/{name}', { params: { path: { ...path.params.path, name: editing.name } }, body: { ...body(), preview } }))
    : must(api.POST('/api/platform/pg-meta/{ref}/tables/{id}/policies', { ...path, body: { ...body(), preview } }));
  const useTemplate = (id: string) => {
    const t = templates.value?.find((x) => x.id === id);
    if (!t) return;
    setName(t.policy.name);
    setCommand(t.policy.command as Command);
    setRoles(t.policy.roles);
    setUsing(t.policy.using ?? '');
    setCheck(t.policy.check ?? '');
  };
  return (
    <PreviewedChange title={editing ? `Edit policy ${editing.name}` : `New policy on ${tableName}`} change={editing ? `Change policy ${editing.name}` : `New policy on ${tableName}`} wide onClose={onClose}
      preview={async () => (await send(true)).sql}
      run={async () => {
        await send(false);
        onDone();
      }}>
      {!editing && (
        <label>Start from a template
          <select defaultValue="" onChange={(e) => useTemplate(e.target.value)}>
            <option value="">Blank</option>
            {(templates.value ?? []).map((t) => <option key={t.id} value={t.id}>{t.title}</option>)}
          </select>
        </label>
      )}
      <label>Name<input required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} /></label>
      <div className="field-row">
        <label>Kind
          <select value={action} onChange={(e) => setAction(e.target.value as 'PERMISSIVE' | 'RESTRICTIVE')}>
            <option value="PERMISSIVE">Permissive (any one lets a row in)</option>
            <option value="RESTRICTIVE">Restrictive (every one must)</option>
          </select>
        </label>
        <label>Command
          <select value={command} onChange={(e) => setCommand(e.target.value as Command)}>
            {['ALL', 'SELECT', 'INSERT', 'UPDATE', 'DELETE'].map((c) => <option key={c} value={c}>{c}</option>)}
          </select>
        </label>
      </div>
      <fieldset>
        <legend>Roles</legend>
        {ROLES.map((r) => <label key={r} className="inline"><input type="checkbox" checked={roles.includes(r)} onChange={(e) => setRoles((x) => (e.target.checked ? [...x, r] : x.filter((y) => y !== r)))} /> {r}</label>)}
      </fieldset>
      {command !== 'INSERT' && <label>Which rows (using)<textarea rows={3} className="mono" value={using} onChange={(e) => setUsing(e.target.value)} placeholder="(select auth.uid()) = user_id" /></label>}
      {command !== 'SELECT' && command !== 'DELETE' && <label>Which new rows (with check)<textarea rows={3} className="mono" value={check} onChange={(e) => setCheck(e.target.value)} /></label>}
      <ErrorNote error={templates.error} />
    </PreviewedChange>
  );
}
