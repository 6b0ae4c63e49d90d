// Input at the edge: one zod schema per route, and the first problem as a
// 400 VALIDATION_ERROR naming the field.
import type { z } from 'zod';
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

/** An integer query parameter from min to max; absent, the fallback (400 naming it otherwise). */
export function intParam(raw: unknown, what: string, min: number, max: number, fallback: number): number {
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || Number(raw) < min) throw aiErrors.validation(`${what} must be an integer of ${min} or more`);
  if (Number(raw) > max) throw aiErrors.validation(`${what} must be at most ${max}`);
  return Number(raw);
}
