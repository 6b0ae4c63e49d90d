// The Studio's operators, and invites for more: the link is shown here once
// (and e-mailed when the server has SMTP), works once, for 7 days.
import { useState, type FormEvent } from 'react';
import { api, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { SettingsNav } from './SettingsNav.tsx';

export default function Operators() {
  const operators = useAsync(() => must(api.GET('/api/platform/studio/operators')), []);
  const [email, setEmail] = useState('');
  const [invite, setInvite] = useState<{ email: string; url: string }>();
  const [error, setError] = useState<Error>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const made = await must(api.POST('/api/platform/studio/invites', { body: { email } }));
      setInvite({ email: made.email, url: made.invite_url });
      setEmail('');
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <div className="split">
      <SettingsNav />
      <div className="split-main">
        <PageHeader title="Operators" />
        <ErrorNote error={operators.error} />
        {operators.loading && !operators.value ? <Loading what="operators" /> : (
          <table className="list-table">
            <caption className="sr-only">Operators</caption>
            <thead><tr><th scope="col">E-mail</th><th scope="col">Since</th><th scope="col">Last sign-in</th><th scope="col">Invited by</th></tr></thead>
            <tbody>{operators.value?.map((o) => <tr key={o.id}><td>{o.email}</td><td>{new Date(o.created_at).toLocaleDateString()}</td><td>{o.last_sign_in_at ? new Date(o.last_sign_in_at).toLocaleString() : 'never'}</td><td>{o.invited_by ?? ''}</td></tr>)}</tbody>
          </table>
        )}
        <h2>Invite an operator</h2>
        <form className="field-row" onSubmit={(e) => void submit(e)}>
          <label>E-mail<input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} /></label>
          <button type="submit" className="primary">Invite</button>
        </form>
        <ErrorNote error={error} />
        {invite && (
          <div className="card" role="status">
            <p>Give {invite.email} this link (shown once; it works once, for 7 days):</p>
            <input readOnly className="mono" value={invite.url} aria-label="Invite link" onFocus={(e) => e.target.select()} />
          </div>
        )}
      </div>
    </div>
  );
}
