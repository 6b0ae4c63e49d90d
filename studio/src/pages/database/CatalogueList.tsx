// The catalogue lists that are read, not changed, here: indexes, triggers,
// roles, publications and the migrations applied (the platform's sql/ and
// the user's MIGRATIONS_DIR). Indexes and triggers are shown one schema at a
// time (?schema=, public first; the platform's own schemas hold hundreds).
import { useSearchParams } from 'react-router';
import { api, must, ref } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { ScrollArea } from '../../components/ScrollArea.tsx';

type Section = 'indexes' | 'triggers' | 'roles' | 'publications' | 'migrations';
/** Rows whose first cell is `schema.table` when `bySchema`. */
type Shown = { title: string; head: string[]; rows: string[][]; bySchema?: boolean };

const yes = (b: boolean) => (b ? 'yes' : 'no');

async function load(section: Section): Promise<Shown> {
  const path = { params: { path: { ref: ref() } } };
  switch (section) {
    case 'indexes': {
      const list = await must(api.GET('/api/platform/pg-meta/{ref}/indexes', path));
      return { title: 'Indexes', head: ['Table', 'Index', 'Columns', 'Unique', 'Size', 'Scans', 'Definition'], rows: list.map((i) => [`${i.schema}.${i.table}`, i.name, i.columns.join(', '), yes(i.is_unique), i.size, String(i.scans), i.definition]), bySchema: true };
    }
    case 'triggers': {
      const list = await must(api.GET('/api/platform/pg-meta/{ref}/triggers', path));
      return { title: 'Triggers', head: ['Table', 'Trigger', 'When', 'Events', 'Function', 'Enabled'], rows: list.map((t) => [`${t.schema}.${t.table}`, t.name, `${t.activation} ${t.orientation}`, t.events.join(', '), `${t.function_schema}.${t.function_name}`, t.enabled_mode]), bySchema: true };
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

const schemaOf = (row: string[]) => row[0]!.slice(0, row[0]!.indexOf('.'));

export function CatalogueList({ section }: { section: Section }) {
  const data = useAsync(() => load(section), [section]);
  const [params, setParams] = useSearchParams();
  const schema = params.get('schema') ?? 'public';
  const schemas = [...new Set((data.value?.rows ?? []).map(schemaOf))].sort();
  const rows = data.value?.bySchema ? data.value.rows.filter((r) => schemaOf(r) === schema) : data.value?.rows ?? [];
  return (
    <>
      <PageHeader title={data.value?.title ?? section}>
        {data.value?.bySchema && (
          <label>Schema
            <select value={schema} onChange={(e) => setParams({ schema: e.target.value })}>
              {[...new Set(['public', ...schemas])].map((name) => <option key={name} value={name}>{name}</option>)}
            </select>
          </label>
        )}
      </PageHeader>
      <ErrorNote error={data.error} />
      {data.loading && !data.value ? <Loading what={section} /> : data.value && (
        <ScrollArea label={data.value.title}>
          <table className="list-table">
            <caption className="sr-only">{data.value.title}</caption>
            <thead><tr>{data.value.head.map((h) => <th key={h} scope="col">{h}</th>)}</tr></thead>
            <tbody>
              {rows.map((r, i) => <tr key={i}>{r.map((cell, j) => <td key={j} className={j === r.length - 1 && section === 'indexes' ? 'mono small' : undefined}>{cell}</td>)}</tr>)}
              {rows.length === 0 && <tr><td colSpan={data.value.head.length} className="muted">None{data.value.bySchema ? ` in ${schema}` : ''}.</td></tr>}
            </tbody>
          </table>
        </ScrollArea>
      )}
    </>
  );
}
