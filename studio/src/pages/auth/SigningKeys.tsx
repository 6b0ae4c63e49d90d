// The project's signing keys (docs/auth.md, Signing keys): the key in use,
// standby keys published before they sign, previously used ones that still
// verify, revoked ones. A rotation is three steps here: add a standby key,
// make it in use, later revoke the one before (asked first: its tokens stop
// at once). Only the public halves ever reach the page.
import { useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { useAction } from '../../app/useAction.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { ApiKeys } from './ApiKeys.tsx';
import { AuthNav } from './AuthNav.tsx';

const STATUS = { in_use: 'in use', standby: 'standby', previously_used: 'previously used', revoked: 'revoked' } as const;

export default function SigningKeys() {
  const path = { params: { path: { ref: ref() } } };
  const keys = useAsync(() => must(api.GET('/api/platform/auth/{ref}/signing-keys', path)), []);
  const { error, busy, run } = useAction();
  const [algorithm, setAlgorithm] = useState<'ES256' | 'RS256'>('ES256');
  const [revoking, setRevoking] = useState<string>();
  const key = (id: string) => ({ params: { path: { ref: ref(), id } } });
  const move = (id: string, status: 'in_use' | 'revoked') => must(api.PATCH('/api/platform/auth/{ref}/signing-keys/{id}', { ...key(id), body: { status } }));
  return (
    <div className="split">
      <AuthNav />
      <div className="split-main">
        <PageHeader title="Keys" />
        <h2>Signing keys</h2>
        <p className="muted">The key in use signs new sessions; standby and previously used keys still verify; a revoked key verifies nothing. Public keys: <span className="mono">/auth/v1/.well-known/jwks.json</span>.</p>
        <ErrorNote error={error ?? keys.error} />
        {!keys.value ? <Loading what="the signing keys" /> : (
          <table className="list-table">
            <caption className="sr-only">Signing keys</caption>
            <thead><tr><th scope="col">Key id (kid)</th><th scope="col">Algorithm</th><th scope="col">Status</th><th scope="col">Since</th><th scope="col">Actions</th></tr></thead>
            <tbody>
              {keys.value.keys.map((k) => (
                <tr key={k.id} data-status={k.status}>
                  <th scope="row" className="mono">{k.algorithm === 'HS256' ? 'legacy JWT secret' : k.id}</th>
                  <td>{k.algorithm}</td>
                  <td>{STATUS[k.status]}</td>
                  <td>{new Date(k.updated_at).toLocaleString()}</td>
                  <td><div className="inline-group">
                    {(k.status === 'standby' || (k.status === 'previously_used' && k.algorithm !== 'HS256')) && (
                      <button type="button" disabled={busy} aria-label={`Make ${k.algorithm} key ${k.id} in use`} onClick={() => void run(() => move(k.id, 'in_use'), keys.reload)}>Make in use</button>
                    )}
                    {k.status === 'previously_used' && k.algorithm !== 'HS256' && (
                      <button type="button" className="danger" aria-label={`Revoke ${k.algorithm} key ${k.id}`} onClick={() => setRevoking(k.id)}>Revoke</button>
                    )}
                    {(k.status === 'standby' || k.status === 'revoked') && (
                      <button type="button" className="link-button" aria-label={`Delete ${k.algorithm} key ${k.id}`} onClick={() => void run(() => must(api.DELETE('/api/platform/auth/{ref}/signing-keys/{id}', key(k.id))), keys.reload)}>Delete</button>
                    )}
                    {k.algorithm === 'HS256' && <span className="small muted">signs the anon and service_role keys</span>}
                  </div></td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <form className="field-row" onSubmit={(e) => { e.preventDefault(); void run(() => must(api.POST('/api/platform/auth/{ref}/signing-keys', { ...path, body: { algorithm } })), keys.reload); }}>
          <label>Algorithm
            <select value={algorithm} onChange={(e) => setAlgorithm(e.target.value as 'ES256' | 'RS256')}><option value="ES256">ES256 (P-256)</option><option value="RS256">RS256 (RSA 2048)</option></select>
          </label>
          <button type="submit" className="primary" disabled={busy}>Add a standby key</button>
        </form>
        <ApiKeys />
        {revoking && (
          <ConfirmDialog title="Revoke the signing key" message={`Every token key ${revoking} signed stops working at once, on every server: users signed in with one are signed out.`}
            action="Revoke" onConfirm={async () => { await move(revoking, 'revoked'); keys.reload(); }} onClose={() => setRevoking(undefined)} />
        )}
      </div>
    </div>
  );
}
