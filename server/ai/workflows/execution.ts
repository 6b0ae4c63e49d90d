// One workflow execution carried to its end, however it started (a route,
// a webhook, a worker's queued or resumed run): the status machine in SQL
// (ai.start_execution, ai.finish_execution), the engine with the run's time
// limit, its caller's disconnect, a cancel from any replica and the
// server's stop as one AbortSignal, a log row per block (ai.record_block_log),
// a wait block's wait (ai.wait_state) and the run's park when it waits
// (ai.park_execution, sql/0103). A run acts as the actor it was recorded
// with (acts_as, sql/0051): never a missing user read as the project.
import type { Config } from '../../config.ts';
import type { AiCalls } from '../calls.ts';
import type { ModelRouter } from '../providers/router.ts';
import type { Settings } from '../settings/accessor.ts';
import { runGraph, type BlockLog, type SettledBlock } from './engine/run.ts';
import type { Graph, RunEvent, WaitState, WorkflowAgents } from './engine/types.ts';
import { guardedFetch, privateNetworkRule } from '../runtime/net/ssrf.ts';
import type { Sandbox } from '../runtime/sandbox/index.ts';
import type { InProcessRest } from '../../rest/in-process.ts';
import type { InProcessStorage } from '../../storage/in-process.ts';
import type { Actor } from '../actor.ts';
import { Failure, HandedOver, Parked } from '../failures.ts';
import { aiErrors } from '../errors.ts';
import type { ApiError } from '../../errors.ts';
import type { RunWatch } from '../runs/watch.ts';
import { contextFrom, inSpan } from '../../telemetry/spans.ts';

/** A failed run's last event: only a timeout carries error_code (spec 6.3); the execution id when the run began. */
export const runFailure = (e: ApiError): object => {
  const executionId = (e.details as { execution_id?: string } | undefined)?.execution_id;
  return { type: 'error', error: e.message, ...(e.code === 'EXECUTION_TIMEOUT' ? { error_code: 'EXECUTION_TIMEOUT' } : {}), ...(executionId ? { execution_id: executionId } : {}) };
};
export type RunResult = { execution_id: string; status: 'succeeded'; output: unknown };
/** Where a recorded run starts, by its trigger: a webhook's at its webhook block, any other at its starter. */
export const entryOf = (trigger: string): 'webhook' | 'manual' => (trigger === 'webhook' ? 'webhook' : 'manual');
/** `traceparent`: read where a worker carries the run on (async, resumed), so its span joins the trace it was started in. */
export type Execution = { id: string; workflow_id?: string; graph: Graph; version: number | null; user_id: string | null; acts_as: string; traceparent?: string | null };
/** A resumed run: the top-level blocks and split items it had settled, how often it was taken for dead, the events its followers lack. */
export type Resumed = { settled: SettledBlock[]; items: ReadonlyMap<string, unknown>; resumes: number; untold: RunEvent[] };

export type ExecutionServices = {
  calls: AiCalls; config: Config; models: ModelRouter; settings: Settings; runnerId: string; sandbox: Sandbox; rest: InProcessRest; storage: InProcessStorage;
  agents: WorkflowAgents; watch: RunWatch; stop: AbortSignal;
  /** Takes a parked run up again in `inMs` (a timer of this process; the resume job is the fallback). */
  wake: (executionId: string, inMs: number) => void;
};
/** Carries a recorded execution to its end (see executionCarrier). */
export type CarryExecution = (execution: Execution, variables: Record<string, unknown>, trigger: 'manual' | 'webhook', actor: Actor, caller: AbortSignal, emit: (e: RunEvent) => void, resumed?: Resumed) => Promise<RunResult>;

