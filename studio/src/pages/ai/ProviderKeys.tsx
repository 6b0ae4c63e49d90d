// The model vendors' keys: each shown masked (never back in full), added or
// rotated (checked with the vendor first; a refused key changes nothing)
// and removed. The key typed here leaves the form once sent.
import { useState, type FormEvent } from 'react';
import { ai, must } from '../../api/client.ts';
import { useAction } from '../../app/useAction.ts';
import { useAsync } from '../../app/useAsync.ts';
import { useToast } from '../../app/toasts.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { AiNav } from './AiNav.tsx';

const PROVIDERS = ['openai', 'anthropic', 'gemini', 'openrouter'] as const;

export default function ProviderKeys() {
  const keys = useAsync(() => must(ai.GET('/api/ai-provider-keys')), []);
  const platform = useAsync(() => must(ai.GET('/api/ai-provider-keys/platform_supported')), []);
  const [provider, setProvider] = useState<(typeof PROVIDERS)[number]>('openai');
  const [secret, setSecret] = useState('');
  const { error, run } = useAction();
  const notify = useToast();
  const save = (e: FormEvent) => {
    e.preventDefault();
    return run(() => must(ai.POST('/api/ai-provider-keys', { body: { provider, api_key: secret } })), () => {
      setSecret('');
      notify(`The ${provider} key is stored`);
      keys.reload();
    });
  };
  const remove = (p: string) => run(() => must(ai.DELETE('/api/ai-provider-keys/{provider}', { params: { path: { provider: p } } })), () => {
    notify(`The ${p} key is removed`);
    keys.reload();
  });
  return (
    <div className="split">
      <AiNav />
      <div className="split-main">
        <PageHeader title="Provider keys" />
        <ErrorNote error={keys.error} />
        <table className="list-table">
          <caption className="sr-only">Stored keys</caption>
          <thead><tr><th scope="col">Provider</th><th scope="col">Key</th><th scope="col">Valid</th><th scope="col">Checked</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {keys.value?.map((k) => (
              <tr key={k.provider}>
                <th scope="row">{k.provider}</th><td className="mono">{k.masked_key}</td><td>{k.is_valid ? 'yes' : 'no'}</td>
                <td>{k.last_validated_at ? new Date(k.last_validated_at).toLocaleString() : 'never'}</td>
                <td><button type="button" className="link-button" aria-label={`Remove the ${k.provider} key`} onClick={() => void remove(k.provider)}>Remove</button></td>
              </tr>
            ))}
          </tbody>
        </table>
        {platform.value && platform.value.providers.length > 0 && <p className="small muted">The platform holds a key for: {platform.value.providers.join(', ')}.</p>}
        <h2>Add or rotate a key</h2>
        <form className="field-row" onSubmit={(e) => void save(e)}>
          <label>Provider<select value={provider} onChange={(e) => setProvider(e.target.value as typeof provider)}>{PROVIDERS.map((p) => <option key={p}>{p}</option>)}</select></label>
          <label>API key<input type="password" autoComplete="off" required value={secret} onChange={(e) => setSecret(e.target.value)} /></label>
          <button type="submit" className="primary">Check and store</button>
        </form>
        <ErrorNote error={error} />
      </div>
    </div>
  );
}
