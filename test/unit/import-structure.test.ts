// The import structure issue 28 asks for, kept: no import circle anywhere in
// server/ (type-only imports included: they tie modules as tightly for a
// reader), and nothing in agents/ or sources/ reaching into workflows/
// (what several features share lives in server/ai/runtime/). Inside
// server/ai (issue 46): no two folders import each other (a run's life has
// one home, runs/, below the kinds that run: agents/, orchestrations/,
// workflows/, openai-compat/, mcp/; the vocabulary of its steps, steps/,
// below sessions/ and runs/), and no folder imports the files above them
// (index.ts, workflow-agents.ts): only the foundations beside them.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const server = path.join(root, 'server');

/** Each server/ file's relative imports inside server/, as paths from the project root. */
function importGraph(): Map<string, string[]> {
  const files = readdirSync(server, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => path.join(server, f));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+\.ts)'/g)]
      .map((m) => path.resolve(path.dirname(file), m[1]!))
      .filter((t) => t.startsWith(server + path.sep));
    graph.set(path.relative(root, file), targets.map((t) => path.relative(root, t)));
  }
  return graph;
}

/** Every strongly connected group of more than one file (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import structure of server/', () => {
  const graph = importGraph();

  it('reads the whole tree', () => {
    assert.ok(graph.size > 200, `${graph.size} files`);
    assert.ok([...graph.values()].flat().length > 500, 'imports are found');
  });

  it('has no import circle, type-only imports included', () => {
    assert.deepEqual(circles(graph), []);
  });

  it('finds a circle when there is one (the check itself)', () => {
    assert.deepEqual(circles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]])), [['a', 'b', 'c']]);
  });

  it('has no two folders of server/ai importing each other', () => {
    const folderOf = (f: string) => /^server\/ai\/([^/]+)\//.exec(f)?.[1];
    const edges = new Set<string>();
    for (const [f, ts] of graph) {
      const from = folderOf(f);
      if (!from) continue;
      for (const t of ts) {
        const to = folderOf(t);
        if (to && to !== from) edges.add(`${from} -> ${to}`);
      }
    }
    const mutual = [...edges].filter((e) => {
      const [a, b] = e.split(' -> ');
      return a! < b! && edges.has(`${b} -> ${a}`);
    });
    assert.deepEqual(mutual, []);
  });

  it('has no server/ai folder importing the files above it (only the foundations beside them)', () => {
    const foundations = new Set(['actor.ts', 'auth.ts', 'body.ts', 'calls.ts', 'errors.ts', 'failures.ts', 'owned.ts', 'parse.ts', 'pooled.ts', 'schema-check.ts'].map((f) => `server/ai/${f}`));
    const upward = [...graph].filter(([f]) => /^server\/ai\/[^/]+\//.test(f))
      .flatMap(([f, ts]) => ts.filter((t) => /^server\/ai\/[^/]+\.ts$/.test(t) && !foundations.has(t)).map((t) => `${f} -> ${t}`));
    assert.deepEqual(upward, []);
  });

  it('keeps agents/ and sources/ out of workflows/', () => {
    const reaching = [...graph].filter(([f]) => /^server\/ai\/(agents|sources)\//.test(f))
      .flatMap(([f, ts]) => ts.filter((t) => t.startsWith('server/ai/workflows/')).map((t) => `${f} -> ${t}`));
    assert.deepEqual(reaching, []);
  });
});
