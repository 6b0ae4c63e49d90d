// Input checked with zod at the edge of every surface: the first problem,
// worded as "<field>: <what is wrong>", becomes the surface's own 400.
import type { z } from 'zod';

/** The value `schema` accepts, or `fail(message)` thrown for its first problem. */
export function validate<T extends z.ZodType>(schema: T, input: unknown, fail: (message: string) => Error): z.infer<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw fail(`${issue.path.join('.') || 'body'}: ${issue.message}`);
}
