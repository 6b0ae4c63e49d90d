// The AI surface's JSON bodies: the platform's one parser (server/json-body.ts),
// its depth refusal worded in this surface's catalogue (VALIDATION_ERROR).
import type { RequestHandler } from 'express';
import { jsonBody as platformJsonBody, tooDeepMessage } from '../json-body.ts';
import { aiErrors } from './errors.ts';

export function jsonBody(opts: { limit: string }): RequestHandler {
  return platformJsonBody({ limit: opts.limit, tooDeep: (max) => aiErrors.validation(tooDeepMessage(max)) });
}
