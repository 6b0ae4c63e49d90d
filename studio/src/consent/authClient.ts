// The consent page's client of /auth/v1: auth-js, the official typed client
// of the identity API, with the short-lived anon key the server put in the
// page's <meta name="pgbase-api-key"> (never a secret one). The session stays
// in this origin's storage, so a user signed in once is asked only to decide.
import { AuthClient } from '@supabase/auth-js';

const key = document.querySelector<HTMLMetaElement>('meta[name="pgbase-api-key"]')?.content ?? '';

export const authClient = new AuthClient({
  url: `${window.location.origin}/auth/v1`,
  headers: { apikey: key },
  storageKey: 'pgbase-consent',
  persistSession: true,
  autoRefreshToken: true,
  detectSessionInUrl: false,
});

/** The authorization the page was opened for. */
export const authorizationId = new URLSearchParams(window.location.search).get('authorization_id');
