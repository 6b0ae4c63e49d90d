// A workflow id from the path: anything but a UUID names no workflow (404).
import type { Request } from 'express';
import { aiErrors } from '../../errors.ts';
import { UUID } from '../../parse.ts';


export function workflowIdOf(req: Request): string {
  const id = req.params.id;
  if (typeof id !== 'string' || !UUID.test(id)) throw aiErrors.workflowNotFound();
  return id.toLowerCase();
}
