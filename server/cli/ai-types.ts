// The Studio's client types for the AI surface (studio/src/api/ai/), from the
// /api document's AI paths. openapi-typescript writes one whole file; here it
// is cut by concept so no file grows past a reader's page and no schema is
// written twice:
//   <resource>.ts, <resource>-<part>.ts
//                            a resource's paths and their operations, by concept
//                            (`/api/agents/{id}/runs/...` is agents-runs), as many
//                            concepts to a file as fit, the first file named for
//                            the resource, the others for their first concept
//   schemas-<area>[-n].ts    the shared schemas and error answers, each written
//                            once, with the area that first uses it
//   components.ts            joins the schema files into the one `components`
//   index.ts                 joins the concepts into the one `paths`
// Cutting works on the generated text's members (openapi-typescript puts a
// member of `paths` and `operations` at two spaces, of `components.schemas`
// and `components.responses` at four, each ending with `;` at its indent).

type Member = { name: string; lines: string[] };

const MAX_LINES = 280;
const HEADER = ['// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json\'s AI paths. Do not edit by hand.'];

/** The members of a block: lines at `indent` close a member when they end with `;`; comments lead the member after them. */
function membersOf(lines: string[], indent: number): Member[] {
  const at = ' '.repeat(indent);
  const out: Member[] = [];
  let current: string[] = [];
  for (const line of lines) {
    if (line.trim() === '') continue;
    current.push(line);
    if (line.startsWith(at) && !line.startsWith(`${at} `) && line.trimEnd().endsWith(';')) {
      const head = current.find((l) => !/^\s*(\/\*\*|\*)/.test(l))!;
      out.push({ name: head.trim().replace(/^"?([^":]+)"?:.*$/, '$1'), lines: current });
      current = [];
    }
  }
  return out;
}

/** The lines between `opener` and the line closing it at the same indent. */
function blockAfter(text: string[], opener: string): string[] {
  const start = text.indexOf(opener);
  if (start < 0) throw new Error(`generated types: no "${opener}"`);
  const indent = opener.length - opener.trimStart().length;
  const close = text.findIndex((l, i) => i > start && l === `${' '.repeat(indent)}}${indent === 0 ? '' : ';'}`);
  return text.slice(start + 1, close);
}

/** A path's concept: its resource, and the first part after the resource's id (`/api/agents/{id}/runs/{runId}` → agents-runs). */
export function conceptOf(path: string): string {
  const parts = path.replace(/^\/api\//, '').split('/').filter((p) => p && !p.startsWith('{'));
  return parts.slice(0, 2).join('-').toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

/** A path's resource: its first part (`/api/ai-provider-keys/models` → ai-provider-keys). */
const resourceOf = (path: string) => conceptOf(path.split('/').slice(0, 3).join('/'));

/** Members packed into files of at most MAX_LINES, named `base`, `base-2`, ... */
function pack(members: Member[], base: string): Array<{ name: string; members: Member[] }> {
  const files: Array<{ name: string; members: Member[] }> = [];
  let size = Infinity;
  for (const m of members) {
    if (size + m.lines.length > MAX_LINES - 10) {
      files.push({ name: files.length === 0 ? base : `${base}-${files.length + 1}`, members: [] });
      size = 0;
    }
    files.at(-1)!.members.push(m);
    size += m.lines.length;
  }
  return files;
}

const module = (file: string) => file.replace(/[^A-Za-z0-9]/g, '_');
/** The import of `components` a file's lines need (none when they name no schema). */
const componentsImport = (lines: string[]) => (lines.some((l) => l.includes('components["')) ? ['import type { components } from \'./components.ts\';', ''] : []);

/** File name (without .ts) to its text. */
export async function aiTypeFiles(document: object): Promise<Map<string, string>> {
  const { default: openapiTS } = await import('openapi-typescript');
  const text = (await openapiTS(document as Parameters<typeof openapiTS>[0])).split('\n');
  const paths = membersOf(blockAfter(text, 'export interface paths {'), 2);
  const operations = new Map(membersOf(blockAfter(text, 'export interface operations {'), 2).map((m) => [m.name, m]));
  const components = blockAfter(text, 'export interface components {');
  const schemas = membersOf(blockAfter(components, '  schemas: {'), 4);
  const responses = membersOf(blockAfter(components, '  responses: {'), 4);

  // The concepts, each with its paths and the operations they name, kept in the order of their resource.
  type Unit = { concept: string; members: Member[]; size: number };
  const byResource = new Map<string, Unit[]>();
  for (const p of paths) {
    const mine = [...p.lines.join('\n').matchAll(/operations\["([^"]+)"\]/g)].map(([, op]) => operations.get(op!)!);
    const units = byResource.get(resourceOf(p.name)) ?? [];
    const unit = units.find((u) => u.concept === conceptOf(p.name)) ?? units[units.push({ concept: conceptOf(p.name), members: [], size: 0 }) - 1]!;
    unit.members.push({ name: 'path', lines: p.lines }, ...mine.map((o) => ({ name: 'op', lines: o.lines })));
    unit.size += p.lines.length + mine.reduce((n, o) => n + o.lines.length, 0);
    byResource.set(resourceOf(p.name), units);
  }
  // A resource's concepts share files up to MAX_LINES: the first is named for the resource, the others for their first concept.
  const files = new Map<string, string>();
  const conceptFiles: string[] = [];
  const areaOfFile = new Map<string, string>();
  for (const [resource, units] of [...byResource].sort(([a], [b]) => a.localeCompare(b))) {
    const chunks: Unit[][] = [];
    let size = Infinity;
    for (const u of units) {
      if (size + u.size > MAX_LINES - 10) {
        chunks.push([]);
        size = 0;
      }
      chunks.at(-1)!.push(u);
      size += u.size;
    }
    chunks.forEach((c, i) => {
      const name = i === 0 ? resource : c[0]!.concept;
      conceptFiles.push(name);
      areaOfFile.set(name, resource);
      const members = c.flatMap((u) => u.members);
      files.set(name, [...HEADER, ...componentsImport(members.flatMap((m) => m.lines)), 'export interface paths {', ...members.filter((m) => m.name === 'path').flatMap((m) => m.lines), '}', '',
        'export interface operations {', ...members.filter((m) => m.name === 'op').flatMap((m) => m.lines), '}', ''].join('\n'));
    });
  }

  // Each schema and error answer once, with the first concept (in order) whose operations reach it.
  const usedBy = (name: string, kind: 'schemas' | 'responses') => conceptFiles.find((f) => files.get(f)!.includes(`components["${kind}"]["${name}"]`)) ?? 'shared';
  const areaOf = (f: string) => areaOfFile.get(f) ?? f;
  const schemaFiles: string[] = [];
  for (const [kind, list] of [['schemas', schemas], ['responses', responses]] as const) {
    const byArea = new Map<string, Member[]>();
    for (const m of list) {
      const area = areaOf(usedBy(m.name, kind));
      byArea.set(area, [...(byArea.get(area) ?? []), m]);
    }
    for (const [area, members] of [...byArea].sort(([a], [b]) => a.localeCompare(b))) {
      for (const f of pack(members, `${kind}-${area}`)) {
        schemaFiles.push(f.name);
        files.set(f.name, [...HEADER, ...componentsImport(f.members.flatMap((m) => m.lines)), `export interface ${kind === 'schemas' ? 'Schemas' : 'Responses'} {`,
          ...f.members.flatMap((m) => m.lines.map((l) => l.slice(2))), '}', ''].join('\n'));
      }
    }
  }
  const imports = (names: string[]) => names.map((n) => `import type * as ${module(n)} from './${n}.ts';`);
  const of = (prefix: string, member: string) => schemaFiles.filter((f) => f.startsWith(prefix)).map((f) => `${module(f)}.${member}`).join(' & ') || 'never';
  files.set('components', [...HEADER, ...imports(schemaFiles), '',
    `export interface components {`, `  schemas: ${of('schemas-', 'Schemas')};`, `  responses: ${of('responses-', 'Responses')};`,
    '  parameters: never;', '  requestBodies: never;', '  headers: never;', '  pathItems: never;', '}', ''].join('\n'));
  files.set('index', [...HEADER, ...imports(conceptFiles), '', `export type paths = ${conceptFiles.map((f) => `${module(f)}.paths`).join(' & ')};`,
    'export type { components } from \'./components.ts\';', ''].join('\n'));
  return new Map([...files].map(([name, body]) => [`${name}.ts`, body]));
}
