// A sync workflow run a worker carries (AI_RUN_PLACEMENT=worker, issue 29):
// the request queued it (job ai_workflow_run) and answers as a run carried
// in the request does, once its last event is stored: its output, or its
// failure (EXECUTION_FAILED, EXECUTION_TIMEOUT) with the execution id.
import type { Response } from 'express';
import type { RequestContext } from '../../../db/as-role.ts';
import { aiErrors } from '../errors.ts';
import { followEvents, type RunServices } from '../runs/events.ts';
import type { RunResult } from './runs.ts';

export async function carriedRun(res: Response, services: RunServices & { caller: RequestContext }, executionId: string): Promise<RunResult> {
  const left = new AbortController();
  res.once('close', () => left.abort());
  const last = await followEvents({ ...services, kind: 'workflow', runId: executionId }, 0, () => undefined, left.signal);
  if (last?.type === 'run_completed') return { execution_id: executionId, status: 'succeeded', output: last.output };
  if (!last) throw aiErrors.stoppedBeforeEnd(executionId);
  const code = typeof last.error_code === 'string' ? last.error_code : 'EXECUTION_FAILED';
  throw aiErrors.endedWith(code, typeof last.error === 'string' ? last.error : 'The run failed', { execution_id: executionId });
}
