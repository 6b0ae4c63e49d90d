// An invite link (/invite#<token>): the invited operator chooses a password.
import { useState } from 'react';
import { Navigate } from 'react-router';
import { api, must } from '../api/client.ts';
import { useSession } from '../app/session.tsx';
import { AuthCard } from './AuthCard.tsx';
import { CredentialsForm } from './CredentialsForm.tsx';

export default function AcceptInvite() {
  const { state, accept } = useSession();
  const [token] = useState(() => window.location.hash.slice(1));
  if (state?.operator) return <Navigate to="/" replace />;
  return (
    <AuthCard title="Join the Studio">
      <p>Choose the password you will sign in with (at least 8 characters).</p>
      <CredentialsForm submit="Join" emailFixed newPassword onSubmit={async (_email, password) => {
        accept(await must(api.POST('/api/platform/studio/invites/accept', { body: { token, password } })));
        history.replaceState(null, '', '/');
      }} />
    </AuthCard>
  );
}
