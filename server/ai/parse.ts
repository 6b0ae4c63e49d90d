// Input at the edge: one zod schema per route, and the first problem as a
// 400 VALIDATION_ERROR naming the field.
import type { z } from 'zod';
import { validate } from '../validation.ts';
import { aiErrors } from './errors.ts';

export function parse<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  if (input === undefined) throw aiErrors.validation('A JSON body is required');
  return validate(schema, input, (message) => aiErrors.validation(message.replace(/^body: /, '')));
}
