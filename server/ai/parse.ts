// Input at the edge: one zod schema per route, and the first problem as a
// 400 VALIDATION_ERROR naming the field.
import type { z } from 'zod';
import { aiErrors } from './errors.ts';

export function parse<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  if (input === undefined) throw aiErrors.validation('A JSON body is required');
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  throw aiErrors.validation(`${where}${issue.message}`);
}
