// The evaluation maths of POST /api/knowledge-bases/{id}/evaluate
// (knowledge/evaluate.ts scoreRanking), checked on rankings worked out by
// hand: nDCG@10 with binary relevance, recall@k and reciprocal rank.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scoreRanking } from '../../server/ai/knowledge/evaluate.ts';

const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} ≠ ${expected}`);

describe('evaluation maths', () => {
  it('scores a perfect ranking 1 on every measure', () => {
    const s = scoreRanking(['a', 'b', 'x'], new Set(['a', 'b']), 10);
    close(s.ndcg, 1);
    close(s.recall, 1);
    close(s.rr, 1);
  });

  it('discounts a relevant item by log2 of its rank + 1', () => {
    // relevant at ranks 2 and 4: DCG = 1/log2(3) + 1/log2(5); ideal = 1 + 1/log2(3)
    const s = scoreRanking(['x', 'a', 'y', 'b'], new Set(['a', 'b']), 10);
    close(s.ndcg, (1 / Math.log2(3) + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3)));
    close(s.rr, 1 / 2);
  });

  it('counts recall within k and nDCG within 10 only', () => {
    const ranked = ['x1', 'x2', 'x3', 'a', ...Array.from({ length: 8 }, (_, i) => `y${i}`), 'b'];
    const s = scoreRanking(ranked, new Set(['a', 'b']), 3);
    close(s.recall, 0);
    close(scoreRanking(ranked, new Set(['a', 'b']), 4).recall, 0.5);
    close(s.ndcg, (1 / Math.log2(5)) / (1 + 1 / Math.log2(3)));
    close(s.rr, 1 / 4);
  });

  it('scores 0 when nothing relevant is found', () => {
    const s = scoreRanking(['x', 'y'], new Set(['a']), 10);
    assert.deepEqual(s, { ndcg: 0, recall: 0, rr: 0 });
  });
});
