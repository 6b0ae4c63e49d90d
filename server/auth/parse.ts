// Request bodies of the identity service are checked with zod; the first
// problem becomes GoTrue's 400 validation_failed.
import type { z } from 'zod';
import { validate } from '../validation.ts';
import { authErrors } from './errors.ts';

export function parse<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  return validate(schema, body ?? {}, authErrors.validation);
}
