// Who did what in the control plane: sign-ins, invites, every change with
// the SQL it ran, deletions of rows, users and files.
import { api, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { SettingsNav } from './SettingsNav.tsx';

export default function AuditLog() {
  const log = useAsync(() => must(api.GET('/api/platform/studio/audit', { params: { query: { limit: 200 } } })), []);
  return (
    <div className="split">
      <SettingsNav />
      <div className="split-main">
        <PageHeader title="Audit log"><button type="button" onClick={log.reload}>Refresh</button></PageHeader>
        <ErrorNote error={log.error} />
        {log.loading && !log.value ? <Loading what="the audit log" /> : (
          <table className="list-table">
            <caption className="sr-only">Audit log, newest first</caption>
            <thead><tr><th scope="col">When</th><th scope="col">Operator</th><th scope="col">Action</th><th scope="col">On</th><th scope="col">Detail</th></tr></thead>
            <tbody>
              {log.value?.map((l) => (
                <tr key={l.id}>
                  <td className="small">{new Date(l.at).toLocaleString()}</td>
                  <td>{l.operator_email}</td>
                  <td>{l.action.replaceAll('_', ' ')}</td>
                  <td className="mono small">{l.target ?? ''}</td>
                  <td className="mono small">{typeof l.detail.sql === 'string' ? l.detail.sql : Object.keys(l.detail).length ? JSON.stringify(l.detail) : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </div>
  );
}
