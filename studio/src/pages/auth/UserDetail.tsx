// One user: identities, MFA factors, metadata and sessions; ban for a
// duration, send a magic link or a recovery, delete (asked first).
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { api, must, ref } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { useToast } from '../../app/toasts.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { AuthNav } from './AuthNav.tsx';
import { CodeBlock } from '../../components/CodeBlock.tsx';

const BANS: Array<[string, string]> = [['1h', 'an hour'], ['24h', 'a day'], ['168h', 'a week'], ['876000h', 'for good']];

export default function UserDetail() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const notify = useToast();
  const [confirm, setConfirm] = useState<{ title: string; message: string; action: string; run: () => Promise<void> }>();
  const [ban, setBan] = useState('24h');
  const path = { params: { path: { ref: ref(), id } } };
  const detail = useAsync(() => must(api.GET('/api/platform/auth/{ref}/users/{id}', path)), [id]);
  const user = detail.value?.user;
  const banned = user?.banned_until && new Date(user.banned_until) > new Date();
  const act = (fn: () => Promise<unknown>, done: string) => void fn().then(() => { notify(done); detail.reload(); }, (e: Error) => notify(e.message, 'error'));

  return (
    <div className="split">
      <AuthNav />
      <div className="split-main">
        <ErrorNote error={detail.error} />
        {!user ? <Loading what="the user" /> : (
          <>
            <PageHeader title={user.email || user.phone || user.id}>
              <button type="button" onClick={() => act(() => must(api.POST('/api/platform/auth/{ref}/users/{id}/magic-link', path)), 'Magic link sent')}>Send magic link</button>
              <button type="button" onClick={() => act(() => must(api.POST('/api/platform/auth/{ref}/users/{id}/recovery', path)), 'Recovery sent')}>Send recovery</button>
              {banned ? (
                <button type="button" onClick={() => act(() => must(api.PUT('/api/platform/auth/{ref}/users/{id}', { ...path, body: { ban_duration: 'none' } })), 'Ban lifted')}>Lift ban</button>
              ) : (
                <span className="inline-group">
                  <label>Ban for
                    <select value={ban} onChange={(e) => setBan(e.target.value)}>{BANS.map(([v, l]) => <option key={v} value={v}>{l}</option>)}</select>
                  </label>
                  <button type="button" onClick={() => setConfirm({ title: `Ban ${user.email ?? user.id}`, message: 'They cannot sign in until the ban ends; their MCP sessions end now. Tokens already issued last until they expire.', action: 'Ban', run: () => must(api.PUT('/api/platform/auth/{ref}/users/{id}', { ...path, body: { ban_duration: ban } })).then(() => detail.reload()) })}>Ban</button>
                </span>
              )}
              <button type="button" className="danger" onClick={() => setConfirm({ title: `Delete ${user.email ?? user.id}`, message: 'The user, their identities, factors and sessions are deleted; rows that reference them follow their foreign keys.', action: 'Delete user', run: async () => { await must(api.DELETE('/api/platform/auth/{ref}/users/{id}', path)); navigate('/auth/users'); } })}>Delete user</button>
            </PageHeader>
            <dl className="facts">
              <div><dt>Id</dt><dd className="mono">{user.id}</dd></div>
              <div><dt>Created</dt><dd>{new Date(user.created_at).toLocaleString()}</dd></div>
              <div><dt>Last sign-in</dt><dd>{user.last_sign_in_at ? new Date(user.last_sign_in_at).toLocaleString() : 'never'}</dd></div>
              {banned && <div><dt>Banned until</dt><dd>{new Date(user.banned_until!).toLocaleString()}</dd></div>}
            </dl>
            <h2>Identities</h2>
            <ul className="plain-list">{(user.identities ?? []).map((i, n) => <li key={n} className="mono small">{String(i.provider ?? '')}: {String((i.identity_data as Record<string, unknown> | undefined)?.email ?? i.id ?? '')}</li>)}</ul>
            <h2>MFA factors</h2>
            {detail.value!.factors.length === 0 ? <p className="muted">None.</p> : <ul className="plain-list">{detail.value!.factors.map((f, n) => <li key={n}>{String(f.factor_type ?? '')} {String(f.friendly_name ?? '')} ({String(f.status ?? '')})</li>)}</ul>}
            <h2>User metadata</h2>
            <CodeBlock className="json" label="User metadata">{JSON.stringify(user.user_metadata ?? {}, null, 2)}</CodeBlock>
            <h2>App metadata</h2>
            <CodeBlock className="json" label="App metadata">{JSON.stringify(user.app_metadata ?? {}, null, 2)}</CodeBlock>
            <h2>Sessions</h2>
            {detail.value!.sessions.length === 0 ? <p className="muted">None.</p> : (
              <table className="list-table">
                <caption className="sr-only">Sessions</caption>
                <thead><tr><th scope="col">Started</th><th scope="col">Level</th><th scope="col">Address</th><th scope="col">Agent</th></tr></thead>
                <tbody>{detail.value!.sessions.map((s) => <tr key={s.id}><td>{s.created_at ? new Date(s.created_at).toLocaleString() : ''}</td><td>{s.aal ?? ''}</td><td>{s.ip ?? ''}</td><td className="small">{s.user_agent ?? ''}</td></tr>)}</tbody>
              </table>
            )}
          </>
        )}
      </div>
      {confirm && <ConfirmDialog title={confirm.title} message={confirm.message} action={confirm.action} onClose={() => setConfirm(undefined)} onConfirm={confirm.run} />}
    </div>
  );
}
