// Workflow runs from request to record: a new execution of the draft (as
// the caller, who must be able to read the workflow) or of the deployed
// version (an MCP tool), queued for a worker or carried here
// (execution.ts), taken up again (resumed.ts), started or sent an event by
// its webhook (triggered.ts), sent an event by its caller, cancelled.
import type { Request } from 'express';
import type { RequestContext } from '../../../db/as-role.ts';
import { actorOf, storedActor } from '../actor.ts';
import { HandedOver, Parked } from '../failures.ts';
import { aiErrors } from '../errors.ts';
import { toApiError } from '../../errors.ts';
import type { RunLimiter } from '../runs/limiter.ts';
import type { RunEvent } from './engine/types.ts';
import { entryOf, executionCarrier, runFailure, type Execution, type ExecutionServices, type RunResult } from './execution.ts';
import { executionResumes } from './resumed.ts';
import { webhookTriggers } from './triggered.ts';

export { runFailure, type RunResult } from './execution.ts';
export type WorkflowRuns = ReturnType<typeof workflowRuns>;

/** The triggers that start runs by themselves, in SQL (sql/0124). */
const SELF_STARTED = new Set(['schedule', 'row_change', 'queue']);

export function workflowRuns(opts: ExecutionServices & { limiter: RunLimiter }) {
  const { calls } = opts;
  const run = executionCarrier(opts);
  /**
   * An event for a waiting run (call once the caller is known to see it):
   * every wait for it ends with its data, and a parked run is taken up
   * again at once (ai.deliver_workflow_event). How many waits it ended.
   */
  const deliver = async (executionId: string, event: string, data: unknown): Promise<number> =>
    (await calls.asService<{ ended: number }>('select ai.deliver_workflow_event($1, $2, $3) as ended', [executionId, event, JSON.stringify(data ?? null)]))[0]!.ended;
  const triggers = webhookTriggers({ calls, config: opts.config, limiter: opts.limiter, run, deliver });

  /** A new execution of the draft, recorded as the caller (who must be able to read the workflow), the graph snapshotted. */
  const recordExecution = async (req: Request, workflowId: string, trigger: 'manual' | 'stream' | 'async', variables: Record<string, unknown>): Promise<Execution> => {
    const [row] = await calls.call<Execution>(req, `with w as (select id, ai.graph_json(id) as graph from ai.workflows where id = $1)
      insert into ai.workflow_executions (workflow_id, trigger, variables, graph) select w.id, $2, $3, w.graph from w returning id, workflow_id, graph, version, user_id, acts_as`,
      [workflowId, trigger, JSON.stringify(variables)]);
    if (!row) throw aiErrors.workflowNotFound();
    return row;
  };

  return {
    /** The draft graph, run as the caller (a user runs project workflows and their own). */
    runDraft: async (req: Request, r: { workflowId: string; variables: Record<string, unknown>; trigger: 'manual' | 'stream'; signal: AbortSignal; emit?: (e: RunEvent) => void }) => {
      const row = await recordExecution(req, r.workflowId, r.trigger, r.variables);
      return run(row, r.variables, 'manual', storedActor(row), r.signal, r.emit ?? (() => undefined));
    },

    /**
     * The deployed version, run as a caller captured earlier (the MCP
     * server's workflow tools): recorded as a manual run of the active
     * version; 404 unless the caller can read the workflow and it is deployed.
     */
    runDeployed: async (caller: RequestContext, workflowId: string, variables: Record<string, unknown>, signal: AbortSignal, emit: (e: RunEvent) => void = () => undefined): Promise<RunResult> => {
      // Asked for by hand (each tool call, a JSON-RPC batch's too): the caller's window, as execute's.
      opts.limiter.take('manual', actorOf(caller));
      const [row] = await calls.as<Execution>(caller, `insert into ai.workflow_executions (workflow_id, trigger, variables, version, graph)
        select w.id, 'manual', $2, w.active_version, v.graph from ai.workflows w join ai.workflow_versions v on v.workflow_id = w.id and v.version = w.active_version
         where w.id = $1 and w.deployed returning id, workflow_id, graph, version, user_id, acts_as`, [workflowId, JSON.stringify(variables)]);
      if (!row) throw aiErrors.workflowNotFound();
      return run(row, variables, 'manual', storedActor(row), signal, emit);
    },

    /**
     * Queues the draft as it is now for graphile-worker (job ai_workflow_run);
     * answers the execution id at once. `trigger`: how it was asked for (a
     * sync or streamed run a worker carries: AI_RUN_PLACEMENT=worker).
     */
    enqueue: async (req: Request, workflowId: string, variables: Record<string, unknown>, trigger: 'manual' | 'stream' | 'async' = 'async'): Promise<string> => {
      const row = await recordExecution(req, workflowId, trigger, variables);
      await calls.asService('select ai.enqueue_execution($1)', [row.id]);
      return row.id;
    },

    /** The worker's half of an async run. A run cancelled while queued never starts. */
    runQueued: async (executionId: string, signal: AbortSignal, emit: (e: object) => void = () => undefined): Promise<void> => {
      const [row] = await calls.asService<Execution & { variables: Record<string, unknown>; status: string; trigger: string }>(
        'select id, workflow_id, graph, version, variables, user_id, acts_as, status, trigger, traceparent from ai.workflow_executions where id = $1', [executionId]);
      if (!row || row.status !== 'queued') return;
      // A run a schedule, a row change or a queue started draws from its owner's triggered window (sql/0124).
      if (SELF_STARTED.has(row.trigger)) {
        try {
          opts.limiter.take('triggered', storedActor(row));
        } catch (err) {
          await calls.asService('select ai.refuse_triggered_run($1, $2)', [row.id, (err as Error).message]);
          return;
        }
      }
      // The job never fails (a retry would run it twice): the failure is the run's record and its last event.
      // A webhook's run starts at its webhook block (queued by the webhook route when runs are the workers').
      await run(row, row.variables, entryOf(row.trigger), storedActor(row), signal, emit).catch((err: unknown) => {
        if (!(err instanceof HandedOver || err instanceof Parked)) emit(runFailure(toApiError(err)));
      });
    },

    /**
     * An event for a waiting run (call once the caller is known to see it):
     * every wait for it ends with its data, and a parked run is taken up
     * again at once (ai.deliver_workflow_event). How many waits it ended.
     */
    deliver,

    /** Stops a queued or running run (call once the caller is known to see it); false when it had already ended. */
    cancel: async (executionId: string): Promise<boolean> =>
      (await calls.asService<{ cancelled: boolean }>('select ai.cancel_execution($1) as cancelled', [executionId]))[0]!.cancelled,

    ...triggers,
    resume: executionResumes(calls, opts.runnerId, run),
  };
}
