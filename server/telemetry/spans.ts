// The span helpers every surface uses. Each checks `tracing.on` first: with
// tracing off a helper calls straight through, so the code path costs a
// boolean test.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { tracing } from './state.ts';

export { SpanKind, type Span };

const tracer = () => tracing.tracer!;

export type SpanOptions = { kind?: SpanKind; attributes?: Attributes; parent?: Context };

/**
 * Runs `fn` inside a span named `name` (a child of the active one, or of
 * `parent`). A throw marks the span an error with the error's message and
 * rethrows; the span ends when `fn` settles.
 */
export async function inSpan<T>(name: string, opts: SpanOptions, fn: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!tracing.on) return fn(undefined);
  const span = tracer().startSpan(name, { kind: opts.kind ?? SpanKind.INTERNAL, attributes: opts.attributes ?? {} }, opts.parent ?? context.active());
  try {
    return await context.with(trace.setSpan(opts.parent ?? context.active(), span), () => fn(span));
  } catch (err) {
    // A run that parks or is handed over ends its span without failing it.
    const outcome = (err as { spanOutcome?: unknown } | null)?.spanOutcome;
    if (typeof outcome === 'string') span.setAttribute('pgbase.outcome', outcome);
    else failSpan(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** A span started now and ended by the caller (a stream, a response): undefined while tracing is off. */
export function startSpan(name: string, opts: SpanOptions): Span | undefined {
  if (!tracing.on) return undefined;
  return tracer().startSpan(name, { kind: opts.kind ?? SpanKind.INTERNAL, attributes: opts.attributes ?? {} }, opts.parent ?? context.active());
}

/** Runs fn with `span` as the active span (as is, when there is none). */
export function withActive<T>(span: Span | undefined, fn: () => T): T {
  return span ? context.with(trace.setSpan(context.active(), span), fn) : fn();
}

/**
 * Marks a span failed, naming the failure by its type (the error's code, or
 * its class), never its message: a message may quote what a user, a
 * database or a vendor sent (a value, a key). Causes are in the logs.
 */
export function failSpan(span: Span | undefined, err: unknown, type?: string): void {
  if (!span) return;
  const code = (err as { code?: unknown } | null)?.code;
  const named = type ?? (typeof code === 'string' ? code : err instanceof Error ? err.name : 'error');
  span.setStatus({ code: SpanStatusCode.ERROR, message: named });
  span.setAttribute('error.type', named);
}

/** The active span's W3C `traceparent`, to store with a run or hand to a job; undefined when none. */
export function activeTraceparent(): string | undefined {
  if (!tracing.on) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The context a stored or received `traceparent` names (the root context when there is none). */
export function contextFrom(traceparent: string | null | undefined): Context {
  if (!tracing.on || !traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

/** Adds `traceparent` (and `tracestate`) for the active span to outbound headers. */
export function injectTraceHeaders(headers: Record<string, string>): void {
  if (tracing.on) propagation.inject(context.active(), headers);
}

/** `traceparent` naming `span` as the parent of the call it is sent with; undefined without a span. */
export function traceHeaders(span: Span | undefined): Record<string, string> | undefined {
  if (!span) return undefined;
  const headers: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), headers);
  return headers;
}
