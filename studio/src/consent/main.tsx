// pgbase's OAuth consent page (issue 49): served by the project API at
// /auth/v1/oauth/consent, where /oauth/authorize sends the browser with an
// authorization_id. The user signs in and allows or denies the client through
// auth-js's own oauth calls, as an app's consent page would (an app replaces
// this one with AUTH_OAUTH_SERVER_CONSENT_URL).
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ConsentApp } from './ConsentApp.tsx';
import '../styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ConsentApp />
  </StrictMode>,
);
