// Every error leaves the server through this module: handlers throw (or pass to
// next) an ApiError, usually a named one from their surface's catalogue, or any
// other error; one function maps it to a status and a body in the shape the
// route declared (ErrorShape). Internal causes are logged with the request id,
// never sent.
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';

export type ErrorKind =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'rls_denied'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'rate_limited'
  | 'service_unavailable'
  | 'internal';

const STATUS: Record<ErrorKind, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  rls_denied: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  service_unavailable: 503,
  internal: 500,
};

export class ApiError extends Error {
  readonly status: number;
  readonly kind: ErrorKind;
  /** A surface-specific code (GoTrue error_code, PostgREST PGRST code, ...). */
  readonly code: string | undefined;
  readonly details: unknown;
  /** Sent as Retry-After: when a refused caller may try again (a rate limit, a bound). */
  readonly retryAfterSeconds: number | undefined;
  constructor(kind: ErrorKind, message: string, opts: { status?: number; code?: string; details?: unknown; cause?: unknown; retryAfterSeconds?: number } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'ApiError';
    this.kind = kind;
    this.status = opts.status ?? STATUS[kind];
    this.code = opts.code;
    this.details = opts.details;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

/**
 * A surface's error body: what its official client parses. Each surface
 * declares its own (server/rest/errors.ts, server/auth/errors.ts, ...) when it
 * is mounted, and a route may declare another for itself: the error handler
 * reads the one in force from res.locals, never from the URL.
 */
export type ErrorShape = (e: ApiError, req: Request, res: Response) => unknown;

/** The plain shape, `{error}` (with `details` when there are some): the control of routes that declare nothing. */
export const plainShape: ErrorShape = (e) => (e.details === undefined ? { error: e.message } : { error: e.message, details: e.details });

/** Middleware declaring the error shape for the routes after it. */
export function errorShape(shape: ErrorShape): RequestHandler {
  return (_req, res, next) => {
    res.locals.errorShape = shape;
    next();
  };
}

const HTTP_TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  406: 'Not Acceptable', 409: 'Conflict', 413: 'Payload Too Large', 415: 'Unsupported Media Type',
  422: 'Unprocessable Entity', 429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway',
  503: 'Service Unavailable', 504: 'Gateway Timeout',
};

/** The standard reason phrase of a status, for shapes that carry one. */
export function httpTitle(status: number): string | undefined {
  return HTTP_TITLES[status];
}

/**
 * One named error of a surface's catalogue: its status, code and message in
 * one place, the kind derived from the status unless given.
 */
export function apiError(status: number, code: string | undefined, message: string, opts: { kind?: ErrorKind; details?: unknown; cause?: unknown; retryAfterSeconds?: number } = {}): ApiError {
  const kind = opts.kind ?? KIND_BY_STATUS[status] ?? (status >= 500 ? 'internal' : 'invalid_request');
  return new ApiError(kind, message, { status, ...(code === undefined ? {} : { code }), details: opts.details, cause: opts.cause, ...(opts.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: opts.retryAfterSeconds }) });
}

// Connection-level failures: the database is down or restarting. These become a
// fast 503 instead of a hang or a 500.
const UNAVAILABLE_SQLSTATE = /^(08|57P0[1-3]|53300)/;
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);

export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e.code === 'string' && (UNAVAILABLE_SQLSTATE.test(e.code) || UNAVAILABLE_ERRNO.has(e.code))) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|database system is (starting up|shutting down|in recovery)|the database system is|Connection is closed/i.test(message);
}

const KIND_BY_STATUS: Record<number, ErrorKind> = {
  400: 'invalid_request', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 409: 'conflict',
  413: 'payload_too_large', 422: 'invalid_request', 429: 'rate_limited', 503: 'service_unavailable',
};

// PostgREST's map from SQLSTATE to HTTP status for errors a request caused.
const SQLSTATE_STATUS: Array<[RegExp, number, ErrorKind]> = [
  [/^23505$/, 409, 'conflict'], // unique_violation
  [/^23503$/, 409, 'conflict'], // foreign_key_violation
  [/^(23502|23514|23P01|23000)$/, 400, 'invalid_request'], // not null, check, exclusion, integrity
  [/^22/, 400, 'invalid_request'], // data exceptions: bad input syntax, out of range, ...
  [/^42703$/, 400, 'invalid_request'], // undefined_column
  [/^42P01$/, 404, 'not_found'], // undefined_table
  [/^42883$/, 404, 'not_found'], // undefined_function
  [/^(42P0[2-9]|428C9|42804|42846|42725)$/, 400, 'invalid_request'], // parameters, generated columns, types
  [/^42P17$/, 500, 'internal'], // infinite recursion (in a policy): the schema's fault, not the request's
  [/^42/, 400, 'invalid_request'], // the rest of class 42: undefined type, syntax, ambiguity
  [/^25006$/, 405, 'invalid_request'], // read_only_sql_transaction
  [/^P0001$/, 400, 'invalid_request'], // raise_exception
  [/^54001$/, 500, 'internal'],
];

