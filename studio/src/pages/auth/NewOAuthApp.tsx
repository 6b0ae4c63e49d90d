// The form that registers an OAuth app: its name, its redirect URIs (one per
// line, checked by the server) and whether it keeps a secret.
import { useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { useAction } from '../../app/useAction.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';

type Made = { client_id: string; client_name?: string; client_secret?: string };

export function NewOAuthApp({ onMade }: { onMade: (made: Made) => void }) {
  const [name, setName] = useState('');
  const [uris, setUris] = useState('');
  const [kind, setKind] = useState<'client_secret_basic' | 'none'>('client_secret_basic');
  const { error, busy, run } = useAction();
  return (
    <form className="stack" aria-labelledby="new-oauth-app" onSubmit={(e) => {
      e.preventDefault();
      void run(async () => {
        const made = await must(api.POST('/api/platform/auth/{ref}/oauth-clients', { params: { path: { ref: ref() } }, body: {
          client_name: name, redirect_uris: uris.split('\n').map((u) => u.trim()).filter(Boolean), token_endpoint_auth_method: kind,
        } }));
        onMade(made);
      }, () => { setName(''); setUris(''); });
    }}>
      <h2 id="new-oauth-app">Register an app</h2>
      <label>Name<input required maxLength={256} value={name} onChange={(e) => setName(e.target.value)} /></label>
      <label>Redirect URIs, one per line<textarea required rows={3} value={uris} onChange={(e) => setUris(e.target.value)} /></label>
      <label>Type<select value={kind} onChange={(e) => setKind(e.target.value as 'client_secret_basic' | 'none')}>
        <option value="client_secret_basic">confidential (a server: it keeps a secret)</option>
        <option value="none">public (a browser, mobile or CLI app: PKCE only)</option>
      </select></label>
      <ErrorNote error={error} />
      <button type="submit" className="primary" disabled={busy}>Register the app</button>
    </form>
  );
}
