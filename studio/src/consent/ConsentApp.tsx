// The consent page's states: no authorization named, signing in, loading the
// request, deciding, and leaving for the client's redirect.
import { useCallback, useEffect, useState } from 'react';
import type { OAuthAuthorizationDetails } from '@supabase/auth-js';
import { AuthCard } from '../auth/AuthCard.tsx';
import { CredentialsForm } from '../auth/CredentialsForm.tsx';
import { ErrorNote } from '../components/ErrorNote.tsx';
import { authClient, authorizationId } from './authClient.ts';
import { ConsentDecision } from './ConsentDecision.tsx';

type State = { kind: 'loading' } | { kind: 'sign-in' } | { kind: 'decide'; details: OAuthAuthorizationDetails } | { kind: 'leaving' } | { kind: 'failed'; error: Error };

export function ConsentApp() {
  const [state, setState] = useState<State>({ kind: 'loading' });

  const load = useCallback(async () => {
    if (!authorizationId) return setState({ kind: 'failed', error: new Error('This page needs an authorization_id: open it from the application asking for access.') });
    const { data: { session } } = await authClient.getSession();
    if (!session) return setState({ kind: 'sign-in' });
    const { data, error } = await authClient.oauth.getAuthorizationDetails(authorizationId);
    if (error) return setState({ kind: 'failed', error });
    // Consent given before covers this request: the server approved it already.
    if ('redirect_url' in data) {
      setState({ kind: 'leaving' });
      window.location.assign(data.redirect_url);
      return;
    }
    setState({ kind: 'decide', details: data });
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  const signIn = async (email: string, password: string) => {
    const { error } = await authClient.signInWithPassword({ email, password });
    if (error) throw error;
    await load();
  };

  const signOut = async () => {
    await authClient.signOut({ scope: 'local' });
    setState({ kind: 'sign-in' });
  };

  switch (state.kind) {
    case 'loading':
      return <AuthCard brand="pgbase" title="Authorize access"><p role="status">Loading…</p></AuthCard>;
    case 'sign-in':
      return (
        <AuthCard brand="pgbase" title="Sign in to continue">
          <p>An application asks for access to your account. Sign in to see what it asks for.</p>
          <CredentialsForm submit="Sign in" onSubmit={signIn} />
        </AuthCard>
      );
    case 'decide':
      return <ConsentDecision details={state.details} onLeave={() => setState({ kind: 'leaving' })} onSignOut={() => void signOut()} />;
    case 'leaving':
      return <AuthCard brand="pgbase" title="Authorize access"><p role="status">Returning to the application…</p></AuthCard>;
    case 'failed':
      return <AuthCard brand="pgbase" title="This request cannot be completed"><ErrorNote error={state.error} /></AuthCard>;
  }
}
