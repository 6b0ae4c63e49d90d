// The one JSON body parser of the AI surface: a size limit, then a depth
// limit, both answered 400 in the surface's shape. Bodies are walked with an
// explicit stack, so a body nested 100,000 deep is measured, not recursed
// into (JSON.stringify of one would overflow the stack later).
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { aiErrors } from './errors.ts';

/** Objects and arrays nested deeper than this are refused (API_MAX_JSON_DEPTH). */
export const DEFAULT_MAX_DEPTH = 64;

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

export function jsonBody(opts: { limit: string; maxDepth?: number }): RequestHandler {
  const max = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
  const parse = express.json({ limit: opts.limit });
  return (req: Request, res: Response, next: NextFunction) => {
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      if (req.body !== undefined && deeperThan(req.body, max)) return next(aiErrors.validation(`The JSON body is nested deeper than ${max} levels`));
      next();
    });
  };
}
