// hybrid: the vector and BM25 lists fused. `weighted` (the default) brings
// each list to [0, 1] before weighting it (vector_weight for the vector
// score, the rest for BM25), so neither list wins by the size of its numbers
// (Bruch et al., 2022): BM25 divided by the list's maximum (a match stays
// above 0, where every non-match is), cosine mapped from [-1, 1] to [0, 1].
// Min-max scaling was not kept: it put the weakest match at 0, level with
// chunks that did not match at all. So with vector_weight 0 hybrid ranks
// exactly as full_text, with 1 exactly as vector_search, and in between a
// chunk never falls below one that is worse on both signals (a candidate at
// cosine -1 ties with a chunk the vector list did not return).
// `rrf` adds weight / (60 + rank) from each list.
import type { Scored } from './types.ts';

const RRF_K = 60;

/** BM25 scores (positive for a match) over their maximum: (0, 1]. */
export function byMaximum(items: Scored[]): Map<string, number> {
  const hi = Math.max(0, ...items.map((i) => i.score));
  return new Map(items.map((i) => [i.id, hi > 0 ? Math.max(0, i.score) / hi : 1]));
}

/** Cosine similarities from [-1, 1] to [0, 1]. */
export function fromCosine(items: Scored[]): Map<string, number> {
  return new Map(items.map((i) => [i.id, (Math.min(1, Math.max(-1, i.score)) + 1) / 2]));
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
    const nv = fromCosine(vector);
    const nt = byMaximum(text);
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
