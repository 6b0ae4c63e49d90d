// A run answered as JSON (POST …/run of an agent or an orchestration) that
// leaves the request's process before its end: it parked on an approval
// (agents/approvals.ts, sql/0068), or it was begun here for a worker to
// carry (AI_RUN_PLACEMENT=worker, sql/0079). Its request stays as it was: it
// follows the run's stored events to the last one and answers what a run
// carried in the request would have (read back by `answer`), or the error
// the run ended with. (A stream does the same in lifetime.ts, streamRun.) A
// sync workflow run a worker carries is followed the same way (followToEnd).
import type { Response } from 'express';
import type { RequestContext } from '../../../db/as-role.ts';
import { aiErrors } from '../errors.ts';
import { Parked } from '../failures.ts';
import { isLast, type RunKind } from './events.ts';
import { followEvents, type RunServices } from './follow.ts';
import { recordedRun } from './recorded.ts';

/**
 * Follows a run that left this process to its last event (or until the
 * client leaves): its completion event, or the error it ended with thrown
 * (a workflow's failure without a code of its own is EXECUTION_FAILED).
 */
export async function followToEnd(res: Response, services: RunServices & { caller: RequestContext }, kind: RunKind, runId: string): Promise<Record<string, unknown>> {
  const left = new AbortController();
  res.once('close', () => left.abort());
  const last = await followEvents({ ...services, kind, runId }, 0, () => undefined, left.signal);
  if (!last) throw aiErrors.stoppedBeforeEnd(runId);
  if (isLast(last) && last.type !== 'error') return last;
  const fallback = kind === 'workflow' ? 'EXECUTION_FAILED' : undefined;
  // A run whose record ended with no last event (its process died and it was failed) says only that.
  if (!isLast(last)) throw aiErrors.endedWith(fallback, 'The run failed', { [kind === 'workflow' ? 'execution_id' : 'run_id']: runId });
  const { type: _t, error, error_code: code, ...details } = last;
  throw aiErrors.endedWith(typeof code === 'string' ? code : fallback, typeof error === 'string' ? error : 'The run failed', details);
}

/**
 * A run answered as JSON (POST …/run), its events kept (recordedRun). When it
 * leaves this process before its end (parked on an approval, or begun here
 * for a worker to carry: ForWorker, let go of once its first events are
 * stored), the answer comes once a worker has carried it to its end: its
 * events are followed until then, and `answer` reads it back.
 */
export async function jsonRun<R>(res: Response, services: RunServices & { caller: RequestContext }, kind: 'agent' | 'orchestration',
  run: (push: (event: object) => void) => Promise<R>, answer: (runId: string) => Promise<R>): Promise<R> {
  try {
    return await recordedRun(services.log, kind, run);
  } catch (err) {
    // Parked, or handed to a worker (recordedRun let go of it): followed to its end.
    if (!(err instanceof Parked)) throw err;
    await followToEnd(res, services, kind, err.runId);
    return answer(err.runId);
  }
}
