// The project's users: search by e-mail, phone or id, a page at a time
// (the page is in the URL), created or invited from here.
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, must, ref } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { useToast } from '../../app/toasts.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { AuthNav } from './AuthNav.tsx';
import { NewUserDialog } from './NewUserDialog.tsx';

const PER_PAGE = 50;

export default function Users() {
  const notify = useToast();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page') ?? 1) || 1);
  const search = params.get('q') ?? '';
  const [draft, setDraft] = useState(search);
  const [dialog, setDialog] = useState<'create' | 'invite'>();
  const users = useAsync(() => must(api.GET('/api/platform/auth/{ref}/users', { params: { path: { ref: ref() }, query: { page, per_page: PER_PAGE, ...(search ? { search } : {}) } } })), [page, search]);
  const pages = Math.max(1, Math.ceil((users.value?.total ?? 0) / PER_PAGE));
  return (
    <div className="split">
      <AuthNav />
      <div className="split-main">
        <PageHeader title="Users">
          <button type="button" className="primary" onClick={() => setDialog('create')}>Create user</button>
          <button type="button" onClick={() => setDialog('invite')}>Invite user</button>
        </PageHeader>
        <form className="search-form" role="search" onSubmit={(e) => { e.preventDefault(); setParams(draft ? { q: draft } : {}); }}>
          <label>Search by e-mail, phone or id<input type="search" data-shortcut="search" value={draft} onChange={(e) => setDraft(e.target.value)} /></label>
          <button type="submit">Search</button>
        </form>
        <ErrorNote error={users.error} />
        {users.loading && !users.value ? <Loading what="users" /> : (
          <>
            <table className="list-table">
              <caption className="sr-only">Users, page {page} of {pages}</caption>
              <thead><tr><th scope="col">E-mail</th><th scope="col">Phone</th><th scope="col">Created</th><th scope="col">Last sign-in</th><th scope="col">State</th></tr></thead>
              <tbody>
                {users.value?.users.map((u) => (
                  <tr key={u.id}>
                    <td><Link to={`/auth/users/${u.id}`}>{u.email || u.id}</Link></td>
                    <td>{u.phone ?? ''}</td>
                    <td>{new Date(u.created_at).toLocaleString()}</td>
                    <td>{u.last_sign_in_at ? new Date(u.last_sign_in_at).toLocaleString() : 'never'}</td>
                    <td>{u.banned_until && new Date(u.banned_until) > new Date() ? <span className="badge badge-warn">banned</span> : u.is_anonymous ? <span className="badge">anonymous</span> : ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <nav className="pager" aria-label="Pages of users">
              <button type="button" disabled={page <= 1} onClick={() => setParams({ ...(search ? { q: search } : {}), page: String(page - 1) })}>Previous</button>
              <span>Page {page} of {pages} · {users.value?.total.toLocaleString()} users</span>
              <button type="button" disabled={page >= pages} onClick={() => setParams({ ...(search ? { q: search } : {}), page: String(page + 1) })}>Next</button>
            </nav>
          </>
        )}
      </div>
      {dialog && <NewUserDialog invite={dialog === 'invite'} onClose={() => setDialog(undefined)} onDone={(m) => { notify(m); users.reload(); }} />}
    </div>
  );
}
