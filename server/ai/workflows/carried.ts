// A sync or streamed workflow run a worker carries (AI_RUN_PLACEMENT=worker,
// issue 29): the request queued it (job ai_workflow_run) and answers as a run
// carried in the request does: once its last event is stored, its output or
// its failure (EXECUTION_FAILED, EXECUTION_TIMEOUT) with the execution id;
// or, streamed, its stored events from the first (run_started) to the last.
// A run carried in the request that parks is followed the same way (untilEnd).
import type { Response } from 'express';
import type { RequestContext } from '../../../db/as-role.ts';
import { followToEnd } from '../runs/json-run.ts';
import { sseHead, streamFollowed, type RunServices } from '../runs/follow.ts';
import type { RunResult } from './runs.ts';
import { Parked } from '../failures.ts';

export async function carriedRun(res: Response, services: RunServices & { caller: RequestContext }, executionId: string): Promise<RunResult> {
  const completed = await followToEnd(res, services, 'workflow', executionId);
  return { execution_id: executionId, status: 'succeeded', output: completed.output };
}

export async function streamCarriedRun(res: Response, services: RunServices & { caller: RequestContext }, executionId: string): Promise<void> {
  res.writeHead(200, sseHead);
  await streamFollowed(res, { ...services, kind: 'workflow', runId: executionId }, 0);
  res.end();
}

/**
 * A run carried here that may park (a wait block, an approval in a child
 * run): its request stays and follows the run's stored events to its end,
 * answering as if it had run here all along.
 */
export async function untilEnd(res: Response, services: RunServices & { caller: RequestContext }, running: Promise<RunResult>): Promise<RunResult> {
  try {
    return await running;
  } catch (err) {
    if (!(err instanceof Parked)) throw err;
    return carriedRun(res, services, err.runId);
  }
}
