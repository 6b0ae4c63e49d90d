// The operator's session as the app knows it: GET /studio/state at start
// (setup needed? signed in? the CSRF token and the project), kept in a
// context; sign-in, setup and invites answer the same state. A 401 from any
// request means the session ended: the app goes back to the sign-in page.
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { api, must, onSessionExpired, setCsrfToken, setProjectRef, type components } from '../api/client.ts';

export type StudioState = components['schemas']['StudioState'];

type Session = { state: StudioState | undefined; error: Error | undefined; accept: (s: StudioState) => void; signOut: () => Promise<void> };

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<StudioState>();
  const [error, setError] = useState<Error>();
  const accept = useCallback((s: StudioState) => {
    setCsrfToken(s.csrf_token);
    if (s.project) setProjectRef(s.project.ref);
    setState(s);
  }, []);
  useEffect(() => {
    must(api.GET('/api/platform/studio/state')).then(accept, (e: Error) => setError(e));
    return onSessionExpired(() => accept({ setup_needed: false, operator: null, csrf_token: null, project: null }));
  }, [accept]);
  const signOut = useCallback(async () => {
    await must(api.POST('/api/platform/studio/sign-out'));
    accept({ setup_needed: false, operator: null, csrf_token: null, project: null });
  }, [accept]);
  return <SessionContext value={{ state, error, accept, signOut }}>{children}</SessionContext>;
}

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}

/** The signed-in operator's project (the pages under the shell have one). */
export function useProject(): NonNullable<StudioState['project']> {
  const { state } = useSession();
  if (!state?.project) throw new Error('no project: not signed in');
  return state.project;
}
