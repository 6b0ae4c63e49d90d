// The frame of every page after sign-in: a skip link, the header (project,
// theme, operator, sign out), the sidebar, and the page.
import { Suspense } from 'react';
import { Navigate, Outlet } from 'react-router';
import { Loading } from '../components/Loading.tsx';
import { useSession } from './session.tsx';
import { Shortcuts } from './Shortcuts.tsx';
import { Sidebar } from './Sidebar.tsx';
import { useTheme, type ThemeChoice } from './theme.ts';

export function Shell() {
  const { state, signOut } = useSession();
  const [theme, setTheme] = useTheme();
  if (!state) return <Loading what="the Studio" />;
  if (!state.operator || !state.project) return <Navigate to="/sign-in" replace />;
  return (
    <div className="shell">
      <a className="skip-link" href="#main">Skip to the page</a>
      <header className="topbar">
        <span className="brand">pgbase Studio</span>
        <span className="muted project">project <strong>{state.project.ref}</strong> · <span className="mono">{state.project.api_url}</span></span>
        <span className="spacer" />
        <label className="theme-choice">Theme
          <select value={theme} onChange={(e) => setTheme(e.target.value as ThemeChoice)}>
            <option value="system">System</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
        <span className="operator">{state.operator.email}</span>
        <button type="button" onClick={() => void signOut()}>Sign out</button>
      </header>
      <Sidebar />
      <main id="main" className="page" tabIndex={-1}>
        <Suspense fallback={<Loading what="the page" />}>
          <Outlet />
        </Suspense>
      </main>
      <Shortcuts />
    </div>
  );
}
