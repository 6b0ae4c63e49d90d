// The calls a client makes to a table or function, with this project's URL
// and anon key filled in: supabase-js and curl, for reading, adding, changing
// and deleting rows, and calling a function.
export type Snippet = { title: string; js: string; curl: string };

const q = (s: string) => JSON.stringify(s);

export function tableSnippets(api: string, anon: string, schema: string, table: string, columns: string[]): Snippet[] {
  const from = schema === 'public' ? `supabase.from(${q(table)})` : `supabase.schema(${q(schema)}).from(${q(table)})`;
  const profile = schema === 'public' ? '' : ` \\\n  -H "Accept-Profile: ${schema}" -H "Content-Profile: ${schema}"`;
  const first = columns[0] ?? 'id';
  const sample = Object.fromEntries(columns.slice(0, 3).map((c) => [c, 'value']));
  const url = `${api}/rest/v1/${table}`;
  const keys = `-H "apikey: ${anon}" \\\n  -H "Authorization: Bearer ${anon}"`;
  return [
    { title: 'Read rows', js: `const { data, error } = await ${from}\n  .select(${q(columns.join(','))})\n  .limit(10)`, curl: `curl '${url}?select=${columns.join(',')}&limit=10' \\\n  ${keys}${profile}` },
    { title: 'Filter rows', js: `const { data, error } = await ${from}\n  .select('*')\n  .eq(${q(first)}, 'value')`, curl: `curl '${url}?${first}=eq.value' \\\n  ${keys}${profile}` },
    { title: 'Add a row', js: `const { data, error } = await ${from}\n  .insert(${JSON.stringify(sample)})\n  .select()`, curl: `curl -X POST '${url}' \\\n  ${keys} \\\n  -H "Content-Type: application/json" -H "Prefer: return=representation"${profile} \\\n  -d '${JSON.stringify(sample)}'` },
    { title: 'Change rows', js: `const { data, error } = await ${from}\n  .update(${JSON.stringify(sample)})\n  .eq(${q(first)}, 'value')\n  .select()`, curl: `curl -X PATCH '${url}?${first}=eq.value' \\\n  ${keys} \\\n  -H "Content-Type: application/json"${profile} \\\n  -d '${JSON.stringify(sample)}'` },
    { title: 'Delete rows', js: `const { error } = await ${from}\n  .delete()\n  .eq(${q(first)}, 'value')`, curl: `curl -X DELETE '${url}?${first}=eq.value' \\\n  ${keys}${profile}` },
  ];
}

export function functionSnippets(api: string, anon: string, schema: string, name: string, args: string[]): Snippet[] {
  const body = Object.fromEntries(args.map((a) => [a, 'value']));
  const rpc = schema === 'public' ? `supabase.rpc(${q(name)}, ${JSON.stringify(body)})` : `supabase.schema(${q(schema)}).rpc(${q(name)}, ${JSON.stringify(body)})`;
  return [{
    title: 'Call the function', js: `const { data, error } = await ${rpc}`,
    curl: `curl -X POST '${api}/rest/v1/rpc/${name}' \\\n  -H "apikey: ${anon}" \\\n  -H "Authorization: Bearer ${anon}" \\\n  -H "Content-Type: application/json"${schema === 'public' ? '' : ` -H "Content-Profile: ${schema}"`} \\\n  -d '${JSON.stringify(body)}'`,
  }];
}
