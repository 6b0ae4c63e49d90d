// A sync or streamed workflow run a worker carries (AI_RUN_PLACEMENT=worker,
// issue 29): the request queued it (job ai_workflow_run) and answers as a run
// carried in the request does: once its last event is stored, its output or
// its failure (EXECUTION_FAILED, EXECUTION_TIMEOUT) with the execution id;
// or, streamed, its stored events from the first (run_started) to the last.
import type { Response } from 'express';
import type { RequestContext } from '../../../db/as-role.ts';
import { followToEnd } from '../runs/json-run.ts';
import { sseHead, streamFollowed, type RunServices } from '../runs/follow.ts';
import type { RunResult } from './runs.ts';

export async function carriedRun(res: Response, services: RunServices & { caller: RequestContext }, executionId: string): Promise<RunResult> {
  const completed = await followToEnd(res, services, 'workflow', executionId);
  return { execution_id: executionId, status: 'succeeded', output: completed.output };
}

export async function streamCarriedRun(res: Response, services: RunServices & { caller: RequestContext }, executionId: string): Promise<void> {
  res.writeHead(200, sseHead);
  await streamFollowed(res, { ...services, kind: 'workflow', runId: executionId }, 0);
  res.end();
}
