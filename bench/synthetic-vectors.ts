// Synthetic vectors shaped like text embeddings rather than uniform noise (on
// which no quantisation keeps neighbours): 64 topics, 1,000 subtopics, each
// vector its subtopic's direction plus its topic's plus noise, at unit
// length. Seeded, so every run measures the same data.
export function syntheticVectors(dims: number, noise: number, seed = 42) {
  const TOPICS = 64;
  const SUBTOPICS = 1000;
  const uniform = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) + 0.5) / 4294967296;
  const gaussian = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  const direction = () => Float32Array.from({ length: dims }, gaussian);
  const topics = Array.from({ length: TOPICS }, direction);
  const subtopics = Array.from({ length: SUBTOPICS }, (_, i) => ({ v: direction(), topic: topics[i % TOPICS]! }));
  return (): Float32Array => {
    const s = subtopics[Math.floor(uniform() * SUBTOPICS)]!;
    const v = new Float32Array(dims);
    let norm = 0;
    for (let i = 0; i < dims; i++) {
      v[i] = 0.6 * s.topic[i]! + 0.8 * s.v[i]! + noise * gaussian();
      norm += v[i]! * v[i]!;
    }
    norm = Math.sqrt(norm);
    for (let i = 0; i < dims; i++) v[i]! /= norm;
    return v;
  };
}

/** The p-th quantile of xs (0 < p < 1). */
export const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
