// The e-mail and password form the sign-in, setup and invite pages share.
import { useState, type FormEvent } from 'react';
import { ErrorNote } from '../components/ErrorNote.tsx';

export function CredentialsForm(props: { submit: string; emailFixed?: boolean; newPassword?: boolean; onSubmit: (email: string, password: string) => Promise<void> }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<Error>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await props.onSubmit(email, password);
    } catch (err) {
      setError(err as Error);
      setBusy(false);
    }
  };
  return (
    <form className="stack" onSubmit={(e) => void submit(e)}>
      {!props.emailFixed && (
        <label>E-mail
          <input type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
      )}
      <label>Password
        <input type="password" name="password" autoComplete={props.newPassword ? 'new-password' : 'current-password'} required minLength={props.newPassword ? 8 : 1} value={password} onChange={(e) => setPassword(e.target.value)} />
      </label>
      <ErrorNote error={error} />
      <button type="submit" className="primary" disabled={busy}>{props.submit}</button>
    </form>
  );
}
