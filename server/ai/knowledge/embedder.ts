// Embeddings for indexing and search: through the model router (any
// OpenAI-compatible endpoint, a self-hosted one included, by base URL), in
// requests bounded by EMBEDDING_MAX_TOKENS_PER_BATCH, or `local/hash`: a
// lexical embedder (hashed words and word pairs) for tests and demos that
// needs no provider. It matches words, not meaning: never a semantic model.
// Every vector is returned at unit length, so a dot product is the cosine.
import { lazy } from '../runtime/lazy.ts';

const tokenizer = lazy<typeof import('gpt-tokenizer')>('gpt-tokenizer');
const encode = (text: string) => tokenizer().encode(text);
import type { ModelRouter } from '../providers/router.ts';
import type { Settings } from '../settings/accessor.ts';
import type { UsageContext } from '../usage/ledger.ts';

export const LOCAL_HASH = 'local/hash';
const LOCAL_DIMS = 256;
/** Inputs per request: OpenAI's own ceiling. */
const MAX_INPUTS = 2048;
/** An input longer than this is cut (embedding models read about 8k tokens). */
const MAX_INPUT_TOKENS = 8000;

export type Embed = (model: string, texts: string[], context: UsageContext, signal?: AbortSignal) => Promise<Float32Array[]>;

function unit(v: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(v);
  let norm = 0;
  for (let i = 0; i < out.length; i++) norm += out[i]! * out[i]!;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < out.length; i++) out[i]! /= norm;
  return out;
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The lexical `local/hash` vector: words and adjacent word pairs hashed into signed buckets. */
export function hashEmbedding(text: string): Float32Array {
  const v = new Float32Array(LOCAL_DIMS);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const add = (feature: string, weight: number) => {
    const h = fnv1a(feature);
    v[h % LOCAL_DIMS]! += (h & 0x80000000 ? -1 : 1) * weight;
  };
  words.forEach((w, i) => {
    add(w, 1);
    if (i > 0) add(`${words[i - 1]} ${w}`, 0.5);
  });
  return unit(v);
}

export function embedder(models: ModelRouter, settings: Settings): Embed {
  return async (model, texts, context, signal) => {
    if (model === LOCAL_HASH) return texts.map(hashEmbedding);
    const budget = await settings.number('EMBEDDING_MAX_TOKENS_PER_BATCH');
    const out: Float32Array[] = [];
    let batch: string[] = [];
    let tokens = 0;
    const send = async () => {
      if (!batch.length) return;
      const r = await models.embed({ model, input: batch, context, ...(signal ? { signal } : {}) });
      out.push(...r.embeddings.map(unit));
      batch = [];
      tokens = 0;
    };
    for (const text of texts) {
      const ids = encode(text);
      const input = ids.length > MAX_INPUT_TOKENS ? text.slice(0, Math.floor((text.length * MAX_INPUT_TOKENS) / ids.length)) : text;
      const n = Math.min(ids.length, MAX_INPUT_TOKENS);
      if (batch.length && (tokens + n > budget || batch.length >= MAX_INPUTS)) await send();
      batch.push(input || ' ');
      tokens += n;
    }
    await send();
    return out;
  };
}

/** The sign bits of a vector as a '0101…' string (SQL casts it to bit varying). */
export function signCode(v: Float32Array): string {
  let s = '';
  for (let i = 0; i < v.length; i++) s += v[i]! > 0 ? '1' : '0';
  return s;
}

/** Little-endian float32 bytes, as ai.kb_vectors keeps them. */
export function vectorBytes(v: Float32Array): Buffer {
  const b = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) b.writeFloatLE(v[i]!, i * 4);
  return b;
}

export function vectorOf(bytes: Buffer): Float32Array {
  const v = new Float32Array(bytes.length / 4);
  for (let i = 0; i < v.length; i++) v[i] = bytes.readFloatLE(i * 4);
  return v;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}
