// Which migration owns a function (sql/CONVENTIONS.md): a function stated in
// more than one migration must be listed there with its newest file, so a
// reader changing it reads the body that is in force, not the first one.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const sqlDir = new URL('../../sql/', import.meta.url);
const conventions = readFileSync(new URL('CONVENTIONS.md', sqlDir), 'utf8');

/** Each function's migrations, in the order they apply. */
function statements(): Map<string, string[]> {
  const files = readdirSync(sqlDir).filter((f) => /^\d{4}_.*\.sql$/.test(f)).sort();
  const by = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(new URL(file, sqlDir), 'utf8');
    for (const m of text.matchAll(/create (?:or replace )?function ([a-z_]+\.[a-z_0-9]+)\s*\(/gi)) {
      const name = m[1]!.toLowerCase();
      const list = by.get(name) ?? [];
      if (!list.includes(file)) list.push(file);
      by.set(name, list);
    }
  }
  return by;
}

/** The owner list's bullets, each as one line of text. */
function bullets(): string[] {
  const section = conventions.slice(conventions.indexOf('**Which migration owns a function**'), conventions.indexOf('## Names'));
  return section.split(/\n  - /).slice(1).map((b) => b.replace(/\s+/g, ' '));
}

describe('function owners in sql/CONVENTIONS.md', () => {
  it('names the newest migration of every function stated more than once', () => {
    const restated = [...statements()].filter(([, files]) => files.length > 1);
    assert.ok(restated.length >= 20, `${restated.length} restated functions found: the scan must see the migrations`);
    const list = bullets();
    const wrong = restated
      .filter(([name, files]) => !list.some((b) => b.includes(`\`${name}\``) && b.includes(`\`${files.at(-1)!}\``)))
      .map(([name, files]) => `${name}: owned by ${files.at(-1)}`);
    assert.deepEqual(wrong, []);
  });
});
