// POST /api/workflows/{id}/execute: runs the draft graph and answers
// {execution_id, status, output}; 500 EXECUTION_FAILED and 504
// EXECUTION_TIMEOUT carry the execution_id. {error, error_code}. A client
// that goes away stops the run. Executions and per-block logs are listed
// for the user who ran them.
import type { RequestHandler, Router } from 'express';
import { z } from 'zod';
import { errorShape, route, toApiError } from '../../../errors.ts';
import { aiCodedShape, aiErrors } from '../../errors.ts';
import { UUID, parse } from '../../parse.ts';
import type { WorkflowRuns } from '../runs.ts';
import type { workflowStore } from '../store.ts';
import { workflowIdOf } from './ids.ts';
import { runLifetime } from '../../lifetime.ts';

export const ExecuteBody = z.object({
  variables: z.record(z.string(), z.unknown(), { error: 'variables must be an object' }).optional(),
  input: z.record(z.string(), z.unknown(), { error: 'input must be an object' }).optional(),
  mode: z.enum(['sync', 'async'], { error: 'mode is sync or async' }).optional(),
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

export function executeRoutes(r: Router, deps: { runs: WorkflowRuns; store: ReturnType<typeof workflowStore>; json: RequestHandler; rateLimit: RequestHandler }): void {
  r.post('/:id/execute', errorShape(aiCodedShape), deps.rateLimit, deps.json, route(async (req, res) => {
    const workflowId = workflowIdOf(req);
    const { variables, async } = executeBody(req.body);
    // Beyond the spec: {"mode": "async"} queues the run and answers at once; poll GET .../executions/{id}.
    if (async) return void res.status(202).json({ execution_id: await deps.runs.enqueue(req, workflowId, variables), status: 'queued' });
    const signal = runLifetime(res).signal;
    res.json(await deps.runs.runDraft(req, { workflowId, variables, trigger: 'manual', signal }));
  }));

  // Server-sent events: every RunEvent as `data: {type, ...}`; a failure is an
  // event of type error on this 200 (only a timeout carries error_code). A
  // workflow the caller cannot see is a 404 before the stream opens.
  r.post('/:id/execute/stream', errorShape(aiCodedShape), deps.rateLimit, deps.json, route(async (req, res) => {
    const workflowId = workflowIdOf(req);
    const { variables } = executeBody(req.body);
    await deps.store.get(req, workflowId);
    const signal = runLifetime(res).signal;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    const send = (event: object) => res.write(`data: ${JSON.stringify(event)}\n\n`);
    try {
      await deps.runs.runDraft(req, { workflowId, variables, trigger: 'stream', signal, emit: send });
    } catch (err) {
      const e = toApiError(err);
      const executionId = (e.details as { execution_id?: string } | undefined)?.execution_id;
      send({ type: 'error', error: e.message, ...(e.code === 'EXECUTION_TIMEOUT' ? { error_code: 'EXECUTION_TIMEOUT' } : {}), ...(executionId ? { execution_id: executionId } : {}) });
    }
    res.end();
  }));

  r.get('/:id/executions', route(async (req, res) => {
    res.json(await deps.store.executions(req, workflowIdOf(req)));
  }));

  r.get('/:id/executions/:eid', route(async (req, res) => {
    res.json((await deps.store.executionLogs(req, workflowIdOf(req), executionIdOf(req))).execution);
  }));

  r.post('/:id/executions/:eid/cancel', route(async (req, res) => {
    const cancelled = await deps.runs.cancel(req, workflowIdOf(req), executionIdOf(req));
    res.json({ cancelled, execution_id: req.params.eid });
  }));

  r.get('/:id/executions/:eid/logs', route(async (req, res) => {
    res.json(await deps.store.executionLogs(req, workflowIdOf(req), executionIdOf(req)));
  }));
}
