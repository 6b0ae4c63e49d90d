// Hybrid fusion's properties over random score lists (AI conformance item 4):
// with vector_weight 0 the fused order is exactly full_text's, with 1 exactly
// vector_search's, and in between no chunk falls below one that is worse on
// both signals. Min-max scaling broke the first: the weakest match fell to
// 0, level with non-matches. RRF keeps its own test (knowledge-bases.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bestOf, fuse } from '../../server/ai/knowledge/retrieval/hybrid.ts';
import type { Scored } from '../../server/ai/knowledge/retrieval/types.ts';

/** A small deterministic generator (mulberry32), so a failure can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Two lists over a shared pool of ids: vector cosines in (-1, 1], BM25 scores > 0, some ids in one list only, ties included. */
function lists(seed: number): { vector: Scored[]; text: Scored[] } {
  const r = random(seed);
  const ids = Array.from({ length: 5 + Math.floor(r() * 40) }, (_, i) => `c${String(i).padStart(3, '0')}`);
  const vector: Scored[] = [];
  const text: Scored[] = [];
  for (const id of ids) {
    if (r() < 0.7) vector.push({ id, score: r() < 0.1 ? 0.5 : Math.min(1, -0.999 + r() * 1.999) });
    if (r() < 0.6) text.push({ id, score: r() < 0.1 ? 3 : 0.01 + r() * 20 });
  }
  const byScore = (a: Scored, b: Scored) => b.score - a.score || (a.id < b.id ? -1 : 1);
  return { vector: vector.sort(byScore), text: text.sort(byScore) };
}

const SEEDS = Array.from({ length: 500 }, (_, i) => i + 1);

describe('hybrid fusion (weighted)', () => {
  it('ranks exactly as full_text with vector_weight 0: every match above every non-match, in BM25 order', () => {
    for (const seed of SEEDS) {
      const { vector, text } = lists(seed);
      const fused = fuse(vector, text, { weight: 0, fusion: 'weighted' }).map((x) => x.id);
      assert.deepEqual(fused.slice(0, text.length), text.map((x) => x.id), `seed ${seed}`);
    }
  });

  it('ranks exactly as vector_search with vector_weight 1', () => {
    for (const seed of SEEDS) {
      const { vector, text } = lists(seed);
      const fused = fuse(vector, text, { weight: 1, fusion: 'weighted' }).map((x) => x.id);
      assert.deepEqual(fused.slice(0, vector.length), vector.map((x) => x.id), `seed ${seed}`);
    }
  });

  it('never ranks a chunk below one that is worse on both signals', () => {
    for (const seed of SEEDS) {
      const { vector, text } = lists(seed);
      const v = new Map(vector.map((x) => [x.id, x.score]));
      const t = new Map(text.map((x) => [x.id, x.score]));
      const weight = random(seed * 7)();
      const fused = fuse(vector, text, { weight, fusion: 'weighted' });
      const place = new Map(fused.map((x, i) => [x.id, i]));
      // Absent from a list is worse than any score in it.
      const vs = (id: string) => v.get(id) ?? -Infinity;
      const ts = (id: string) => t.get(id) ?? -Infinity;
      for (const a of fused) {
        for (const b of fused) {
          if (vs(a.id) > vs(b.id) && ts(a.id) > ts(b.id)) assert.ok(place.get(a.id)! < place.get(b.id)!, `seed ${seed}, weight ${weight}: ${a.id} is better on both than ${b.id}`);
        }
      }
    }
  });

  it('keeps scores within [0, 1]', () => {
    for (const seed of SEEDS.slice(0, 50)) {
      const { vector, text } = lists(seed);
      for (const x of fuse(vector, text, { weight: 0.3, fusion: 'weighted' })) assert.ok(x.score >= 0 && x.score <= 1, `seed ${seed}: ${x.score}`);
    }
  });

  it('adds weight / (60 + rank) from each list with rrf', () => {
    const vector = [{ id: 'a', score: 0.9 }, { id: 'b', score: 0.5 }];
    const text = [{ id: 'b', score: 12 }, { id: 'c', score: 3 }];
    const fused = fuse(vector, text, { weight: 0.25, fusion: 'rrf' });
    const score = new Map(fused.map((x) => [x.id, x.score]));
    assert.ok(Math.abs(score.get('a')! - 0.25 / 61) < 1e-15);
    assert.ok(Math.abs(score.get('b')! - (0.25 / 62 + 0.75 / 61)) < 1e-15);
    assert.ok(Math.abs(score.get('c')! - 0.75 / 62) < 1e-15);
    assert.deepEqual(fused.map((x) => x.id), ['b', 'c', 'a']);
  });

  it('merges several queries\' lists by each item\'s best score, ties by id', () => {
    assert.deepEqual(bestOf([[{ id: 'b', score: 0.2 }, { id: 'a', score: 0.5 }], [{ id: 'b', score: 0.5 }, { id: 'c', score: 0.1 }]]),
      [{ id: 'a', score: 0.5 }, { id: 'b', score: 0.5 }, { id: 'c', score: 0.1 }]);
  });
});
