// A workflow run taken up again (job ai_workflow_resume): after its process
// died, or after it parked on a wait or an approval (sql/0069, 0103). Taken
// with ai.claim_execution, it goes on from the top-level blocks and split
// items it had settled, as the actor it was recorded with; its events go on
// without repeating a block's start the followers already have, and tell a
// block that settled while its events were still being stored.
import type { AiCalls } from '../calls.ts';
import { storedActor } from '../actor.ts';
import { HandedOver, Parked } from '../failures.ts';
import { toApiError } from '../../errors.ts';
import type { SettledBlock } from './engine/run.ts';
import type { RunEvent } from './engine/types.ts';
import { entryOf, runFailure, type CarryExecution, type Execution } from './execution.ts';

type StoredExecution = Execution & {
  variables: Record<string, unknown>; trigger: string; resumes: number; settled: Array<SettledBlock & { block_type: string }>;
  items: Array<{ place: string; output: unknown }>; told: Array<{ type: string; block_id: string }>;
};

/** Never throws: a failure is the run's record and its last event. */
export function executionResumes(calls: AiCalls, runnerId: string, run: CarryExecution) {
  return async (executionId: string, signal: AbortSignal, emit: (e: object) => void): Promise<void> => {
    const [claim] = await calls.asService<{ ok: boolean }>('select ai.claim_execution($1, $2) as ok', [executionId, runnerId]);
    if (!claim?.ok) return;
    // Claimed by this live process: a failure to read what it stored ends it failed (else nobody would resume it).
    const [row] = await calls.asService<StoredExecution>(
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
  };
}
