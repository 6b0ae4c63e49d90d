// The legacy JWT anon and service_role keys, on or off (sql/0113): off, they
// are refused on every server at once; turning them off is asked first and
// needs a publishable and a secret key (the server says so otherwise).
import { useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { useAction } from '../../app/useAction.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';

export function LegacyKeys() {
  const path = { params: { path: { ref: ref() } } };
  const legacy = useAsync(() => must(api.GET('/api/platform/auth/{ref}/api-keys/legacy', path)), []);
  const { error, busy, run } = useAction();
  const [asking, setAsking] = useState(false);
  const set = (enabled: boolean) => must(api.PUT('/api/platform/auth/{ref}/api-keys/legacy', { ...path, body: { enabled } }));
  if (!legacy.value) return <ErrorNote error={legacy.error} />;
  return (
    <div className="stack">
      <p role="status">Legacy anon and service_role keys (JWTs): {legacy.value.enabled ? 'on' : 'off'}</p>
      <ErrorNote error={error} />
      {legacy.value.enabled
        ? <button type="button" className="danger" onClick={() => setAsking(true)}>Turn the legacy keys off</button>
        : <button type="button" disabled={busy} onClick={() => void run(() => set(true), legacy.reload)}>Turn the legacy keys back on</button>}
      {asking && (
        <ConfirmDialog title="Turn the legacy keys off" message="Every request with the legacy anon or service_role key is refused from now on, on every server. Apps must use a publishable or secret key."
          action="Turn off" onConfirm={async () => { await set(false); legacy.reload(); }} onClose={() => setAsking(false)} />
      )}
    </div>
  );
}
