// One error catalogue across SQL and TypeScript (server/ai/errors.ts): every
// code an `ai` migration raises is in it with the status it is raised with,
// and no AI module words an error outside it. A code added to a migration
// without a catalogue entry fails here, naming the file.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AI_ERROR_CATALOGUE, catalogued, errorCatalogueMarkdown } from '../../server/ai/errors.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const sqlDir = path.join(root, 'sql');

/** Every (status, code) an `ai` migration raises: auth.raise_error(status, 'CODE', ...) and raise ... using errcode = 'PTnnn', hint = 'CODE'. */
function raisedCodes(): Array<{ file: string; status: number; code: string }> {
  const out: Array<{ file: string; status: number; code: string }> = [];
  for (const file of readdirSync(sqlDir).filter((f) => /^\d{4}_ai_.*\.sql$/.test(f))) {
    const text = readFileSync(path.join(sqlDir, file), 'utf8');
    for (const m of text.matchAll(/raise_error\(\s*(\d{3})\s*,\s*'([^']+)'/g)) out.push({ file, status: Number(m[1]), code: m[2]! });
    for (const m of text.matchAll(/errcode\s*=\s*'PT(\d{3})'\s*,\s*hint\s*=\s*'([^']+)'/g)) out.push({ file, status: Number(m[1]), code: m[2]! });
  }
  return out;
}

/** TypeScript files under a folder. */
function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => path.join(dir, f));
}

describe('AI error catalogue', () => {
  it('holds every code the ai migrations raise, with the status they raise it with', () => {
    const raised = raisedCodes();
    assert.ok(raised.length > 100, `${raised.length} raises found: the scan must see the migrations`);
    const missing = raised.filter((r) => catalogued(r.code)?.status !== r.status).map((r) => `${r.file}: ${r.status} ${r.code}`);
    assert.deepEqual(missing, []);
    for (const code of ['CONFLICT', 'APPROVAL_ALREADY_DECIDED', 'VERSION_NOT_FOUND']) assert.ok(raised.some((r) => r.code === code), `${code} is raised in SQL`);
  });

  it('groups codes as PostgREST does, each with a status and a meaning, no code twice', () => {
    assert.deepEqual(Object.keys(AI_ERROR_CATALOGUE), ['access', 'validation', 'provider', 'run', 'knowledge', 'approvals', 'server']);
    const seen = new Set<string>();
    for (const [group, codes] of Object.entries(AI_ERROR_CATALOGUE)) {
      for (const [code, entry] of Object.entries(codes)) {
        assert.ok(!seen.has(code), `${code} appears twice`);
        seen.add(code);
        assert.ok(entry.status >= 400 && entry.status < 600, `${group}.${code} status`);
        assert.ok(entry.meaning.length > 20, `${group}.${code} says what it means`);
      }
    }
  });

  it('is the only place an AI module words an error', () => {
    const aiDir = path.join(root, 'server', 'ai');
    // calls.ts rebuilds errors SQL raised (their code came from the catalogue through the migration).
    const allowed = new Set(['errors.ts', 'calls.ts'].map((f) => path.join(aiDir, f)));
    const offenders = sources(aiDir).filter((f) => !allowed.has(f) && /\bapiError\(/.test(readFileSync(f, 'utf8'))).map((f) => path.relative(root, f));
    assert.deepEqual(offenders, []);
  });

  it('is what docs/ai/errors.md says (npm run docs writes it)', () => {
    assert.equal(readFileSync(path.join(root, 'docs', 'ai', 'errors.md'), 'utf8'), errorCatalogueMarkdown());
  });
});
