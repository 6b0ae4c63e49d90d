// POST /api/webhooks/{webhook_id} (spec 4.8, part 5): no project key; the
// webhook's secret as `Authorization: Bearer <secret>` or `?token=<secret>`.
// A header counts when it starts with "bearer " (any case, space included):
// "Bearer " alone is an empty secret (401, the query not consulted);
// "Bearer" without the space falls through to the query. The secret is
// compared in constant time before the deployed-or-armed gate. The JSON body
// becomes the run's variables; the run has 5 minutes (WORKFLOW_EXECUTION_TIMEOUT_MS).
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type Request, type Router } from 'express';
import { errorShape, route, type ErrorShape } from '../../errors.ts';
import type { OpenRoute } from '../../gateway.ts';
import { aiCodedShape, aiErrors } from '../errors.ts';
import type { WorkflowRuns } from './runs.ts';
import { UUID, parse } from '../parse.ts';
import { RunEventBody } from './routes/execute.ts';
import { runLifetime } from '../runs/lifetime.ts';
import { jsonBody } from '../body.ts';
import type { RunServices } from '../runs/follow.ts';
import { recordedRun } from '../runs/recorded.ts';
import { runFailure } from './runs.ts';
import { carriedRun, untilEnd } from './carried.ts';
import { PROJECT_CALLER } from '../actor.ts';


/** The webhook route's bodies: 401 is only {error: "Unauthorized"}; a timeout is {error, code: execution_timeout, execution_id}. */
const webhookShape: ErrorShape = (e, req, res) => {
  if (e.status === 401) return { error: 'Unauthorized' };
  if (e.code === 'EXECUTION_TIMEOUT') return { error: e.message, code: 'execution_timeout', execution_id: (e.details as { execution_id?: string } | undefined)?.execution_id };
  return aiCodedShape(e, req, res);
};

function secretOf(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (typeof header === 'string' && header.toLowerCase().startsWith('bearer ')) return header.slice(7);
  const token = req.query.token;
  return typeof token === 'string' ? token : undefined;
}

function sameSecret(given: string): (stored: string) => boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return (stored) => stored !== '' && timingSafeEqual(digest(given), digest(stored));
}

export const webhookOpenRoute: OpenRoute = (req) => req.method === 'POST' && req.path.startsWith('/webhooks/');

export function webhookRoutes(runs: WorkflowRuns, events: RunServices): Router {
  const r = express.Router();
  r.post('/:webhookId', errorShape(webhookShape), jsonBody({ limit: '5mb' }), route(async (req, res) => {
    const webhookId = String(req.params.webhookId);
    if (!UUID.test(webhookId)) throw aiErrors.validation('webhook_id must be a UUID');
    const secret = secretOf(req);
    if (!secret) throw aiErrors.webhookUnauthorized();
    const variables = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
    // The caller leaving does not stop the run; its events are kept as a stream's are.
    const signal = runLifetime(res, events.stop, { detached: true }).signal;
    const call = (emit?: Parameters<WorkflowRuns['webhook']>[4]) => runs.webhook(webhookId.toLowerCase(), sameSecret(secret), variables, signal, emit, { inWorker: events.inWorker ?? false }).then((c) => {
      if (c.outcome === 'not_found') throw aiErrors.workflowNotFound();
      if (c.outcome === 'unauthorized') throw aiErrors.webhookUnauthorized();
      if (c.outcome === 'inactive') throw aiErrors.webhookInactive();
      return c;
    });
    if (events.inWorker) {
      // Queued for a worker (AI_RUN_PLACEMENT=worker): answered once it ends; the secret said who may follow it, the project.
      const queued = await call();
      if (queued.outcome !== 'queued') throw new Error('a webhook run meant for a worker was carried here');
      return void res.json(await carriedRun(res, { ...events, caller: PROJECT_CALLER }, queued.executionId));
    }
    // A run that parks (a wait) is answered once a worker has carried it to its end.
    res.json(await untilEnd(res, { ...events, caller: PROJECT_CALLER }, recordedRun(events.log, 'workflow', async (emit) => {
      const ran = await call(emit);
      if (ran.outcome !== 'run') throw new Error('a webhook run was queued, not carried here');
      return ran.result;
    }, runFailure)));
  }));
  // An event for one of the workflow's waiting runs, sent by whoever holds the webhook's secret: {event, data}.
  r.post('/:webhookId/executions/:eid/events', errorShape(webhookShape), jsonBody({ limit: '5mb' }), route(async (req, res) => {
    const webhookId = String(req.params.webhookId);
    const executionId = String(req.params.eid);
    if (!UUID.test(webhookId) || !UUID.test(executionId)) throw aiErrors.validation('webhook_id and execution_id must be UUIDs');
    const secret = secretOf(req);
    if (!secret) throw aiErrors.webhookUnauthorized();
    const body = parse(RunEventBody, req.body ?? {});
    const sent = await runs.webhookEvent(webhookId.toLowerCase(), sameSecret(secret), executionId.toLowerCase(), body.event, body.data ?? null);
    if (sent.outcome === 'not_found') throw aiErrors.workflowNotFound();
    if (sent.outcome === 'unauthorized') throw aiErrors.webhookUnauthorized();
    if (sent.outcome === 'no_execution') throw aiErrors.notFound('Execution');
    if (sent.ended === 0) throw aiErrors.nothingWaits(body.event);
    res.status(202).json({ execution_id: executionId.toLowerCase(), event: body.event, delivered: sent.ended });
  }));
  return r;
}