/**
 * An error Postgres raised while running a request as an API role. 42501
 * (insufficient privilege, including row-level security) is 401 for the
 * anonymous role and 403 otherwise, as PostgREST answers.
 */
export function fromPostgresError(err: unknown, role: string): ApiError {
  const e = err as { code?: unknown; message?: unknown; detail?: unknown; hint?: unknown };
  if (typeof e?.code !== 'string' || !/^[0-9A-Z]{5}$/.test(e.code) || isDatabaseUnavailable(err) || /^PT\d{3}$/.test(e.code)) return toApiError(err);
  const details = typeof e.detail === 'string' ? e.detail : null;
  // Cancelled by statement_timeout (or a departed client): PostgREST's 500 with the reason, not a bare "Internal server error".
  if (e.code === '57014') return new ApiError('internal', String(e.message), { status: 500, code: '57014', cause: err });
  if (e.code === '42501') {
    return new ApiError(role === 'anon' ? 'unauthorized' : 'rls_denied', String(e.message), { status: role === 'anon' ? 401 : 403, code: '42501', details, cause: err });
  }
  const match = SQLSTATE_STATUS.find(([re]) => re.test(e.code as string));
  if (!match || match[1] >= 500) return toApiError(err);
  return new ApiError(match[2], String(e.message), { status: match[1], code: e.code, details, cause: err });
}

/** Maps anything thrown to an ApiError. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  // SQL speaks HTTP the PostgREST way: SQLSTATE 'PT' || status, the error code in HINT.
  const pgErr = err as { code?: unknown; message?: unknown; hint?: unknown };
  if (pgErr && typeof pgErr.code === 'string' && /^PT[1-5]\d\d$/.test(pgErr.code)) {
    const status = Number(pgErr.code.slice(2));
    return new ApiError(KIND_BY_STATUS[status] ?? (status >= 500 ? 'internal' : 'invalid_request'), String(pgErr.message), {
      status,
      ...(typeof pgErr.hint === 'string' && pgErr.hint ? { code: pgErr.hint } : {}),
      cause: err,
    });
  }
  if (isDatabaseUnavailable(err)) {
    return new ApiError('service_unavailable', 'The database is unavailable; retry shortly', { cause: err });
  }
  const e = err as { type?: unknown; status?: unknown; statusCode?: unknown; expose?: unknown; message?: unknown };
  // body-parser and friends: client errors that are safe to describe.
  if (e && typeof e === 'object' && e.expose === true && typeof e.status === 'number' && e.status < 500) {
    if (e.type === 'entity.too.large') return new ApiError('payload_too_large', 'Request body is too large', { cause: err });
    if (e.type === 'entity.parse.failed') return new ApiError('invalid_request', 'Could not parse request body as JSON', { code: 'bad_json', cause: err });
    return new ApiError(e.status === 401 ? 'unauthorized' : 'invalid_request', String(e.message), { status: e.status, cause: err });
  }
  return new ApiError('internal', 'Internal server error', { cause: err });
}

export function sendError(req: Request, res: Response, err: unknown): void {
  const e = toApiError(err);
  const log = (req as Request & { log?: { error: (o: object, m: string) => void; warn: (o: object, m: string) => void } }).log;
  if (e.status >= 500) log?.error({ err: e.cause ?? err }, e.message);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (e.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(Math.max(1, Math.ceil(e.retryAfterSeconds))));
  else if (e.status === 503) res.setHeader('Retry-After', '1');
  const shape = (res.locals.errorShape as ErrorShape | undefined) ?? plainShape;
  res.status(e.status).json(shape(e, req, res));
}

export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => sendError(req, res, err);

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new ApiError('not_found', `No route for ${req.method} ${req.path}`, { code: 'not_found' }));
};

/** Wraps an async handler so a rejection reaches the error handler. */
export function route(handler: (req: Request, res: Parameters<RequestHandler>[1]) => Promise<unknown>): RequestHandler {
  return (req, res, next) => {
    handler(req, res).catch(next);
  };
}
