// The one JSON body parser of every surface: a size limit, then a depth
// limit, both answered 400 in the surface's own shape (the body-parser
// errors and `bad_json` go through each surface's error shape as parse
// failures do). Bodies are walked with an explicit stack, so a body nested
// 100,000 deep is measured, not recursed into: code that recurses over a
// body later (JSON.stringify, node-pg's parameters, zod) never sees one.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { ApiError } from './errors.ts';

/** Objects and arrays nested deeper than this are refused on every surface. */
export const MAX_JSON_DEPTH = 64;

export const tooDeepMessage = (max: number) => `The JSON body is nested deeper than ${max} levels`;

/** Whether a parsed JSON value nests deeper than `max`. */
export function deeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * express.json with the depth limit. `tooDeep` words the refusal for a
 * surface whose catalogue has its own error (the AI surface's
 * VALIDATION_ERROR); by default it is a `bad_json` 400, as a body that
 * does not parse is.
 */
export function jsonBody(opts: { limit: string | number; type?: string | string[]; maxDepth?: number; tooDeep?: (max: number) => ApiError }): RequestHandler {
  const max = opts.maxDepth ?? MAX_JSON_DEPTH;
  const parse = express.json({ limit: opts.limit, ...(opts.type ? { type: opts.type } : {}) });
  const refusal = opts.tooDeep ?? ((m: number) => new ApiError('invalid_request', tooDeepMessage(m), { code: 'bad_json' }));
  return (req: Request, res: Response, next: NextFunction) => {
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      if (req.body !== undefined && deeperThan(req.body, max)) return next(refusal(max));
      next();
    });
  };
}
