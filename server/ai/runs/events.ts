// A run's events as a numbered log (ai.run_events, sql/0065): the runner
// appends each event, in order, before any client is sent it (recorder), and
// a client reads on from any number, on any replica (read). Running a run
// whose events are kept: recorded.ts; following them as a stream: follow.ts.
import type { Logger } from 'pino';
import type { RequestContext } from '../../../db/as-role.ts';
import type { AiCalls } from '../calls.ts';
import type { EndWith } from '../steps/events.ts';

export type RunKind = 'agent' | 'orchestration' | 'workflow';
export type Stored = { seq: number; event: { type?: string } & Record<string, unknown> };

const TABLE: Record<RunKind, string> = { agent: 'ai.agent_runs', orchestration: 'ai.orchestration_runs', workflow: 'ai.workflow_executions' };
const RUNNING = ['queued', 'running', 'waiting_approval'];
/** How long after a run's record ends its stream waits for a last event that may never come. */
export const SETTLE_MS = 3000;
/** The event that ends a run's stream: its last (or, for a run that waits for its client's tool results, the last of this part: sql/0107). */
export const isLast = (event: { type?: unknown }) => event.type === 'complete' || event.type === 'run_completed' || event.type === 'error' || event.type === 'client_tool_calls';
/** The run an event names when it is the run's first (`start` for agents and orchestrations, `run_started` for workflows). */
const runIdOf = (kind: RunKind, event: Record<string, unknown>): string | undefined =>
  kind === 'workflow' ? (event.type === 'run_started' ? (event.execution_id as string) : undefined) : event.type === 'start' ? (event.run_id as string) : undefined;

export type RunEventLog = ReturnType<typeof runEventLog>;

/** runnerId: this process's, the only one whose events a run it carries takes (sql/0077). */
export function runEventLog(calls: AiCalls, log: Logger, runnerId: string) {
  return {
    /**
     * Where a run's events go: stored in order, each then handed to `write`
     * with its number (events before the run has an id, such as a refusal
     * before it began, are handed on with none). An event that could not be
     * stored is not handed on: a client never sees what could be forgotten.
     * Once another process holds the run (this one was taken for dead), its
     * events are refused, and nothing more is stored or handed on.
     */
    recorder: (kind: RunKind, write: (seq: number | null, event: object) => void, opts: { lingerMs?: number; runId?: string } = {}) => {
      // A resumed run has its id already; a new one learns it from its first event.
      let runId: string | undefined = opts.runId;
      let lingering: NodeJS.Timeout | undefined;
      let queue: object[] = [];
      let writing: Promise<void> | undefined;
      let refused = false;
      // Whatever piled up while the last batch was being stored goes in one statement (ai.append_run_events).
      const pump = async () => {
        while (queue.length > 0) {
          const batch = queue;
          queue = [];
          const id = runId;
          if (!id) {
            for (const event of batch) write(null, event);
            continue;
          }
          if (refused) continue;
          try {
            const [row] = await calls.asService<{ first: number | null }>('select ai.append_run_events($1, $2, $3, $4) as first', [kind, id, runnerId, JSON.stringify(batch)]);
            if (row?.first == null) {
              refused = true;
              log.info({ run: id, events: batch.length }, 'run events refused: another process carries the run');
              continue;
            }
            batch.forEach((event, i) => write(row.first! + i, event));
          } catch (err) {
            log.warn({ run: id, events: batch.length, error: (err as Error).message }, 'run events were not stored');
          }
        }
      };
      const kick = (): void => {
        clearTimeout(lingering);
        lingering = undefined;
        writing ??= pump().finally(() => {
          writing = undefined;
          if (queue.length > 0) later();
        });
      };
      // With lingerMs (a run nobody streams), events gather for that long first: a short run stores them in one statement.
      const later = () => {
        if (!opts.lingerMs) return kick();
        lingering ??= setTimeout(kick, opts.lingerMs);
      };
      /**
       * The run's end, stored with its last events in one statement (sql/0081):
       * once what is being stored is, `end` gets the events not stored yet
       * (null once this process's are refused) and answers the events it
       * stored after them, numbered from `first` (null: refused), which are
       * then written. An end that failed leaves its pending events queued.
       */
      const endWith: EndWith = async (end) => {
        while (writing) await writing;
        clearTimeout(lingering);
        lingering = undefined;
        const pending = queue;
        queue = [];
        const id = runId;
        let ended: Awaited<ReturnType<typeof end>>;
        try {
          ended = await end(refused || !id ? null : pending);
        } catch (err) {
          queue = [...pending, ...queue];
          throw err;
        }
        if (!id) for (const event of [...pending, ...ended.events]) write(null, event);
        else if (ended.first == null) {
          if (!refused) log.info({ run: id, events: pending.length + ended.events.length }, 'run events refused: another process carries the run');
          refused = true;
        } else [...pending, ...ended.events].forEach((event, i) => write(ended.first! + i, event));
        return ended.value;
      };
      return {
        push: Object.assign((event: object) => {
          runId ??= runIdOf(kind, event as Record<string, unknown>);
          queue.push(event);
          if (!writing) later();
        }, { endWith }),
        /** Resolves once every event pushed so far is stored and written. */
        flush: async () => {
          while (writing || queue.length > 0) {
            if (!writing) kick();
            await writing;
          }
        },
      };
    },
    /**
     * The run's events after `after`, as the caller sees them (their runs
     * only); `ended` once its last event is among them. A run whose record
     * ended with no last event (its process died and the sweep failed it, or
     * it was cancelled while queued) ends too, once its record has been
     * ended for a few seconds (`ending` until then: the runner may still be
     * storing its last events).
     */
    read: async (caller: RequestContext, kind: RunKind, runId: string, after: number): Promise<{ events: Stored[]; ended: boolean; ending: boolean }> => {
      const events = await calls.as<Stored>(caller, 'select seq, event from ai.run_events where run_id = $1 and seq > $2 order by seq limit 1000', [runId, after]);
      if (events.some((e) => isLast(e.event))) return { events, ended: true, ending: false };
      const [run] = await calls.as<{ status: string; settled: boolean }>(caller,
        `select status, coalesce(finished_at < now() - make_interval(secs => $2), false) as settled from ${TABLE[kind]} where id = $1`, [runId, SETTLE_MS / 1000]);
      const over = !run || !RUNNING.includes(run.status);
      return { events, ended: !run || (over && run.settled && events.length < 1000), ending: over };
    },
  };
}
