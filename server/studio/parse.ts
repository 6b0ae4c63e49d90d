// Input at the control plane's edge: one zod schema per route, its first
// problem answered 400 as `<field>: <rule>` (the /api convention).
import { z } from 'zod';
import { studioErrors } from './errors.ts';

export function parseBody<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw studioErrors.invalid(issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message);
}

/** A resource id from the path: anything but a UUID names nothing (404 naming `what`). */
export function idParam(raw: unknown, what: string): string {
  const id = z.string().uuid().safeParse(raw);
  if (!id.success) throw studioErrors.notFound(what);
  return id.data;
}
