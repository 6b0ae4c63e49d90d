// Request bodies of the identity service are checked with zod; the first
// problem becomes GoTrue's 400 validation_failed.
import { z } from 'zod';
import { authErrors } from './errors.ts';

export function parse<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body ?? {});
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw authErrors.validation(`${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  return result.data;
}
