// Request bodies of the identity service are checked with zod; the first
// problem becomes GoTrue's 400 validation_failed.
import { z } from 'zod';
import { ApiError } from '../errors.ts';

export function parse<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body ?? {});
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new ApiError('invalid_request', `${issue.path.join('.') || 'body'}: ${issue.message}`, { code: 'validation_failed' });
  }
  return result.data;
}
