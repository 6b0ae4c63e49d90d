// Input at the edge: one zod schema per route, and the first problem as a
// 400 VALIDATION_ERROR naming the field.
import { z } from 'zod';
import { validate } from '../validation.ts';
import { aiErrors } from './errors.ts';

export function parse<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  if (input === undefined) throw aiErrors.validation('A JSON body is required');
  return validate(schema, input, (message) => aiErrors.validation(message.replace(/^body: /, '')));
}

/** A resource id: a UUID. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id from the path, lower-cased; anything but a UUID names nothing (404 naming `what`). */
export function idOf(raw: unknown, what: string): string {
  if (typeof raw !== 'string' || !UUID.test(raw)) throw aiErrors.notFound(what);
  return raw.toLowerCase();
}

/** An integer in the query string from min to max (an absent one is left to `.default` or `.optional`). */
export function queryInt(what: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  const rule = `${what} must be an integer of ${min} or more`;
  // Coerced, so the document says integer; an empty or non-numeric value is refused first (Number('') is 0).
  const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `${min} to ${max}`;
  return z.string({ error: rule }).regex(/^\d+$/, rule).meta({ description: `An integer, ${range}` }).pipe(z.coerce.number<string>().int(rule).min(min, rule).max(max, `${what} must be at most ${max}`));
}

/** One of `allowed` in the query string; empty counts as absent. */
export function queryChoice<const T extends readonly [string, ...string[]]>(what: string, allowed: T) {
  const rule = `${what} must be one of ${allowed.join(', ')}`;
  return z.string({ error: rule }).refine((v) => v === '' || allowed.includes(v), rule).meta({ enum: [...allowed] })
    .transform((v) => (v === '' ? undefined : (v as T[number]))).optional();
}
