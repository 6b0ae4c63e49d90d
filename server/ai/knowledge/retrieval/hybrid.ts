// hybrid: the vector and BM25 lists fused. `weighted` (the default) scales
// each list to [0, 1] by its own minimum and maximum before weighting it
// (vector_weight for the vector score, the rest for BM25), so neither list
// wins by the size of its numbers (Bruch et al., 2022); `rrf` adds
// weight / (60 + rank) from each list.
import type { Scored } from './types.ts';

const RRF_K = 60;

function minMax(items: Scored[]): Map<string, number> {
  const scores = items.map((i) => i.score);
  const lo = Math.min(...scores);
  const hi = Math.max(...scores);
  return new Map(items.map((i) => [i.id, hi > lo ? (i.score - lo) / (hi - lo) : 1]));
}

export function fuse(vector: Scored[], text: Scored[], opts: { weight: number; fusion: 'weighted' | 'rrf' }): Scored[] {
  const w = opts.weight;
  const ids = new Set([...vector.map((i) => i.id), ...text.map((i) => i.id)]);
  let score: (id: string) => number;
  if (opts.fusion === 'rrf') {
    const rank = (list: Scored[]) => new Map(list.map((i, n) => [i.id, n + 1]));
    const rv = rank(vector);
    const rt = rank(text);
    score = (id) => (rv.has(id) ? w / (RRF_K + rv.get(id)!) : 0) + (rt.has(id) ? (1 - w) / (RRF_K + rt.get(id)!) : 0);
  } else {
    const nv = minMax(vector);
    const nt = minMax(text);
    score = (id) => w * (nv.get(id) ?? 0) + (1 - w) * (nt.get(id) ?? 0);
  }
  return [...ids].map((id) => ({ id, score: score(id) })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}

/** Several queries' lists as one: each item's best score. */
export function bestOf(lists: Scored[][]): Scored[] {
  const best = new Map<string, number>();
  for (const list of lists) for (const i of list) best.set(i.id, Math.max(best.get(i.id) ?? -Infinity, i.score));
  return [...best].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}
