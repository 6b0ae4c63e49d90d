// A workflow run from request to record: the execution row, the status
// machine in SQL (ai.start_execution, ai.finish_execution), the engine with
// the run's time limit and the caller's disconnect as one AbortSignal, and a
// log row per block. Manual runs (execute, execute/stream, async) run the
// draft as the caller, who must be able to read the workflow; webhook runs
// run the active version (or the draft, through an arm window) as the
// workflow's owner, and as the project only for a project workflow. Each run
// says whom it acts as (acts_as, sql/0051): never a missing user read as the project.
import type { Request } from 'express';
import type { Config } from '../../config.ts';
import type { RequestContext } from '../../../db/as-role.ts';
import type { AiCalls } from '../calls.ts';
import type { ModelRouter } from '../providers/router.ts';
import type { Settings } from '../settings/accessor.ts';
import { runGraph, type BlockLog, type SettledBlock } from './engine/run.ts';
import type { Graph, RunEvent, WaitState, WorkflowAgents } from './engine/types.ts';
import { guardedFetch, privateNetworkRule } from '../runtime/net/ssrf.ts';
import type { Sandbox } from '../runtime/sandbox/index.ts';
import type { InProcessRest } from '../../rest/in-process.ts';
import type { InProcessStorage } from '../../storage/in-process.ts';
import { actorOf, storedActor, userActor, PROJECT, type Actor } from '../actor.ts';
import { Failure, HandedOver, Parked } from '../failures.ts';
import { aiErrors } from '../errors.ts';
import { toApiError, type ApiError } from '../../errors.ts';
import type { RunWatch } from '../runs/watch.ts';
import type { RunLimiter } from '../runs/limiter.ts';
import { contextFrom, inSpan } from '../../telemetry/spans.ts';

/** A failed run's last event: only a timeout carries error_code (spec 6.3); the execution id when the run began. */
export const runFailure = (e: ApiError): object => {
  const executionId = (e.details as { execution_id?: string } | undefined)?.execution_id;
  return { type: 'error', error: e.message, ...(e.code === 'EXECUTION_TIMEOUT' ? { error_code: 'EXECUTION_TIMEOUT' } : {}), ...(executionId ? { execution_id: executionId } : {}) };
};
export type RunResult = { execution_id: string; status: 'succeeded'; output: unknown };
/** Where a recorded run starts, by its trigger: a webhook's at its webhook block, any other at its starter. */
const entryOf = (trigger: string): 'webhook' | 'manual' => (trigger === 'webhook' ? 'webhook' : 'manual');
/** `traceparent`: read where a worker carries the run on (async, resumed), so its span joins the trace it was started in. */
type Execution = { id: string; workflow_id?: string; graph: Graph; version: number | null; user_id: string | null; acts_as: string; traceparent?: string | null };
/** A resumed run: the top-level blocks and split items it had settled, how often it was taken for dead, the events its followers lack. */
type Resumed = { settled: SettledBlock[]; items: ReadonlyMap<string, unknown>; resumes: number; untold: RunEvent[] };

export type WorkflowRuns = ReturnType<typeof workflowRuns>;

