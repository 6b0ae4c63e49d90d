// The identity settings in force, read-only: they are configuration
// (environment variables), changed where the server is started.
import { api, must, ref } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { AuthNav } from './AuthNav.tsx';
import { CodeBlock } from '../../components/CodeBlock.tsx';

export default function AuthSettings() {
  const config = useAsync(() => must(api.GET('/api/platform/auth/{ref}/config', { params: { path: { ref: ref() } } })), []);
  const c = config.value;
  const on = (b: boolean) => (b ? 'on' : 'off');
  return (
    <div className="split">
      <AuthNav />
      <div className="split-main">
        <PageHeader title="Identity settings" />
        <p className="muted">Set by the server&apos;s environment (docs/auth.md); shown here as they are in force.</p>
        <ErrorNote error={config.error} />
        {!c ? <Loading what="settings" /> : (
          <>
            <dl className="facts">
              <div><dt>Site URL</dt><dd className="mono">{c.site_url}</dd></div>
              <div><dt>Redirect allow list</dt><dd className="mono">{c.uri_allow_list.join(', ') || 'none'}</dd></div>
              <div><dt>Sign-ups</dt><dd>{c.disable_signup ? 'disabled' : 'open'}</dd></div>
              <div><dt>E-mail confirmation</dt><dd>{c.mailer_autoconfirm ? 'not needed (autoconfirm)' : 'needed'}</dd></div>
              <div><dt>Anonymous sign-ins</dt><dd>{on(c.anonymous_users)}</dd></div>
              <div><dt>Minimum password length</dt><dd>{c.password_min_length}</dd></div>
              <div><dt>Access token lifetime</dt><dd>{c.jwt_expiry} s</dd></div>
              <div><dt>SMTP</dt><dd>{c.smtp ? 'configured' : 'not configured: mail is kept in platform.mail_outbox'}</dd></div>
            </dl>
            <h2>Providers</h2>
            <ul className="plain-list columns">{Object.entries(c.external).map(([p, enabled]) => <li key={p}>{p}: {on(enabled)}</li>)}</ul>
            <h2>Rate limits</h2>
            <CodeBlock className="json" label="Rate limits">{JSON.stringify(c.rate_limits, null, 2)}</CodeBlock>
          </>
        )}
      </div>
    </div>
  );
}
