// asRole in one round trip, for a request that is a single SQL statement.
//
// In Postgres's extended protocol, everything sent before one Sync runs as one
// implicit transaction. So this sends, in one flight:
//   Parse/Bind/Execute  select set_config('role', $1, true), ... claims ... (and search_path, when set)
//   Parse/Bind/Execute  the pre-request function, when the context has one
//   Parse/Bind/Describe/Execute  the request's statement, with its bound values
//   Sync
// The role and claims are transaction-local exactly as with asRole() (the
// settings end with the implicit transaction at Sync), values stay bound, and
// an error in either statement rolls both back. node-pg accepts such a custom
// "submittable" query object; it pipelines nothing by itself.
import { createHash } from 'node:crypto';
import pg from 'pg';
import utils from 'pg/lib/utils.js';
import { contextStatement, preludeOf, type RequestContext } from './as-role.ts';
import { cancelOnDeparture, clientGone } from './statement-limits.ts';

type Field = { name: string; dataTypeID: number; format: string };

// Prepared statements, per connection: a statement's text is parsed and planned
// once per connection, like node-pg's named queries. After an error we cannot
// tell whether a Parse in the failed flight created its statement, so such a
// name is closed (harmless if it does not exist) before its next Parse.
const MAX_PREPARED = 256;
type Prepared = { ready: Set<string>; uncertain: Set<string> };
const prepared = new WeakMap<object, Prepared>();

// Names by statement text, so a repeated request hashes nothing.
const names = new Map<string, string>();
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= 4 * MAX_PREPARED) names.clear();
    name = `pgbase_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}
type Connection = {
  close: (c: { type: 'S'; name: string }) => void;
  stream: { cork?: () => void; uncork?: () => void };
  parse: (q: { text: string; name: string; types: unknown[] }) => void;
  bind: (c: { portal: string; statement: string; values: unknown[]; valueMapper: (v: unknown) => unknown }) => void;
  describe: (d: { type: 'P'; name: string }) => void;
  execute: (e: { portal: string; rows: number }) => void;
  sync: () => void;
  sendCopyFail: (msg: string) => void;
};

class ContextPipeline<R> {
  private completed = 0;
  private parsers: Array<(v: string) => unknown> = [];
  private fields: Field[] = [];
  private readonly rows: R[] = [];
  private settled = false;
  private readonly ctx: { name: string; text: string; values: unknown[] };
  private readonly prelude: Array<{ text: string; values: unknown[] }>;
  private readonly text: string;
  private readonly values: unknown[];
  private readonly done: (err: Error | null, rows?: R[]) => void;

  constructor(ctx: { name: string; text: string; values: unknown[] }, prelude: Array<{ text: string; values: unknown[] }>, text: string, values: unknown[], done: (err: Error | null, rows?: R[]) => void) {
    this.ctx = ctx;
    this.prelude = prelude;
    this.text = text;
    this.values = values;
    this.done = done;
  }

  private connection: Connection | undefined;
  private parsedNow: string[] = [];
  /** Told when the flight ends, with its error or null (telemetry's SQL span; declared so setting it keeps the object's shape). */
  onSettled: ((err: Error | null) => void) | undefined = undefined;

  submit(connection: Connection): void {
    this.connection = connection;
    let state = prepared.get(connection);
    if (!state) {
      state = { ready: new Set(), uncertain: new Set() };
      prepared.set(connection, state);
    }
    const use = (name: string, text: string): string => {
      if (state.ready.has(name)) return name;
      if (state.ready.size >= MAX_PREPARED) {
        connection.parse({ text, name: '', types: [] });
        return '';
      }
      if (state.uncertain.has(name)) connection.close({ type: 'S', name });
      connection.parse({ text, name, types: [] });
      this.parsedNow.push(name);
      return name;
    };
    connection.stream.cork?.();
    try {
      const ctx = use(this.ctx.name, this.ctx.text);
      connection.bind({ portal: '', statement: ctx, values: this.ctx.values, valueMapper: utils.prepareValue });
      connection.execute({ portal: '', rows: 0 });
      for (const step of this.prelude) {
        connection.bind({ portal: '', statement: use(statementName(step.text), step.text), values: step.values, valueMapper: utils.prepareValue });
        connection.execute({ portal: '', rows: 0 });
      }
      const main = use(statementName(this.text), this.text);
      connection.bind({ portal: '', statement: main, values: this.values, valueMapper: utils.prepareValue });
      connection.describe({ type: 'P', name: '' });
      connection.execute({ portal: '', rows: 0 });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
  }

  /** After the flight: what it parsed is prepared now, or uncertain if it failed. */
  private settle(failed: boolean): void {
    const state = this.connection && prepared.get(this.connection);
    if (!state) return;
    for (const name of this.parsedNow) {
      if (failed) state.uncertain.add(name);
      else {
        state.ready.add(name);
        state.uncertain.delete(name);
      }
    }
  }

  handleRowDescription(msg: { fields: Field[] }): void {
    this.fields = msg.fields;
    this.parsers = msg.fields.map((f) => pg.types.getTypeParser(f.dataTypeID, f.format === 'binary' ? 'binary' : 'text') as (v: string) => unknown);
  }

  handleDataRow(msg: { fields: Array<string | null> }): void {
    if (this.completed < 1 + this.prelude.length) return; // the set_config row, the prelude's rows
    const row: Record<string, unknown> = {};
    msg.fields.forEach((raw, i) => {
      row[this.fields[i]!.name] = raw === null ? null : this.parsers[i]!(raw);
    });
    this.rows.push(row as R);
  }

  handleCommandComplete(): void {
    this.completed++;
  }

  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(connection: Connection): void {
    connection.sendCopyFail('COPY is not supported here');
  }
  handleCopyData(): void {}

  handleError(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.settle(true);
    this.onSettled?.(err);
    this.done(err);
  }

  handleReadyForQuery(): void {
    if (this.settled) return;
    this.settled = true;
    this.settle(false);
    this.onSettled?.(null);
    this.done(null, this.rows);
  }
}

/** One statement as the context's role, in one round trip. Returns its rows. */
export async function queryAsRole<R = Record<string, unknown>>(pool: pg.Pool, ctx: RequestContext, text: string, values: unknown[]): Promise<R[]> {
  if (ctx.departure?.gone()) throw clientGone();
  const client = await pool.connect();
  const watch = cancelOnDeparture(pool, client, ctx.departure);
  let broken = false;
  try {
    return await new Promise<R[]>((resolve, reject) => {
      const pipeline = new ContextPipeline<R>(
        contextStatement(ctx),
        preludeOf(ctx),
        text,
        values,
        (err, rows) => (err ? reject(err) : resolve(rows!)),
      );
      (client as unknown as { query: (q: unknown) => void }).query(pipeline);
    });
  } catch (err) {
    // A lost connection must not go back to the pool.
    const code = (err as { code?: string }).code;
    broken = !code || /^(08|57P0)/.test(code);
    throw err;
  } finally {
    // A connection a cancel was sent to is dropped: the cancel may land late.
    client.release(watch.done() || broken);
  }
}
