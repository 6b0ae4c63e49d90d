// A workflow run from request to record: the execution row (as the caller,
// so only a workflow they may read can be run), the status machine in SQL
// (ai.start_execution, ai.finish_execution), the engine with the run's time
// limit and the caller's disconnect as one AbortSignal, and a log row per block.
import type { Request } from 'express';
import type { Config } from '../../config.ts';
import { apiError } from '../../errors.ts';
import type { AiCalls } from '../calls.ts';
import type { ModelRouter } from '../providers/router.ts';
import type { Settings } from '../settings/accessor.ts';
import { guardedFetch } from './net/ssrf.ts';
import { RunFailure, runGraph, type BlockLog } from './engine/run.ts';
import type { Graph, RunEvent } from './engine/types.ts';

export type RunRequest = { workflowId: string; variables: Record<string, unknown>; trigger: 'manual' | 'stream'; signal: AbortSignal; emit?: (e: RunEvent) => void };
export type RunResult = { execution_id: string; status: 'succeeded'; output: unknown };

export const runErrors = {
  failed: (message: string, executionId: string) => apiError(500, 'EXECUTION_FAILED', message, { details: { execution_id: executionId } }),
  timeout: (ms: number, executionId: string) => apiError(504, 'EXECUTION_TIMEOUT', `The workflow did not finish within ${Math.round(ms / 1000)} s`, { details: { execution_id: executionId } }),
};

export function workflowRuns(opts: { calls: AiCalls; config: Config; models: ModelRouter; settings: Settings; runnerId: string }) {
  const { calls, config } = opts;
  const fetch = guardedFetch(config.HTTP_ALLOW_PRIVATE_NETWORKS === 'true');
  const record = (executionId: string) => async (log: BlockLog) => {
    await calls.asService(`insert into ai.workflow_block_logs (execution_id, block_id, block_type, status, input, output, error, attempts, logs, started_at, finished_at)
      values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, [
      executionId, log.block_id, log.block_type, log.status, JSON.stringify(log.input ?? null), JSON.stringify(log.output ?? null), log.error, log.attempts,
      JSON.stringify(log.logs), log.started_at, log.finished_at,
    ]);
  };

  /** Runs the draft graph; answers its output or throws EXECUTION_FAILED / EXECUTION_TIMEOUT carrying the execution id. */
  const runDraft = async (req: Request, run: RunRequest): Promise<RunResult> => {
    const [row] = await calls.call<{ id: string; graph: Graph }>(req, `with w as (select id from ai.workflows where id = $1)
      insert into ai.workflow_executions (workflow_id, trigger, variables) select w.id, $2, $3 from w returning id, ai.graph_json(workflow_id) as graph`,
      [run.workflowId, run.trigger, JSON.stringify(run.variables)]);
    if (!row) throw apiError(404, 'WORKFLOW_NOT_FOUND', 'Workflow not found');
    const executionId = row.id;
    await calls.asService('select ai.start_execution($1, $2)', [executionId, opts.runnerId]);
    const timeout = AbortSignal.timeout(config.WORKFLOW_EXECUTION_TIMEOUT_MS);
    const signal = AbortSignal.any([timeout, run.signal]);
    const emit = run.emit ?? (() => undefined);
    emit({ type: 'run_started', execution_id: executionId, version: null });
    try {
      const output = await runGraph({
        graph: row.graph, variables: run.variables, trigger: 'manual', signal, emit, record: record(executionId),
        services: { models: opts.models, settings: opts.settings, fetch, userId: req.ai?.userId ?? null, executionId },
      });
      await calls.asService('select ai.finish_execution($1, $2, $3, null, null)', [executionId, 'succeeded', JSON.stringify(output ?? null)]);
      emit({ type: 'run_completed', execution_id: executionId, output });
      return { execution_id: executionId, status: 'succeeded', output };
    } catch (err) {
      const timedOut = timeout.aborted;
      const cancelled = !timedOut && run.signal.aborted;
      const message = timedOut ? runErrors.timeout(config.WORKFLOW_EXECUTION_TIMEOUT_MS, executionId).message : err instanceof RunFailure ? err.message : `The run failed: ${(err as Error).message}`;
      await calls.asService('select ai.finish_execution($1, $2, null, $3, $4)', [
        executionId, cancelled ? 'cancelled' : 'failed', message, timedOut ? 'EXECUTION_TIMEOUT' : cancelled ? 'CANCELLED' : 'EXECUTION_FAILED',
      ]);
      throw timedOut ? runErrors.timeout(config.WORKFLOW_EXECUTION_TIMEOUT_MS, executionId) : runErrors.failed(message, executionId);
    }
  };

  return { runDraft };
}
