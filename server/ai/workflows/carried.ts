// A sync workflow run a worker carries (AI_RUN_PLACEMENT=worker, issue 29):
// the request queued it (job ai_workflow_run) and answers as a run carried
// in the request does, once its last event is stored: its output, or its
// failure (EXECUTION_FAILED, EXECUTION_TIMEOUT) with the execution id.
import type { Response } from 'express';
import type { RequestContext } from '../../../db/as-role.ts';
import { followToEnd } from '../runs/json-run.ts';
import type { RunServices } from '../runs/events.ts';
import type { RunResult } from './runs.ts';

export async function carriedRun(res: Response, services: RunServices & { caller: RequestContext }, executionId: string): Promise<RunResult> {
  const completed = await followToEnd(res, services, 'workflow', executionId);
  return { execution_id: executionId, status: 'succeeded', output: completed.output };
}
