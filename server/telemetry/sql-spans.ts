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

// Summaries by statement text: a server sends the same few hundred statements again and again.
const summaries = new Map<string, { summary: string; operation: string }>();
function summaryOf(text: string): { summary: string; operation: string } {
  let known = summaries.get(text);
  if (!known) {
    if (summaries.size >= 2048) summaries.clear();
    summaries.set(text, (known = statementSummary(text)));
  }
  return known;
}

// A query object node-pg runs by calling its submit (db/pipeline.ts's one-round-trip flight).
type Submittable = { submit: unknown; onSettled?: (err: Error | null) => void };

let patched = false;

export function patchPgForSpans(): void {
  if (patched) return;
  patched = true;
  // pg-pool hands a waiting caller its connection from inside the release of
  // another's: a callback would run in that other request's context, and its
  // SQL spans would join the wrong trace. Bound to the caller's context here.
  const pool = pg.Pool.prototype as unknown as { connect: (cb?: unknown) => unknown };
  const connect = pool.connect;
  pool.connect = function (this: unknown, cb?: unknown) {
    if (typeof cb !== 'function') return connect.call(this, cb);
    const caller = context.active();
    return connect.call(this, (err: unknown, client: unknown, release: unknown) => context.with(caller, cb as (...a: unknown[]) => unknown, undefined, err, client, release));
  };
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, q?: unknown) {
    // Only beneath a recorded operation: the worker's polling and heartbeats make no traces of their
    // own, and a request the sampler left out costs its statements nothing (not even a copy of its arguments).
    // eslint-disable-next-line prefer-rest-params
    if (!tracing.on || !trace.getSpan(context.active())?.isRecording()) return original.apply(this, arguments as unknown as unknown[]);
    // A submittable is traced when it says when it is done (the pipeline's onSettled); there is no other.
    const submittable = q !== null && typeof q === 'object' && typeof (q as Submittable).submit === 'function';
    // eslint-disable-next-line prefer-rest-params
    if (submittable && !('onSettled' in q)) return original.apply(this, arguments as unknown as unknown[]);
    // eslint-disable-next-line prefer-rest-params
    const rest = Array.prototype.slice.call(arguments, 1) as unknown[];
    const text = typeof q === 'string' ? q : ((q as { text?: string } | undefined)?.text ?? '');
    const { summary, operation } = summaryOf(text);
    const span = tracing.tracer!.startSpan(summary, {
      kind: SpanKind.CLIENT,
      // Where the database is (server.address, db.namespace) is the same for every span of a process: it
      // is left out, as each attribute costs every span its encoding.
      attributes: { 'db.system.name': 'postgresql', 'db.query.summary': summary, 'db.operation.name': operation },
    });
    let ended = false;
    const end = (err?: unknown) => {
      if (ended) return;
      ended = true;
      // By its SQLSTATE (failSpan): a database's message may quote the values it refused.
      if (err) failSpan(span, err);
      span.end();
    };
    if (submittable) {
      (q as Submittable).onSettled = end;
      return original.call(this, q, ...rest);
    }
    const last = rest.length - 1;
    if (typeof rest[last] === 'function') {
      const callback = rest[last] as (err: unknown, ...r: unknown[]) => unknown;
      rest[last] = (err: unknown, ...r: unknown[]) => { end(err); return callback(err, ...r); };
      return original.call(this, q, ...rest);
    }
    const result = original.call(this, q, ...rest) as Promise<unknown>;
    return result.then((r) => { end(); return r; }, (err: unknown) => { end(err); throw err; });
  };
}
