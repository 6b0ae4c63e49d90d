// The README a newcomer reads first (AI conformance item 8): every status
// row says what is built (no "not yet", no "in progress") and links to a
// section, and every link inside the README lands on a heading (GitHub's
// anchors: lower case, punctuation dropped, spaces to dashes).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** GitHub's anchor for a heading's text. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

describe('README', () => {
  const anchors = new Set(readme.split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => anchorOf(l.replace(/^#+ /, ''))));

  it('links only to headings that exist', () => {
    const broken = [...readme.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!).filter((a) => !anchors.has(a));
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
});
