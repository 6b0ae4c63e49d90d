// The catalogue lists that are read, not changed, here: indexes, triggers,
// roles, publications and the migrations applied (the platform's sql/ and
// the user's MIGRATIONS_DIR).
import { api, must, ref } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';

type Section = 'indexes' | 'triggers' | 'roles' | 'publications' | 'migrations';
type Shown = { title: string; head: string[]; rows: string[][] };

const yes = (b: boolean) => (b ? 'yes' : 'no');

async function load(section: Section): Promise<Shown> {
  const path = { params: { path: { ref: ref() } } };
  switch (section) {
    case 'indexes': {
      const list = await must(api.GET('/api/platform/pg-meta/{ref}/indexes', path));
      return { title: 'Indexes', head: ['Table', 'Index', 'Columns', 'Unique', 'Size', 'Scans', 'Definition'], rows: list.map((i) => [`${i.schema}.${i.table}`, i.name, i.columns.join(', '), yes(i.is_unique), i.size, String(i.scans), i.definition]) };
    }
    case 'triggers': {
      const list = await must(api.GET('/api/platform/pg-meta/{ref}/triggers', path));
      return { title: 'Triggers', head: ['Table', 'Trigger', 'When', 'Events', 'Function', 'Enabled'], rows: list.map((t) => [`${t.schema}.${t.table}`, t.name, `${t.activation} ${t.orientation}`, t.events.join(', '), `${t.function_schema}.${t.function_name}`, t.enabled_mode]) };
    }
    case 'roles': {
      const list = await must(api.GET('/api/platform/pg-meta/{ref}/roles', path));
      return { title: 'Roles', head: ['Role', 'Can log in', 'Superuser', 'Bypasses RLS', 'Member of', 'Connections', 'Settings'], rows: list.map((r) => [r.name, yes(r.can_login), yes(r.is_superuser), yes(r.can_bypass_rls), r.member_of.join(', '), String(r.active_connections), JSON.stringify(r.config ?? {})]) };
    }
    case 'publications': {
      const list = await must(api.GET('/api/platform/pg-meta/{ref}/publications', path));
      return { title: 'Publications', head: ['Publication', 'Owner', 'Insert', 'Update', 'Delete', 'Tables'], rows: list.map((p) => [p.name, p.owner, yes(p.publish_insert), yes(p.publish_update), yes(p.publish_delete), p.tables === null ? 'all tables' : p.tables.map((t) => `${t.schema}.${t.name}`).join(', ')]) };
    }
    case 'migrations': {
      const list = await must(api.GET('/api/platform/pg-meta/{ref}/migrations', path));
      return { title: 'Migrations applied', head: ['Source', 'File', 'Applied'], rows: list.map((m) => [m.source === 'platform' ? 'pgbase (sql/)' : 'yours (MIGRATIONS_DIR)', m.name, new Date(m.applied_at).toLocaleString()]) };
    }
  }
}

export function CatalogueList({ section }: { section: Section }) {
  const data = useAsync(() => load(section), [section]);
  return (
    <>
      <PageHeader title={data.value?.title ?? section} />
      <ErrorNote error={data.error} />
      {data.loading && !data.value ? <Loading what={section} /> : data.value && (
        <div className="table-scroll">
          <table className="list-table">
            <caption className="sr-only">{data.value.title}</caption>
            <thead><tr>{data.value.head.map((h) => <th key={h} scope="col">{h}</th>)}</tr></thead>
            <tbody>{data.value.rows.map((r, i) => <tr key={i}>{r.map((cell, j) => <td key={j} className={j === r.length - 1 && section === 'indexes' ? 'mono small' : undefined}>{cell}</td>)}</tr>)}</tbody>
          </table>
        </div>
      )}
    </>
  );
}
