// /api/v1 (issue 30): agents and orchestrations behind OpenAI's chat
// completions API, so any OpenAI client (the openai SDK, the Vercel AI SDK,
// LiteLLM, Open WebUI) runs them with nothing to learn. A request needs only
// `Authorization: Bearer <user token or service key>`, as those clients send
// (the gateway lets this surface take the bearer as its key).
//
//   GET  /models             what the caller may run: agent/<name>, orchestration/<name>
//   GET  /models/{model}     one of them
//   POST /chat/completions   runs one: JSON, or chunks ending `data: [DONE]` with stream
//
// A call's last message is the turn the agent answers. Without an
// `X-Session-Id` header a new session is made, holding the earlier user and
// assistant messages as its history (system messages are the agent's own:
// the client's are not sent); with one, that session (the caller's, of this
// agent) continues and only the last message is read. The answer carries the
// session in `X-Session-Id`. The agent's tools, knowledge bases, hooks and
// approvals run inside the run, unseen. The client may bring its own tools
// (offered beside the agent's: a call to one ends the answer with
// finish_reason tool_calls, and the run waits for the results in the
// client's next request, then goes on: sql/0107) and a response_format (the
// answer checked against it). Errors are OpenAI's body: the surface
// declares openAiShape (server/start.ts).
import express, { type Response, type Router } from 'express';
import type { RequestContext } from '../../../db/as-role.ts';
import { route, toApiError } from '../../errors.ts';
import type { AgentRunner } from '../agents/run.ts';
import { contextOf, type AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { runLifetime, type RunLifetime } from '../runs/lifetime.ts';
import type { OrchestrationRunner } from '../orchestrations/run.ts';
import { parse, UUID } from '../parse.ts';
import { alsoTo, type Emit } from '../steps/events.ts';
import { agentAnswer } from '../agents/run-answer.ts';
import { AwaitingClient, Parked } from '../failures.ts';
import { followToEnd } from '../runs/json-run.ts';
import { followEvents, type RunServices } from '../runs/follow.ts';
import { recordedRun } from '../runs/recorded.ts';
import type { RunResumes } from '../runs/resume.ts';
import { openAiStore, type Runnable } from './store.ts';
import { actorOf } from '../actor.ts';
import type { RunLimiter } from '../runs/limiter.ts';
import { checkRunMessage } from '../sessions/limits.ts';
import { ChatCompletionBody, clientRequestOf, clientResults, seededTurns } from './messages.ts';
import { messageParts } from './attachments.ts';
import type { AttachmentStore } from '../agents/attachments.ts';
import { chunks, completion, modelIds, modelObject, openAiError, toolCallsCompletion, type Finish, type HandedCall } from './wire.ts';

/** What a run answers here (an agent's or an orchestration's). */
type Answered = { run_id: string; output: string; stop_reason: 'answered' | 'max_steps'; usage: { tokens_in: number; tokens_out: number; cost_usd: number } };
type Totals = Answered['usage'];
type FollowedServices = RunServices & { caller: RequestContext };
/** One part of a run as this request carries it: to its end, or until it waits (Parked, AwaitingClient); `tap` hears its events. */
type Part = (life: RunLifetime, tap: Emit | undefined) => Promise<Answered>;
/** `since`: the usage of this request's part, from the run's totals (a run its client's results carried on). */
type Asked = { model: string; created: number; kind: 'agent' | 'orchestration'; services: FollowedServices; stream: boolean; withUsage: boolean; answer: (runId: string) => Promise<Answered>; since?: (u: Totals) => Totals };

export function openAiRoutes(opts: { calls: AiCalls; agents: AgentRunner; orchestrations: OrchestrationRunner; limiter: RunLimiter; stop: AbortSignal; events: RunServices; resumes: RunResumes; runnerId: string; attachments: AttachmentStore; fetch: typeof fetch }): Router {
  const r = express.Router();
  const store = openAiStore(opts.calls);

  r.get('/models', route(async (req, res) => {
    const ids = modelIds(await store.runnable(contextOf(req)));
    res.json({ object: 'list', data: [...ids].map(([id, m]) => modelObject(id, m)) });
  }));
  r.get('/models/*model', route(async (req, res) => {
    const model = ([] as string[]).concat(req.params.model as unknown as string[]).join('/');
    const found = await store.find(contextOf(req), model);
    if (!found) throw aiErrors.modelNotFound(model);
    res.json(modelObject(model, found));
  }));

  r.post('/chat/completions', route(async (req, res) => {
    const body = parse(ChatCompletionBody, req.body ?? {});
    const client = clientRequestOf(body);
    const caller = contextOf(req);
    const target = await store.find(caller, body.model);
    if (!target) throw aiErrors.modelNotFound(body.model);
    if (client && target.kind !== 'agent') throw aiErrors.validation('tools and response_format are for agents\' models (agent/<name>); an orchestration answers in text');
    const asked: Asked = {
      model: body.model, created: Math.floor(Date.now() / 1000), kind: target.kind, services: { ...opts.events, caller },
      stream: body.stream === true, withUsage: body.stream_options?.include_usage === true,
      answer: target.kind === 'agent' ? agentAnswer(opts.calls, caller) : (id: string) => opts.orchestrations.answer(caller, id),
    };
    // Tool messages last: the results of the client's tools a waiting run goes on with.
    const results = clientResults(body.messages);
    if (results.length > 0) {
      const waiting = target.kind === 'agent' ? await store.waitingRun(caller, target.row.id, results[0]!.tool_call_id) : undefined;
      if (!waiting) throw aiErrors.notWaitingForClient(`No run of ${body.model} waits for the result of tool call ${results[0]!.tool_call_id}`);
      const before = await store.answerClient(waiting.run_id, opts.runnerId, results);
      if (!before) throw aiErrors.notWaitingForClient('The run no longer waits for these tool results (answered already, or cancelled)');
      res.setHeader('x-session-id', waiting.session_id);
      // Usage is this request's part of the run: what earlier answers reported is taken off.
      const since = (u: Totals): Totals => ({ tokens_in: u.tokens_in - before.tokens_in, tokens_out: u.tokens_out - before.tokens_out, cost_usd: u.cost_usd - before.cost_usd });
      return answerWith(res, { ...asked, since }, (_life, tap) => opts.resumes.carryAnswered(waiting.run_id, tap ?? (() => undefined)) as Promise<Answered>, waiting.run_id);
    }
    const last = body.messages.at(-1)!;
    if (last.role !== 'user') throw aiErrors.validation('the last message must be the user\'s (the turn the agent answers) or the results of the client\'s tool calls');
    // Its images and files are read (and bounded) before anything is stored or counted.
    const { text, incoming } = await messageParts(last, body.messages.length - 1, opts.fetch);
    const message = text.trim();
    if (!message && incoming.length === 0) throw aiErrors.validation('the last message has no text');
    if (incoming.length > 0 && target.kind !== 'agent') throw aiErrors.validation('images and files are for agents\' models (agent/<name>)');
    checkRunMessage(message, 'the last message');
    // Without a session, the earlier messages seed a new one: checked (and bounded) before the run is counted.
    const named = req.headers['x-session-id'];
    const seeded = typeof named === 'string' && named ? undefined : seededTurns(body.messages.slice(0, -1));
    opts.limiter.take('agent', actorOf(caller));
    const sessionId = seeded ? await store.seedSession(caller, target, seeded, message || '(attachment)') : await namedSession(caller, target, String(named));
    res.setHeader('x-session-id', sessionId);
    const attachments = await opts.attachments.save(sessionId, incoming);
    // Durable (its events kept): an approval parks it, a crash or a deploy hands it to another process.
    const run = (life: RunLifetime, emit: Emit): Promise<Answered> => target.kind === 'agent'
      ? opts.agents.run(caller, target.row, { message, sessionId }, life, emit, { durable: true, client, attachments })
      : opts.orchestrations.run(caller, target.row, { message, sessionId }, life, emit, { durable: true });
    return answerWith(res, asked, (life, tap) => recordedRun(opts.events.log, target.kind, (push) => run(life, alsoTo(push as Emit, tap))));
  }));

  /** The named session the turn runs in: the caller's, of this agent, else 404. */
  const namedSession = async (caller: RequestContext, target: Runnable, named: string): Promise<string> => {
    if (!UUID.test(named) || !(await store.sessionOf(caller, target, named.toLowerCase()))) throw aiErrors.notFound('Session');
    return named.toLowerCase();
  };

  /** The part's answer, as JSON or streamed; `runId` when the run exists already (a waiting run its client answered). */
  const answerWith = (res: Response, asked: Asked, part: Part, runId?: string) => (asked.stream ? stream(res, asked, part, runId) : json(res, asked, part));

  /**
   * A completion as JSON: the answer, or the calls of the client's tools the
   * run now waits on. A run parked on an approval is followed to where it
   * ends or waits (any worker carries it on), then answered.
   */
  const json = async (res: Response, asked: Asked, run: Part) => {
    const part = (u: Totals) => asked.since?.(u) ?? u;
    const answered = (done: Answered) => res.json(completion(`chatcmpl-${done.run_id}`, asked.model, asked.created, done.output, done.stop_reason, part(done.usage)));
    const handed = (runId: string, calls: HandedCall[], usage: Totals) => res.json(toolCallsCompletion(`chatcmpl-${runId}`, asked.model, asked.created, calls, part(usage)));
    try {
      return answered(await run(runLifetime(res, opts.stop), undefined));
    } catch (err) {
      if (err instanceof AwaitingClient) return handed(err.runId, err.calls, err.usage);
      if (!(err instanceof Parked)) throw err;
      const last = await followToEnd(res, asked.services, asked.kind, err.runId);
      if (last.type === 'client_tool_calls') return handed(err.runId, last.calls as HandedCall[], last.usage as Totals);
      return answered(await asked.answer(err.runId));
    }
  };

  /**
   * Chunks as OpenAI sends them: the role, the answer's text as it comes (a
   * member's text inside a delegation is not the answer and is not sent),
   * the calls of the client's tools when the run waits on them, the finish
   * reason, usage when asked, then `data: [DONE]`. A failure before the
   * first chunk is a plain HTTP error; after it, an error object. The run's
   * events are kept: one that parks on an approval is followed from them
   * (the answer may come from any client, a worker carries the run on), and
   * its chunks go on as if it had run here all along.
   */
  const stream = async (res: Response, o: Asked, part: Part, runId?: string) => {
    const life = runLifetime(res, opts.stop);
    let shape: ReturnType<typeof chunks> | undefined;
    let told = 0;
    let usage: Totals | undefined;
    const send = (data: unknown) => {
      if (!life.gone()) res.write(`data: ${JSON.stringify(data)}\n\n`);
    };
    const open = (id: string) => {
      shape = chunks(`chatcmpl-${id}`, o.model, o.created);
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
      send(shape.role());
    };
    const chunkOf = (e: { type?: unknown; run_id?: unknown; delta?: unknown; delegation_id?: unknown; tokens_in?: unknown; tokens_out?: unknown; cost_usd?: unknown }) => {
      if (e.type === 'start' && !shape) open(String(e.run_id));
      else if (e.type === 'content_delta' && !e.delegation_id && shape && typeof e.delta === 'string') send(shape.content(e.delta));
      else if (e.type === 'usage') usage = { tokens_in: Number(e.tokens_in), tokens_out: Number(e.tokens_out), cost_usd: Number(e.cost_usd) };
    };
    const end = (stop: Finish, totals: Totals | undefined, calls: HandedCall[] = []) => {
      for (const chunk of shape!.toolCalls(calls)) send(chunk);
      send(shape!.finish(stop));
      if (o.withUsage && totals) send(shape!.usage(o.since?.(totals) ?? totals));
      if (!life.gone()) res.write('data: [DONE]\n\n');
    };
    if (runId) open(runId);
    try {
      const done = await part(life, (e) => {
        told++;
        chunkOf(e);
      });
      end(done.stop_reason, done.usage);
    } catch (err) {
      if (!shape) throw err;
      if (err instanceof AwaitingClient) end('tool_calls', err.usage, err.calls);
      else if (err instanceof Parked && !life.gone()) {
        const left = new AbortController();
        res.once('close', () => left.abort());
        const last = await followEvents({ ...o.services, kind: o.kind, runId: err.runId }, told, (_seq, e) => chunkOf(e), left.signal);
        if (last?.type === 'complete') end(last.stop_reason === 'max_steps' ? 'max_steps' : 'answered', usage);
        else if (last?.type === 'client_tool_calls') end('tool_calls', last.usage as Totals, last.calls as HandedCall[]);
        else if (last?.type === 'error') send(openAiError(aiErrors.endedWith(typeof last.error_code === 'string' ? last.error_code : undefined, String(last.error ?? 'The run failed'), {})));
      } else if (!(err instanceof Parked)) send(openAiError(toApiError(err)));
    }
    res.end();
  };

  return r;
}