/** wake: takes a parked run up again in `inMs` (a timer of this process; the resume job is the fallback). */
export function workflowRuns(opts: { calls: AiCalls; config: Config; models: ModelRouter; settings: Settings; runnerId: string; sandbox: Sandbox; rest: InProcessRest; storage: InProcessStorage; agents: WorkflowAgents; watch: RunWatch; limiter: RunLimiter; stop: AbortSignal; wake: (executionId: string, inMs: number) => void }) {
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

  /** A parked run's end, read from its record as it settles (a client with no event stream: an MCP tool call). */
  const ended = async (caller: RequestContext, executionId: string, signal: AbortSignal): Promise<RunResult> => {
    for (;;) {
      const [row] = await calls.as<{ status: string; output: unknown; error: string | null; error_code: string | null }>(caller,
        'select status, output, error, error_code from ai.workflow_executions where id = $1', [executionId]);
      if (row?.status === 'succeeded') return { execution_id: executionId, status: 'succeeded', output: row.output };
      if (row && row.status !== 'running' && row.status !== 'queued') {
        throw row.error_code === 'EXECUTION_TIMEOUT' ? aiErrors.executionTimeout(config.WORKFLOW_EXECUTION_TIMEOUT_MS, executionId) : aiErrors.executionFailed(row.error ?? 'The run failed', executionId);
      }
      await new Promise((r) => setTimeout(r, 500));
      if (signal.aborted) throw aiErrors.stoppedBeforeEnd(executionId);
    }
  };

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
    runDeployed: async (caller: RequestContext, workflowId: string, variables: Record<string, unknown>, signal: AbortSignal): Promise<RunResult> => {
      // Asked for by hand (each tool call, a JSON-RPC batch's too): the caller's window, as execute's.
      opts.limiter.take('manual', actorOf(caller));
      const [row] = await calls.as<Execution>(caller, `insert into ai.workflow_executions (workflow_id, trigger, variables, version, graph)
        select w.id, 'manual', $2, w.active_version, v.graph from ai.workflows w join ai.workflow_versions v on v.workflow_id = w.id and v.version = w.active_version
         where w.id = $1 and w.deployed returning id, workflow_id, graph, version, user_id, acts_as`, [workflowId, JSON.stringify(variables)]);
      if (!row) throw aiErrors.workflowNotFound();
      return run(row, variables, 'manual', storedActor(row), signal, () => undefined).catch((err: unknown) => {
        // It waits (a wait block, an approval): the tool call stays until a worker has carried the run to its end.
        if (err instanceof Parked) return ended(caller, row.id, signal);
        throw err;
      });
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
      // The job never fails (a retry would run it twice): the failure is the run's record and its last event.
      // A webhook's run starts at its webhook block (queued by the webhook route when runs are the workers').
      await run(row, row.variables, entryOf(row.trigger), storedActor(row), signal, emit).catch((err: unknown) => {
        if (!(err instanceof HandedOver || err instanceof Parked)) emit(runFailure(toApiError(err)));
      });
    },

    /**
     * Carries on a run whose process died (job ai_workflow_resume): taken
     * with ai.claim_execution, from the top-level blocks it had settled, as
     * the actor it was recorded with; its events go on without repeating a
     * block's start the followers already have. Never throws: the failure is
     * the run's record and its last event.
     */
    resume: async (executionId: string, signal: AbortSignal, emit: (e: object) => void): Promise<void> => {
      const [claim] = await calls.asService<{ ok: boolean }>('select ai.claim_execution($1, $2) as ok', [executionId, opts.runnerId]);
      if (!claim?.ok) return;
      // Claimed by this live process: a failure to read what it stored ends it failed (else nobody would resume it).
      const [row] = await calls.asService<Execution & { variables: Record<string, unknown>; trigger: string; resumes: number; settled: Array<SettledBlock & { block_type: string }>; items: Array<{ place: string; output: unknown }>; told: Array<{ type: string; block_id: string }> }>(
        `select e.id, e.workflow_id, e.graph, e.version, e.variables, e.user_id, e.acts_as, e.trigger, e.resumes, e.traceparent,
                coalesce((select json_agg(json_build_object('block_id', l.block_id, 'block_type', l.block_type, 'status', l.status, 'output', l.output, 'error', l.error, 'taken', l.taken) order by l.id)
                            from ai.workflow_block_logs l where l.execution_id = e.id and l.path = ''), '[]') as settled,
                coalesce((select json_agg(json_build_object('place', l.path, 'output', l.output))
                            from ai.workflow_block_logs l where l.execution_id = e.id and l.block_type = 'split_item'), '[]') as items,
                coalesce((select json_agg(json_build_object('type', r.event ->> 'type', 'block_id', r.event ->> 'block_id')) from ai.run_events r
                           where r.execution_id = e.id and r.event ->> 'type' in ('block_started', 'block_completed', 'block_skipped', 'block_failed')), '[]') as told
           from ai.workflow_executions e where e.id = $1`, [executionId]).catch(async (err: unknown) => {
        await calls.asService('select ai.finish_execution(p_id => $1, p_status => $2, p_output => null, p_error => $3, p_error_code => $4)', [executionId, 'failed', 'The run could not be resumed', 'EXECUTION_FAILED']).catch(() => undefined);
        throw err;
      });
      const told = (type: string) => new Set(row!.told.filter((t) => t.type === type).map((t) => t.block_id));
      // A block whose start the followers have (it was running at the crash) starts again without saying so twice.
      const started = told('block_started');
      const unrepeated = (e: RunEvent) => (e.type === 'block_started' && started.delete(e.block_id) ? undefined : emit(e));
      // A block that settled while its events were still being stored: told now, as it settled.
      const ended = new Set([...told('block_completed'), ...told('block_skipped'), ...told('block_failed')]);
      const untold = row!.settled.filter((b) => !ended.has(b.block_id)).flatMap((b): RunEvent[] => [
        ...(b.status !== 'skipped' && !started.delete(b.block_id) ? [{ type: 'block_started' as const, block_id: b.block_id, block_type: b.block_type }] : []),
        b.status === 'skipped' ? { type: 'block_skipped', block_id: b.block_id, block_type: b.block_type }
          : b.status === 'failed' ? { type: 'block_failed', block_id: b.block_id, block_type: b.block_type, error: b.error ?? '', continued: true }
            : { type: 'block_completed', block_id: b.block_id, block_type: b.block_type, output: b.output, duration_ms: 0 },
      ]);
      await run(row!, row!.variables, entryOf(row!.trigger), storedActor(row!), signal, unrepeated, { settled: row!.settled, items: new Map(row!.items.map((i) => [i.place, i.output])), resumes: row!.resumes, untold })
        .catch((err: unknown) => {
          if (!(err instanceof HandedOver || err instanceof Parked)) emit(runFailure(toApiError(err)));
        });
    },

    /**
     * An event for a waiting run (call once the caller is known to see it):
     * every wait for it ends with its data, and a parked run is taken up
     * again at once (ai.deliver_workflow_event). How many waits it ended.
     */
    deliver: async (executionId: string, event: string, data: unknown): Promise<number> =>
      (await calls.asService<{ ended: number }>('select ai.deliver_workflow_event($1, $2, $3) as ended', [executionId, event, JSON.stringify(data ?? null)]))[0]!.ended,

    /**
     * An event sent through the workflow's webhook, naming one of its runs:
     * the webhook's secret decides (in constant time), as for a webhook run.
     */
    webhookEvent: async (webhookId: string, secretMatches: (secret: string) => boolean, executionId: string, event: string, data: unknown) => {
      const [hook] = await calls.asService<{ secret: string; execution: boolean }>(
        `select b.config ->> 'webhook_secret' as secret, exists (select 1 from ai.workflow_executions e where e.id = $2 and e.workflow_id = b.workflow_id) as execution
           from ai.workflow_blocks b where b.type = 'webhook' and b.config ->> 'webhook_id' = $1`, [webhookId, executionId]);
      if (!hook) return { outcome: 'not_found' as const };
      if (!secretMatches(hook.secret ?? '')) return { outcome: 'unauthorized' as const };
      if (!hook.execution) return { outcome: 'no_execution' as const };
      const ended = (await calls.asService<{ ended: number }>('select ai.deliver_workflow_event($1, $2, $3) as ended', [executionId, event, JSON.stringify(data ?? null)]))[0]!.ended;
      return { outcome: 'delivered' as const, ended };
    },

    /** Stops a queued or running run (call once the caller is known to see it); false when it had already ended. */
    cancel: async (executionId: string): Promise<boolean> =>
      (await calls.asService<{ cancelled: boolean }>('select ai.cancel_execution($1) as cancelled', [executionId]))[0]!.cancelled,

    /**
     * A webhook call (spec 4.8, 3.4): the workflow holding this webhook id; its
     * secret compared in constant time before anything else (so a wrong
     * secret cannot use an arm window); then the deployed version runs, else a
     * live arm window is used (one guarded statement) and the draft runs,
     * else 403.
     */
    webhook: async (webhookId: string, secretMatches: (secret: string) => boolean, variables: Record<string, unknown>, signal: AbortSignal, emit: (e: RunEvent) => void = () => undefined, how: { inWorker?: boolean } = {}) => {
      const [hook] = await calls.asService<{ workflow_id: string; secret: string; deployed: boolean; active_version: number | null; owner_id: string | null; owner_anonymous: boolean }>(
        `select b.workflow_id, b.config ->> 'webhook_secret' as secret, w.deployed, w.active_version, w.owner_id, coalesce(u.is_anonymous, false) as owner_anonymous
           from ai.workflow_blocks b join ai.workflows w on w.id = b.workflow_id left join auth.users u on u.id = w.owner_id
          where b.type = 'webhook' and b.config ->> 'webhook_id' = $1`, [webhookId]);
      if (!hook) return { outcome: 'not_found' as const };
      if (!secretMatches(hook.secret ?? '')) return { outcome: 'unauthorized' as const };
      // The run would act as its owner: an anonymous one only where anonymous users may use the AI surface.
      if (hook.owner_anonymous && !config.AI_ANONYMOUS_USERS) throw aiErrors.anonymousOwnerRefused();
      // Only a caller holding the secret draws from the owner's window, and before an arm is used.
      opts.limiter.take('triggered', hook.owner_id ? userActor(hook.owner_id) : PROJECT);
      let version: number | null = null;
      if (hook.deployed && hook.active_version !== null) version = hook.active_version;
      else if (!(await calls.asService<{ used: boolean }>('select ai.consume_arm($1) as used', [hook.workflow_id]))[0]!.used) return { outcome: 'inactive' as const };
      // The run acts as the workflow's owner (the project for a project workflow), recorded as its user.
      const [row] = await calls.asService<Execution>('select * from ai.record_webhook_execution($1, $2, $3)', [hook.workflow_id, JSON.stringify(variables), version]);
      // Carried by a worker (AI_RUN_PLACEMENT=worker): queued; the route follows it to its end.
      if (how.inWorker) {
        await calls.asService('select ai.enqueue_execution($1)', [row!.id]);
        return { outcome: 'queued' as const, executionId: row!.id };
      }
      return { outcome: 'run' as const, result: run({ ...row!, workflow_id: hook.workflow_id }, variables, 'webhook', storedActor(row!), signal, emit) };
    },
  };
}
