// The OAuth server's clients (docs/auth.md): the apps and MCP clients that
// may sign the project's users in. Registered by an operator here or by
// the client itself (dynamic registration); a confidential client's secret
// is shown once, when it is made or regenerated. Deleting a client ends
// the sessions it holds. Everything a client named itself is shown as text.
import { useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { useAction } from '../../app/useAction.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { AuthNav } from './AuthNav.tsx';
import { NewOAuthApp } from './NewOAuthApp.tsx';

export default function OAuthApps() {
  const path = (id: string) => ({ params: { path: { ref: ref(), id } } });
  const clients = useAsync(() => must(api.GET('/api/platform/auth/{ref}/oauth-clients', { params: { path: { ref: ref() } } })), []);
  const { error, run } = useAction();
  const [secret, setSecret] = useState<{ name: string; secret: string }>();
  const [deleting, setDeleting] = useState<{ id: string; name: string }>();
  const shown = (name: string | undefined) => name || 'Unnamed client';
  return (
    <div className="split">
      <AuthNav />
      <div className="split-main">
      <PageHeader title="OAuth apps" />
      <p className="muted">Apps and MCP clients that sign your users in through the project's OAuth 2.1 server. Each still needs the user's consent.</p>
      <ErrorNote error={error ?? clients.error} />
      {!clients.value ? <Loading what="the OAuth apps" /> : clients.value.length === 0 ? <p>No OAuth apps yet.</p> : (
        <table className="list-table">
          <caption className="sr-only">OAuth apps</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Client id</th><th scope="col">Type</th><th scope="col">Redirect URIs</th><th scope="col">Registered</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            {clients.value.map((c) => (
              <tr key={c.client_id}>
                <th scope="row">{shown(c.client_name)}</th>
                <td className="mono">{c.client_id}</td>
                <td>{c.client_type}</td>
                <td><ul className="plain-list">{c.redirect_uris.map((u) => <li key={u} className="mono">{u}</li>)}</ul></td>
                <td>{c.registration_type}</td>
                <td><div className="inline-group">
                  {c.client_type === 'confidential' && (
                    <button type="button" className="link-button" aria-label={`Regenerate the secret of ${shown(c.client_name)}`}
                      onClick={() => void run(async () => {
                        const made = await must(api.POST('/api/platform/auth/{ref}/oauth-clients/{id}/regenerate-secret', path(c.client_id)));
                        setSecret({ name: shown(made.client_name), secret: made.client_secret ?? '' });
                      })}>Regenerate secret</button>
                  )}
                  <button type="button" className="link-button" aria-label={`Delete ${shown(c.client_name)}`} onClick={() => setDeleting({ id: c.client_id, name: shown(c.client_name) })}>Delete</button>
                </div></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {secret && <p role="status">The secret of {secret.name}, shown once: <span className="mono">{secret.secret}</span></p>}
      <NewOAuthApp onMade={(made) => {
        if (made.client_secret) setSecret({ name: shown(made.client_name), secret: made.client_secret });
        clients.reload();
      }} />
      {deleting && (
        <ConfirmDialog title="Delete the OAuth app" message={`${deleting.name} can no longer sign anyone in, and every session it holds ends now.`} action="Delete"
          onConfirm={async () => { await must(api.DELETE('/api/platform/auth/{ref}/oauth-clients/{id}', path(deleting.id))); clients.reload(); }}
          onClose={() => setDeleting(undefined)} />
      )}
      </div>
    </div>
  );
}
