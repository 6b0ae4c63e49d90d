import { Navigate } from 'react-router';
import { api, must } from '../api/client.ts';
import { useSession } from '../app/session.tsx';
import { AuthCard } from './AuthCard.tsx';
import { CredentialsForm } from './CredentialsForm.tsx';

export default function SignIn() {
  const { state, accept } = useSession();
  if (state?.operator) return <Navigate to="/" replace />;
  if (state?.setup_needed) {
    return (
      <AuthCard title="Set up the Studio">
        <p>No operator exists yet. Open the one-time setup link the server printed when it started (<code>npm start</code>&apos;s log), or run <code>npm run studio-operator -- --email you@example.com</code>.</p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Sign in">
      <CredentialsForm submit="Sign in" onSubmit={async (email, password) => accept(await must(api.POST('/api/platform/studio/sign-in', { body: { email, password } })))} />
    </AuthCard>
  );
}
