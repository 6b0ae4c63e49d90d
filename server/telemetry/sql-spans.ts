// A span for every SQL round trip made inside a traced operation (a request,
// a job, a run): node-pg's Client.query is wrapped once, when tracing turns
// on. A span is named by the statement's summary (its verb and the first
// table or function it names), never its values or its text: values are
// bound, but a statement may carry literals.
import { context, SpanKind, trace } from '@opentelemetry/api';
import pg from 'pg';
import { failSpan } from './spans.ts';
import { tracing } from './state.ts';

const WRITES = /\b(insert)\s+into\b|\b(update)\s+\S+\s+set\b|\b(delete)\s+from\b/i;
const QUALIFIED_CALL = /\b([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*)\s*\(/i;
const TARGET: Record<string, RegExp> = {
  insert: /\binto\s+((?:"?[a-z_][a-z0-9_]*"?\.)?"?[a-z_][a-z0-9_]*"?)/i,
  update: /^update\s+(?:only\s+)?((?:"?[a-z_][a-z0-9_]*"?\.)?"?[a-z_][a-z0-9_]*"?)/i,
  delete: /\bfrom\s+(?:only\s+)?((?:"?[a-z_][a-z0-9_]*"?\.)?"?[a-z_][a-z0-9_]*"?)/i,
  select: /\bfrom\s+((?:"?[a-z_][a-z0-9_]*"?\.)?"?[a-z_][a-z0-9_]*"?)/i,
};

/** `select ai.begin_run`, `insert ai.run_events`, `begin`: a statement's verb and what it works on. */
export function statementSummary(text: string): { summary: string; operation: string } {
  const t = text.replace(/--[^\n]*(\n|$)|\/\*[\s\S]*?\*\//g, ' ').trimStart();
  const verb = (/^[a-z]+/i.exec(t)?.[0] ?? 'query').toLowerCase();
  // A statement opening with a CTE is named by what it changes, else it reads.
  const writes = verb === 'with' ? WRITES.exec(t) : null;
  const operation = verb === 'with' ? (writes?.[1] ?? writes?.[2] ?? writes?.[3] ?? 'select').toLowerCase() : verb;
  const call = operation === 'select' || operation === 'call' ? QUALIFIED_CALL.exec(t)?.[1] : undefined;
  const target = call ?? TARGET[operation]?.exec(t)?.[1];
  return { summary: (target ? `${operation} ${target.replaceAll('"', '')}` : operation).slice(0, 100), operation };
}

type Submittable = { submit: unknown; handleReadyForQuery?: (...a: unknown[]) => unknown; handleError?: (...a: unknown[]) => unknown };
type Queryable = { database?: string; host?: string; port?: number };

let patched = false;

export function patchPgForSpans(): void {
  if (patched) return;
  patched = true;
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: Queryable, ...args: unknown[]) {
    // Only beneath a traced operation: the worker's polling and heartbeats make no traces of their own.
    if (!tracing.on || !trace.getSpan(context.active())) return original.apply(this, args);
    const q = args[0] as string | { text?: string; name?: string } | Submittable | undefined;
    const text = typeof q === 'string' ? q : ((q as { text?: string } | undefined)?.text ?? '');
    const { summary, operation } = statementSummary(text);
    const span = trace.getTracer('pgbase').startSpan(summary, {
      kind: SpanKind.CLIENT,
      attributes: { 'db.system.name': 'postgresql', 'db.query.summary': summary, 'db.operation.name': operation, 'db.namespace': this.database ?? '', 'server.address': this.host ?? '', 'server.port': this.port ?? 5432 },
    });
    let ended = false;
    const end = (err?: unknown) => {
      if (ended) return;
      ended = true;
      if (err) failSpan(span, err, (err as { code?: string }).code);
      span.end();
    };
    if (q && typeof q === 'object' && typeof (q as Submittable).submit === 'function') {
      // A submittable (the one-round-trip pipeline): done at its ReadyForQuery, or its error.
      const s = q as Submittable;
      const ready = s.handleReadyForQuery;
      const error = s.handleError;
      s.handleError = function (this: unknown, ...a: unknown[]) { end(a[0]); return error?.apply(this, a); };
      s.handleReadyForQuery = function (this: unknown, ...a: unknown[]) { end(); return ready?.apply(this, a); };
      return original.apply(this, args);
    }
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const callback = args[last] as (err: unknown, ...rest: unknown[]) => unknown;
      args[last] = (err: unknown, ...rest: unknown[]) => { end(err); return callback(err, ...rest); };
      return original.apply(this, args);
    }
    const result = original.apply(this, args) as Promise<unknown>;
    return result.then((r) => { end(); return r; }, (err: unknown) => { end(err); throw err; });
  };
}
