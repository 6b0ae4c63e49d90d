// A package loaded on first use (its CommonJS build), so a process that never
// needs it never pays for it: the tokenizer's tables alone are ~57 MB of RSS,
// and an idle API server should not hold them.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function lazy<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
