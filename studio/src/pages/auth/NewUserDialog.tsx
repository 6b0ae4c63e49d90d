// A user made by the operator (confirmed: the operator vouches for the
// address), or invited by e-mail (through the configured SMTP).
import { useState, type FormEvent } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';

export function NewUserDialog({ invite, onDone, onClose }: { invite: boolean; onDone: (message: string) => void; onClose: () => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<Error>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const path = { params: { path: { ref: ref() } } };
      if (invite) await must(api.POST('/api/platform/auth/{ref}/invite', { ...path, body: { email } }));
      else await must(api.POST('/api/platform/auth/{ref}/users', { ...path, body: { email, password } }));
      onDone(invite ? `Invite sent to ${email}` : `User ${email} created`);
      onClose();
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <Dialog title={invite ? 'Invite a user' : 'Create a user'} onClose={onClose}>
      <form className="stack" onSubmit={(e) => void submit(e)}>
        <label>E-mail<input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} /></label>
        {!invite && <label>Password<input type="password" autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.target.value)} /></label>}
        <ErrorNote error={error} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="primary">{invite ? 'Send invite' : 'Create user'}</button>
        </div>
      </form>
    </Dialog>
  );
}
