// The project's publishable and secret API keys (docs/auth.md): listed by
// their first characters, shown in full on request (the operator's to
// copy), made with a name, and deleted after asking (a deleted key stops
// working on every server at once). A new key is shown once here in full.
import { useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { useAction } from '../../app/useAction.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { LegacyKeys } from './LegacyKeys.tsx';

export function ApiKeys() {
  const path = { params: { path: { ref: ref() } } };
  const [reveal, setReveal] = useState(false);
  const keys = useAsync(() => must(api.GET('/api/platform/auth/{ref}/api-keys', { params: { path: { ref: ref() }, query: { reveal: reveal ? 'true' : 'false' } } })), [reveal]);
  const { error, busy, run } = useAction();
  const [name, setName] = useState('');
  const [type, setType] = useState<'publishable' | 'secret'>('secret');
  const [made, setMade] = useState<string>();
  const [deleting, setDeleting] = useState<{ id: string; name: string }>();
  return (
    <section aria-labelledby="api-keys-title">
      <h2 id="api-keys-title">API keys</h2>
      <p className="muted">Publishable keys act as anon and belong in browsers and apps; secret keys act as the service role and are refused from a browser.</p>
      <ErrorNote error={error ?? keys.error} />
      <label className="inline-group"><input type="checkbox" checked={reveal} onChange={(e) => setReveal(e.target.checked)} />Show the keys</label>
      {!keys.value ? <Loading what="the API keys" /> : (
        <table className="list-table">
          <caption className="sr-only">API keys</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Key</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            {keys.value.map((k) => (
              <tr key={k.id}>
                <th scope="row">{k.name}</th><td>{k.type}</td><td className="mono">{k.api_key ?? k.shown}</td>
                <td><button type="button" className="link-button" aria-label={`Delete the API key ${k.name}`} onClick={() => setDeleting({ id: k.id, name: k.name })}>Delete</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form className="field-row" onSubmit={(e) => {
        e.preventDefault();
        void run(async () => setMade((await must(api.POST('/api/platform/auth/{ref}/api-keys', { ...path, body: { name, type } }))).api_key), () => { setName(''); keys.reload(); });
      }}>
        <label>Name<input required value={name} onChange={(e) => setName(e.target.value)} /></label>
        <label>Type<select value={type} onChange={(e) => setType(e.target.value as 'publishable' | 'secret')}><option value="secret">secret</option><option value="publishable">publishable</option></select></label>
        <button type="submit" className="primary" disabled={busy}>Make an API key</button>
      </form>
      {made && <p role="status">New key: <span className="mono">{made}</span></p>}
      <LegacyKeys />
      {deleting && (
        <ConfirmDialog title="Delete the API key" message={`Every request with ${deleting.name} is refused from now on, on every server.`} action="Delete"
          onConfirm={async () => { await must(api.DELETE('/api/platform/auth/{ref}/api-keys/{id}', { params: { path: { ref: ref(), id: deleting.id } } })); keys.reload(); }}
          onClose={() => setDeleting(undefined)} />
      )}
    </section>
  );
}
