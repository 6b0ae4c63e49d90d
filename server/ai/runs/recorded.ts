// Running a run whose events are kept (runs/events.ts): what it pushes is
// stored before anyone is sent it, a failure is its last event, and a run
// begun here for a worker is let go of once its first events are stored.
import type { ApiError } from '../../errors.ts';
import { toApiError } from '../../errors.ts';
import { metrics } from '../../telemetry/metrics.ts';
import type { EndWith } from '../steps/events.ts';
import { aiErrors } from '../errors.ts';
import { ForWorker, HandedOver, Parked } from '../failures.ts';
import type { RunEventLog, RunKind } from './events.ts';

/**
 * Lets go of a run begun here for a worker (ForWorker, sql/0079) once the
 * events pushed so far are stored: null then; a run cancelled meanwhile
 * stays here, and its cancel (with its id) is answered, to end its events with.
 */
export async function handOff(recorder: { flush: () => Promise<void> }, begun: ForWorker): Promise<ApiError | null> {
  await recorder.flush();
  return (await begun.handOff()) ? null : Object.assign(aiErrors.runCancelled(), { details: { run_id: begun.runId } });
}

/** A failed run's last event: its message, code and extra fields (the run's ids among them). */
export const failureEvent = (e: ApiError): object => ({ type: 'error', error: e.message, ...(e.code ? { error_code: e.code } : {}), ...(e.details && typeof e.details === 'object' ? e.details : {}) });

/**
 * A run with no stream (a JSON answer, a webhook, a queued run) whose events
 * are kept all the same: a client follows them at GET …/events. They gather
 * for 50 ms at a time (a short run stores them in one statement). A
 * failure is stored as the run's last event, then thrown on.
 */
export async function recordedRun<T>(log: RunEventLog, kind: RunKind, run: (push: (event: object) => void) => Promise<T>, failure: (e: ApiError) => object = failureEvent, opts: { runId?: string; lingerMs?: number } = {}): Promise<T> {
  const recorder = log.recorder(kind, () => undefined, { lingerMs: 50, ...opts });
  // How the run ended, for /metrics: its last event says (a workflow job reports a failure without throwing).
  let last: { type?: unknown; error_code?: unknown } = {};
  const push = Object.assign((event: object) => {
    last = event;
    recorder.push(event);
  }, {
    endWith: (async (end) => {
      const value = await recorder.push.endWith(end);
      last = { type: 'complete' };
      return value;
    }) as EndWith,
  });
  let ended = false;
  try {
    const result = await run(push);
    ended = true;
    return result;
  } catch (err) {
    // A parked or handed-over run has not ended: its last event comes from whichever worker carries it on.
    if (err instanceof HandedOver) throw aiErrors.stoppedBeforeEnd(err.runId);
    const cancelled = err instanceof ForWorker ? await handOff(recorder, err) : null;
    if (cancelled) {
      push(failure(cancelled));
      ended = true;
      throw cancelled;
    }
    if (!(err instanceof Parked)) {
      push(failure(toApiError(err)));
      ended = true;
    }
    throw err;
  } finally {
    if (ended) metrics.runsFinished.inc({ kind, status: last.type !== 'error' ? 'completed' : last.error_code === 'RUN_CANCELLED' || last.error_code === 'CANCELLED' ? 'cancelled' : 'failed' });
    await recorder.flush();
  }
}
