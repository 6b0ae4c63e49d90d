// GET /rest/v1/: the OpenAPI (Swagger 2.0) description PostgREST serves, from
// the schema cache, showing only what the caller's role may use (PostgREST's
// default "follow-privileges" mode).
import type { DbFunction, Relation } from './catalogue.ts';

function swaggerType(pgType: string): { type?: string; format: string; items?: object } {
  const t = pgType.replace(/\(.*\)/, '');
  if (t.endsWith('[]')) return { type: 'array', format: t, items: { type: swaggerType(t.slice(0, -2)).type ?? 'string' } };
  if (/^(smallint|integer|bigint)$/.test(t)) return { type: 'integer', format: t };
  if (/^(numeric|real|double precision)$/.test(t)) return { type: 'number', format: t };
  if (t === 'boolean') return { type: 'boolean', format: t };
  if (t === 'json' || t === 'jsonb') return { format: t };
  return { type: 'string', format: t };
}

export function openApi(opts: { url: string; schema: string; relations: Relation[]; functions: DbFunction[] }): object {
  const host = new URL(opts.url);
  const paths: Record<string, object> = { '/': { get: { tags: ['Introspection'], summary: 'OpenAPI description (this document)', responses: { 200: { description: 'OK' } } } } };
  const definitions: Record<string, object> = {};
  const rowFilter = (rel: Relation) => rel.columns.map((c) => ({ name: c.name, in: 'query', required: false, type: 'string', format: c.type, description: `Filter on ${c.name}: operator.value` }));
  const common = [
    { name: 'select', in: 'query', type: 'string', required: false, description: 'Columns and embedded resources' },
    { name: 'order', in: 'query', type: 'string', required: false },
    { name: 'limit', in: 'query', type: 'string', required: false },
    { name: 'offset', in: 'query', type: 'string', required: false },
    { name: 'Prefer', in: 'header', type: 'string', required: false },
  ];
  for (const rel of opts.relations) {
    definitions[rel.name] = {
      type: 'object',
      required: rel.columns.filter((c) => !c.nullable && !c.hasDefault).map((c) => c.name),
      properties: Object.fromEntries(rel.columns.map((c) => [c.name, { ...swaggerType(c.type), ...(rel.primaryKey.includes(c.name) ? { description: 'Note:\nThis is a Primary Key.<pk/>' } : {}) }])),
    };
    const body = { name: rel.name, in: 'body', required: false, schema: { $ref: `#/definitions/${rel.name}` } };
    const ok = { 200: { description: 'OK', schema: { type: 'array', items: { $ref: `#/definitions/${rel.name}` } } } };
    paths[`/${rel.name}`] = {
      get: { tags: [rel.name], parameters: [...rowFilter(rel), ...common], responses: { ...ok, 206: { description: 'Partial Content' } } },
      ...(rel.insertable
        ? {
            post: { tags: [rel.name], parameters: [body, { name: 'columns', in: 'query', type: 'string', required: false }, { name: 'Prefer', in: 'header', type: 'string', required: false }], responses: { 201: { description: 'Created' } } },
            patch: { tags: [rel.name], parameters: [...rowFilter(rel), body, { name: 'Prefer', in: 'header', type: 'string', required: false }], responses: { 204: { description: 'No Content' } } },
            delete: { tags: [rel.name], parameters: [...rowFilter(rel), { name: 'Prefer', in: 'header', type: 'string', required: false }], responses: { 204: { description: 'No Content' } } },
          }
        : {}),
    };
  }
  for (const fn of opts.functions) {
    paths[`/rpc/${fn.name}`] = {
      post: {
        tags: ['(rpc) ' + fn.name],
        parameters: [{
          name: 'args', in: 'body', required: true,
          schema: { type: 'object', required: fn.args.filter((a) => !a.hasDefault && a.name).map((a) => a.name), properties: Object.fromEntries(fn.args.filter((a) => a.name).map((a) => [a.name, swaggerType(a.type)])) },
        }],
        responses: { 200: { description: 'OK' } },
      },
    };
  }
  return {
    swagger: '2.0',
    info: { title: 'pgbase row REST', description: 'PostgREST-compatible API over the exposed schemas', version: '12' },
    host: host.host,
    basePath: '/rest/v1',
    schemes: [host.protocol.replace(':', '')],
    consumes: ['application/json', 'application/vnd.pgrst.object+json', 'text/csv'],
    produces: ['application/json', 'application/vnd.pgrst.object+json', 'text/csv'],
    paths,
    definitions,
  };
}
