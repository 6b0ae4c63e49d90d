// What the client asks for and who is deciding: everything named by the
// client is shown as text (its name and URL are the client's own words,
// never trusted markup), then Allow or Deny through auth-js, which sends the
// browser to the client's redirect with the code or access_denied.
import { useState } from 'react';
import type { OAuthAuthorizationDetails } from '@supabase/auth-js';
import { AuthCard } from '../auth/AuthCard.tsx';
import { ErrorNote } from '../components/ErrorNote.tsx';
import { authClient } from './authClient.ts';

const SCOPE_WORDS: Record<string, string> = {
  openid: 'Confirm who you are',
  email: 'See your e-mail address',
  profile: 'See your name and picture',
  phone: 'See your phone number',
};

export function ConsentDecision({ details, onLeave, onSignOut }: { details: OAuthAuthorizationDetails; onLeave: () => void; onSignOut: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const name = details.client.name || 'An application';
  const decide = async (approve: boolean) => {
    setBusy(true);
    setError(undefined);
    const { error: failed } = approve
      ? await authClient.oauth.approveAuthorization(details.authorization_id)
      : await authClient.oauth.denyAuthorization(details.authorization_id);
    if (failed) {
      setError(failed);
      setBusy(false);
      return;
    }
    onLeave();
  };
  return (
    <AuthCard brand="pgbase" title={`${name} wants to access your account`}>
      {details.client.uri && <p>Application site: <span className="mono">{details.client.uri}</span></p>}
      <p>Signed in as <strong>{details.user.email || details.user.id}</strong>.</p>
      <p>It will be able to act as you, within what your account may do, and to:</p>
      <ul aria-label="What it asks for">
        {details.scope.split(' ').filter(Boolean).map((s) => <li key={s}>{SCOPE_WORDS[s] ?? s}</li>)}
      </ul>
      <p>You will return to <span className="mono">{details.redirect_uri}</span>.</p>
      <ErrorNote error={error} />
      <div className="field-row">
        <button type="button" className="primary" disabled={busy} onClick={() => void decide(true)}>Allow</button>
        <button type="button" disabled={busy} onClick={() => void decide(false)}>Deny</button>
        <button type="button" className="link-button" disabled={busy} onClick={onSignOut}>Not you? Sign out</button>
      </div>
    </AuthCard>
  );
}
