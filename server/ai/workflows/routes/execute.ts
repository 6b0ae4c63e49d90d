// POST /api/workflows/{id}/execute: runs the draft graph and answers
// {execution_id, status, output}; 500 EXECUTION_FAILED and 504
// EXECUTION_TIMEOUT carry the execution_id. {error, error_code}. A client
// that goes away does not stop the run: its events are kept (GET
// …/executions/{eid}/events) and POST …/cancel stops it from any replica.
// With AI_RUN_PLACEMENT=worker a run is queued for a worker and the request
// follows its events (workflows/carried.ts).
// Executions and per-block logs are listed for the user who ran them.
import type { RequestHandler, Router } from 'express';
import { z } from 'zod';
import { errorShape, route } from '../../../errors.ts';
import { aiCodedShape, aiErrors } from '../../errors.ts';
import { UUID, parse } from '../../parse.ts';
import { runFailure, type WorkflowRuns } from '../runs.ts';
import { carriedRun, streamCarriedRun, untilEnd } from '../carried.ts';
import type { workflowStore } from '../store.ts';
import { workflowIdOf } from './ids.ts';
import { runLifetime, streamRun } from '../../runs/lifetime.ts';
import { followRun, type RunServices } from '../../runs/follow.ts';
import { recordedRun } from '../../runs/recorded.ts';
import { contextOf } from '../../calls.ts';
import { actorOf } from '../../actor.ts';

export const ExecuteBody = z.object({
  variables: z.record(z.string(), z.unknown(), { error: 'variables must be an object' }).optional(),
  input: z.record(z.string(), z.unknown(), { error: 'input must be an object' }).optional(),
  mode: z.enum(['sync', 'async'], { error: 'mode is sync or async' }).optional(),
});
/** An event for a waiting run: its name (as a wait block's `event` names it) and any JSON as its data. */
export const RunEventBody = z.object({
  event: z.string({ error: 'event is required: the name a wait block waits for' }).regex(/^[A-Za-z0-9_.:-]{1,200}$/, { error: 'event is a name of letters, digits and _ . : - (at most 200)' }),
  data: z.unknown().optional(),
});
const executeBody = (body: unknown) => {
  const b = parse(ExecuteBody, body ?? {});
  return { variables: b.variables ?? b.input ?? {}, async: b.mode === 'async' };
};
const executionIdOf = (req: { params: Record<string, unknown> }): string => {
  const eid = String(req.params.eid);
  if (!UUID.test(eid)) throw aiErrors.notFound('Execution');
  return eid;
};

export function executeRoutes(r: Router, deps: { runs: WorkflowRuns; store: ReturnType<typeof workflowStore>; json: RequestHandler; events: RunServices }): void {
  const { stop } = deps.events;
  // A run asked for by hand draws from the caller's window first (spec 8: execute and execute/stream, async too).
  const rateLimit: RequestHandler = (req, _res, next) => {
    try {
      deps.events.limiter.take('manual', actorOf(contextOf(req)));
      next();
    } catch (err) {
      next(err);
    }
  };
  r.post('/:id/execute', errorShape(aiCodedShape), rateLimit, deps.json, route(async (req, res) => {
    const workflowId = workflowIdOf(req);
    const { variables, async } = executeBody(req.body);
    // Beyond the spec: {"mode": "async"} queues the run and answers at once; poll GET .../executions/{id}.
    if (async) return void res.status(202).json({ execution_id: await deps.runs.enqueue(req, workflowId, variables), status: 'queued' });
    if (deps.events.inWorker) return void res.json(await carriedRun(res, { ...deps.events, caller: contextOf(req) }, await deps.runs.enqueue(req, workflowId, variables, 'manual')));
    const signal = runLifetime(res, stop, { detached: true }).signal;
    res.json(await untilEnd(res, { ...deps.events, caller: contextOf(req) }, recordedRun(deps.events.log, 'workflow', (emit) => deps.runs.runDraft(req, { workflowId, variables, trigger: 'manual', signal, emit }), runFailure)));
  }));

  // Server-sent events: every RunEvent as `data: {type, ...}`; a failure is an
  // event of type error on this 200 (only a timeout carries error_code). A
  // workflow the caller cannot see is a 404 before the stream opens.
  r.post('/:id/execute/stream', errorShape(aiCodedShape), rateLimit, deps.json, route(async (req, res) => {
    const workflowId = workflowIdOf(req);
    const { variables } = executeBody(req.body);
    await deps.store.get(req, workflowId);
    if (deps.events.inWorker) return streamCarriedRun(res, { ...deps.events, caller: contextOf(req) }, await deps.runs.enqueue(req, workflowId, variables, 'stream'));
    // A run that parks (a wait, an approval) is followed from its stored events until it ends.
    await streamRun(res, stop, { log: deps.events.log, kind: 'workflow', failure: runFailure, follow: { ...deps.events, caller: contextOf(req) } }, (life, send) =>
      deps.runs.runDraft(req, { workflowId, variables, trigger: 'stream', signal: life.signal, emit: send }));
  }));

  // The run's events, numbered: from the first, or after Last-Event-ID / ?after=; then new ones until it ends.
  r.get('/:id/executions/:eid/events', route(async (req, res) => {
    const executionId = executionIdOf(req);
    await deps.store.requireExecution(req, workflowIdOf(req), executionId);
    await followRun(req, res, { ...deps.events, caller: contextOf(req), kind: 'workflow', runId: executionId });
  }));

  r.get('/:id/executions', route(async (req, res) => {
    res.json(await deps.store.executions(req, workflowIdOf(req)));
  }));

  r.get('/:id/executions/:eid', route(async (req, res) => {
    res.json((await deps.store.executionLogs(req, workflowIdOf(req), executionIdOf(req))).execution);
  }));

  r.post('/:id/executions/:eid/cancel', route(async (req, res) => {
    const executionId = executionIdOf(req);
    await deps.store.requireExecution(req, workflowIdOf(req), executionId);
    const cancelled = await deps.runs.cancel(executionId);
    res.json({ cancelled, execution_id: req.params.eid });
  }));

  // An event for a waiting run (a wait block with `event`): {event, data}; 202 with how many waits it ended, 409 when none waits for it.
  r.post('/:id/executions/:eid/events', errorShape(aiCodedShape), deps.json, route(async (req, res) => {
    const executionId = executionIdOf(req);
    await deps.store.requireExecution(req, workflowIdOf(req), executionId);
    const body = parse(RunEventBody, req.body ?? {});
    const delivered = await deps.runs.deliver(executionId, body.event, body.data ?? null);
    if (delivered === 0) throw aiErrors.nothingWaits(body.event);
    res.status(202).json({ execution_id: executionId, event: body.event, delivered });
  }));

  r.get('/:id/executions/:eid/logs', route(async (req, res) => {
    res.json(await deps.store.executionLogs(req, workflowIdOf(req), executionIdOf(req)));
  }));
}