export function executionCarrier(opts: ExecutionServices): CarryExecution {
  const { calls, config } = opts;
  const sandbox = { pool: opts.sandbox, timeoutMs: config.SANDBOX_TIMEOUT_MS, memoryMb: config.SANDBOX_MEMORY_MB };
  const fetch = guardedFetch(privateNetworkRule(config.HTTP_ALLOW_PRIVATE_NETWORKS));
  // A block's log, only while this process still carries the run (one taken for dead and resumed elsewhere stops: HandedOver).
  // A run cancelled while its process had not heard (sql/0092) stops here, as a heard cancel stops it: no block starts after.
  const record = (executionId: string, foundCancelled: () => void) => async (log: BlockLog) => {
    const [row] = await calls.asService<{ stored: boolean; cancelled: boolean }>('select stored, cancelled from ai.record_block_log($1, $2, $3)', [executionId, opts.runnerId, JSON.stringify(log)]);
    if (!row?.stored) throw new HandedOver(executionId);
    if (row.cancelled) foundCancelled();
  };

  /** A wait block's wait (ai.wait_state): begun once, ended when due; only while this process carries the run. */
  const waitAt = (executionId: string) => async (w: { kind: string; due: Date | null; event: string | null; onTimeout: string; place: string }): Promise<WaitState> => {
    const [row] = await calls.asService<WaitState & { id: string | null }>(
      `select id, status, due_at, data, settled_at from ai.wait_state(p_execution => $1, p_runner => $2, p_block => $3, p_kind => $4, p_event => $5, p_due => $6, p_on_timeout => $7)`,
      [executionId, opts.runnerId, w.place, w.kind, w.event, w.due, w.onTimeout]);
    if (!row?.id) throw new HandedOver(executionId);
    return row;
  };

  /**
   * Lets go of a waiting run (ai.park_execution): its resume job is due when
   * the earliest thing it waits on ends. A wait due within a few minutes is
   * also timed here (the job's poll could be seconds late); a park refused
   * (cancelled, or another process has the run) writes nothing more.
   */
  const park = async (executionId: string): Promise<Error> => {
    const [row] = await calls.asService<{ parked: boolean; due_in_ms: number | null }>(
      `select ai.park_execution($1, $2) as parked,
              (select extract(epoch from min(w.due_at) - now()) * 1000 from ai.workflow_waits w where w.execution_id = $1 and w.status = 'waiting')::float8 as due_in_ms`,
      [executionId, opts.runnerId]);
    if (!row?.parked) return new HandedOver(executionId);
    if (row.due_in_ms !== null) opts.wake(executionId, row.due_in_ms);
    return new Parked(executionId, 'The run waits; a worker takes it up again when the wait ends');
  };

  /**
   * Runs a recorded execution to its end; answers its output or throws
   * EXECUTION_FAILED / EXECUTION_TIMEOUT. A resumed run (its process died,
   * ai.claim_execution took it) starts from its settled blocks, after a
   * `resumed` event instead of `run_started`; its time limit starts again.
   */
  const run = (execution: Execution, variables: Record<string, unknown>, trigger: 'manual' | 'webhook', actor: Actor, caller: AbortSignal, emit: (e: RunEvent) => void, resumed?: Resumed): Promise<RunResult> =>
    inSpan(`workflow ${trigger}`, {
      ...(execution.traceparent ? { parent: contextFrom(execution.traceparent) } : {}),
      attributes: { 'pgbase.execution_id': execution.id, 'pgbase.run_id': execution.id, 'pgbase.run.kind': 'workflow', 'pgbase.workflow.trigger': trigger, ...(execution.workflow_id ? { 'pgbase.workflow_id': execution.workflow_id } : {}), ...(resumed ? { 'pgbase.resumes': resumed.resumes } : {}) },
    }, () => runIn(execution, variables, trigger, actor, caller, emit, resumed));

  const runIn = async (execution: Execution, variables: Record<string, unknown>, trigger: 'manual' | 'webhook', actor: Actor, caller: AbortSignal, emit: (e: RunEvent) => void, resumed?: Resumed): Promise<RunResult> => {
    const executionId = execution.id;
    if (!resumed) await calls.asService('select ai.start_execution($1, $2)', [executionId, opts.runnerId]);
    const timeout = AbortSignal.timeout(config.WORKFLOW_EXECUTION_TIMEOUT_MS);
    // POST .../executions/{id}/cancel marks the run cancelled in SQL; the process running it hears at once (runs/watch.ts).
    const cancelled = opts.watch.cancellable(executionId);
    const signal = AbortSignal.any([timeout, caller, cancelled.signal, opts.stop]);
    emit(resumed ? { type: 'resumed', execution_id: executionId, settled_blocks: resumed.settled.length, resumes: resumed.resumes } : { type: 'run_started', execution_id: executionId, version: execution.version });
    for (const e of resumed?.untold ?? []) emit(e);
    try {
      const output = await runGraph({
        graph: execution.graph, variables, trigger, signal, emit, record: record(executionId, cancelled.found), ...(resumed ? { settled: resumed.settled, items: resumed.items } : {}),
        handedOver: () => opts.stop.aborted && !timeout.aborted && !cancelled.signal.aborted,
        services: { models: opts.models, settings: opts.settings, fetch, sandbox, rest: opts.rest, storage: opts.storage, agents: opts.agents, actor, executionId, resumed: resumed !== undefined, wait: waitAt(executionId) },
      });
      await calls.asService('select ai.finish_execution(p_id => $1, p_status => $2, p_output => $3, p_error => null, p_error_code => null)', [executionId, 'succeeded', JSON.stringify(output ?? null)]);
      emit({ type: 'run_completed', execution_id: executionId, output });
      return { execution_id: executionId, status: 'succeeded', output };
    } catch (err) {
      // Carried on by another process (this one was taken for dead): nothing more is written here.
      if (err instanceof HandedOver) throw err;
      // It waits (a wait block, an approval in a child run): this process lets go, a job takes it up again (sql/0103).
      if (err instanceof Parked && !signal.aborted) throw await park(executionId);
      // The server is stopping: the run stays running for another process to resume from its settled blocks (sql/0069).
      if (opts.stop.aborted && !timeout.aborted && !cancelled.signal.aborted) throw new HandedOver(executionId);
      const timedOut = timeout.aborted;
      const stopped = !timedOut && (caller.aborted || cancelled.signal.aborted);
      const message = timedOut ? aiErrors.executionTimeout(config.WORKFLOW_EXECUTION_TIMEOUT_MS, executionId).message : err instanceof Failure ? err.message : `The run failed: ${(err as Error).message}`;
      await calls.asService('select ai.finish_execution(p_id => $1, p_status => $2, p_output => null, p_error => $3, p_error_code => $4)', [
        executionId, stopped ? 'cancelled' : 'failed', message, timedOut ? 'EXECUTION_TIMEOUT' : stopped ? 'CANCELLED' : 'EXECUTION_FAILED',
      ]);
      throw timedOut ? aiErrors.executionTimeout(config.WORKFLOW_EXECUTION_TIMEOUT_MS, executionId) : aiErrors.executionFailed(message, executionId);
    } finally {
      cancelled.release();
    }
  };

  return run;
}
