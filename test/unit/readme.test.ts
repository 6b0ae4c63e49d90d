// The README a newcomer reads first, and the manuals under docs/ it points
// to: every status row says what is built and links to its manual; every
// link between them lands on a file and a heading that exist (GitHub's
// anchors: lower case, punctuation dropped, spaces to dashes); and every
// path in the "where behaviour lives" table exists, so the table cannot
// point at a file that moved.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const pages = ['README.md', ...readdirSync(path.join(root, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f))];

/** GitHub's anchor for a heading's text. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors of a page's headings (outside code blocks). */
function anchors(page: string): Set<string> {
  const out = new Set<string>();
  let code = false;
  for (const line of readFileSync(path.join(root, page), 'utf8').split('\n')) {
    if (line.startsWith('```')) code = !code;
    else if (!code && /^#{1,6} /.test(line)) out.add(anchorOf(line.replace(/^#+ /, '')));
  }
  return out;
}

describe('README and docs', () => {
  it('link only to pages and headings that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      // Links in code (fenced blocks, `inline`) are examples, not links.
      const text = readFileSync(path.join(root, page), 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const linked = file === '' ? page : path.join(path.dirname(page), file);
        if (!existsSync(path.join(root, linked))) broken.push(`${page}: ${target} (no such file)`);
        else if (anchor && linked.endsWith('.md') && !anchors(linked).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('has a status row per surface, each done and linked, none stale', () => {
    const table = readme.slice(readme.indexOf('| surface | path | status |'));
    const lines = table.split('\n').slice(2);
    const rows = lines.slice(0, lines.findIndex((l) => !l.startsWith('|')));
    assert.ok(rows.length >= 10, `${rows.length} rows`);
    for (const row of rows) {
      assert.doesNotMatch(row, /not yet|in progress/i, row);
      const status = row.split('|').at(-2)!;
      assert.match(status, /done/, row);
    }
    for (const surface of ['knowledge bases', 'agents', 'sources', 'workflows', 'copilot']) assert.ok(rows.some((r) => r.includes(surface)), surface);
  });

  it('says where each resource\'s behaviour lives, in files that exist', () => {
    const table = readme.slice(readme.indexOf('| resource | routes | store | migration | pgTAP | tests |'));
    const lines = table.split('\n').slice(2);
    const rows = lines.slice(0, lines.findIndex((l) => !l.startsWith('|')));
    assert.ok(rows.length >= 20, `${rows.length} rows`);
    const missing: string[] = [];
    for (const row of rows) {
      const cells = row.split('|').slice(2, -1).map((c) => c.trim());
      assert.equal(cells.length, 5, row);
      for (const cell of cells) {
        const file = /^`([^`]+)`$/.exec(cell)?.[1];
        if (!file || !existsSync(path.join(root, file))) missing.push(`${row.split('|')[1]!.trim()}: ${cell}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('stays an overview: the manuals live in docs/', () => {
    assert.ok(readme.split('\n').length < 300, `${readme.split('\n').length} lines`);
  });
});
