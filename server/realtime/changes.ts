// Row changes arrive from the capture triggers in commit order. They are
// routed in batches: while one realtime.route_changes call runs, the changes
// that arrive meanwhile gather into the next, so a busy database costs a few
// calls a second rather than one per change. SQL decides who sees what; this
// only batches, keeps the order and hands the answer to the hub.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Hub, RoutedChange } from './hub.ts';

type Captured = { schema: string; table: string; type: string; commit_timestamp: string; record: unknown; old_record: unknown };

const MAX_BATCH = 1000;
// A routing call costs about the same for one change as for hundreds (one
// policy query per subscriber), so changes gather for this long after the
// previous call began, unless a full batch is already waiting.
const GATHER_MS = 20;
const FULL_BATCH = 250;

export class ChangeRouter {
  private pending: Captured[] = [];
  private running = false;
  private lastStart = 0;
  private readonly opts: { pool: pg.Pool; nodeId: string; hub: Hub; log: Logger };

  constructor(opts: { pool: pg.Pool; nodeId: string; hub: Hub; log: Logger }) {
    this.opts = opts;
  }

  push(body: Record<string, unknown>): void {
    const c = body as Captured;
    if (typeof c.schema !== 'string' || typeof c.table !== 'string') return;
    if (!this.opts.hub.watches(c.schema, c.table)) return;
    this.pending.push(c);
    if (!this.running) void this.run();
  }

  private async run(): Promise<void> {
    this.running = true;
    while (this.pending.length > 0) {
      const waited = performance.now() - this.lastStart;
      if (this.pending.length < FULL_BATCH && waited < GATHER_MS) await new Promise((r) => setTimeout(r, GATHER_MS - waited));
      this.lastStart = performance.now();
      const batch = this.pending.splice(0, MAX_BATCH);
      try {
        const { rows } = await this.opts.pool.query<{ change: number; subscription_ids: string[]; record: Record<string, unknown> | null; old_record: Record<string, unknown> | null; columns: RoutedChange['columns'] }>(
          'select change, subscription_ids, record, old_record, columns from realtime.route_changes($1, $2::jsonb)',
          [this.opts.nodeId, JSON.stringify(batch)],
        );
        this.opts.hub.changes(rows.map((r) => ({ ...r, change: batch[r.change - 1]! })));
      } catch (err) {
        this.opts.log.error({ error: (err as Error).message, changes: batch.length }, 'routing row changes failed: this batch is not delivered');
      }
    }
    this.running = false;
  }
}
