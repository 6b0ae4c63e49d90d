// The one-time setup link (/setup#<token>): the first operator's account.
import { useState } from 'react';
import { Navigate } from 'react-router';
import { api, must } from '../api/client.ts';
import { useSession } from '../app/session.tsx';
import { AuthCard } from './AuthCard.tsx';
import { CredentialsForm } from './CredentialsForm.tsx';

export default function Setup() {
  const { state, accept } = useSession();
  const [token] = useState(() => window.location.hash.slice(1));
  if (state?.operator) return <Navigate to="/" replace />;
  if (!token) return <AuthCard title="Set up the Studio"><p>This page needs the setup link the server printed, with its token after #.</p></AuthCard>;
  return (
    <AuthCard title="Create the first operator">
      <p>This link works once. The account you make here signs in to the Studio and can invite others.</p>
      <CredentialsForm submit="Create operator" newPassword onSubmit={async (email, password) => {
        accept(await must(api.POST('/api/platform/studio/setup', { body: { token, email, password } })));
        history.replaceState(null, '', '/');
      }} />
    </AuthCard>
  );
}
