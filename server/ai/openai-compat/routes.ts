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
// approvals run inside the run; a request that brings its own `tools` is
// refused (the agent's tool calls are never handed to the client). Errors are
// OpenAI's body: the surface declares openAiShape (server/start.ts).
import express, { type Response, type Router } from 'express';
import type { RequestContext } from '../../../db/as-role.ts';
import { z } from 'zod';
import { route, toApiError } from '../../errors.ts';
import type { AgentRunner } from '../agents/run.ts';
import { contextOf, type AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { runLifetime } from '../runs/lifetime.ts';
import type { OrchestrationRunner } from '../orchestrations/run.ts';
import { parse, UUID } from '../parse.ts';
import { alsoTo, type Emit } from '../steps/events.ts';
import { agentAnswer } from '../agents/run-answer.ts';
import { Parked } from '../failures.ts';
import { jsonRun } from '../runs/json-run.ts';
import { followEvents, type RunServices } from '../runs/follow.ts';
import { recordedRun } from '../runs/recorded.ts';
import { openAiStore, type Runnable } from './store.ts';
import { actorOf } from '../actor.ts';
import type { RunLimiter } from '../runs/limiter.ts';
import { checkRunMessage, checkSeededHistory } from '../sessions/limits.ts';
import { chunks, completion, modelIds, modelObject, openAiError } from './wire.ts';

const Part = z.object({ type: z.string(), text: z.string().optional() }).passthrough();
const Message = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool'], { error: 'each message needs a role: system, developer, user or assistant' }),
  content: z.union([z.string(), z.array(Part)]).nullable().optional(),
}).passthrough();
export const ChatCompletionBody = z.object({
  model: z.string({ error: 'model is required: agent/<name or id> or orchestration/<name or id>' }).min(1, 'model is required'),
  messages: z.array(Message, { error: 'messages is required: an array of {role, content}' }).min(1, 'messages must not be empty').max(1000, 'at most 1000 messages'),
  stream: z.boolean({ error: 'stream must be a boolean' }).nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).passthrough().nullish(),
  tools: z.array(z.unknown()).nullish(),
}).passthrough();

/** The earlier user and assistant turns a new session is seeded with (system messages are the agent's own), within bounds. */
function seededTurns(earlier: Array<z.infer<typeof Message>>): Array<{ role: 'user' | 'assistant'; content: string }> {
  const turns = earlier.flatMap((m, i) => {
    if (m.role === 'tool') throw aiErrors.validation(`messages[${i}]: tool messages are not supported here: the agent runs its own tools`);
    return m.role === 'user' || m.role === 'assistant' ? [{ role: m.role, content: textOf(m, i) }] : [];
  });
  checkSeededHistory(turns);
  return turns;
}

/** A message's text: a string, or its text parts joined (other parts refused). */
function textOf(m: z.infer<typeof Message>, i: number): string {
  if (typeof m.content === 'string') return m.content;
  if (m.content == null) return '';
  if (m.content.some((p) => p.type !== 'text' || typeof p.text !== 'string')) throw aiErrors.validation(`messages[${i}]: only text content is supported`);
  return m.content.map((p) => p.text).join('');
}

/** What a run answers here (an agent's or an orchestration's). */
type Answered = { run_id: string; output: string; stop_reason: 'answered' | 'max_steps'; usage: { tokens_in: number; tokens_out: number; cost_usd: number } };
type FollowedServices = RunServices & { caller: RequestContext };

export function openAiRoutes(opts: { calls: AiCalls; agents: AgentRunner; orchestrations: OrchestrationRunner; limiter: RunLimiter; stop: AbortSignal; events: RunServices }): Router {
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
    if (body.tools && body.tools.length > 0) throw aiErrors.validation('tools are not supported here: the agent runs its own tools; send messages only');
    const last = body.messages.at(-1)!;
    if (last.role !== 'user') throw aiErrors.validation('the last message must be the user\'s: it is the turn the agent answers');
    const caller = contextOf(req);
    const target = await store.find(caller, body.model);
    if (!target) throw aiErrors.modelNotFound(body.model);
    const message = textOf(last, body.messages.length - 1).trim();
    if (!message) throw aiErrors.validation('the last message has no text');
    checkRunMessage(message, 'the last message');
    // Without a session, the earlier messages seed a new one: checked (and bounded) before the run is counted.
    const named = req.headers['x-session-id'];
    const seeded = typeof named === 'string' && named ? undefined : seededTurns(body.messages.slice(0, -1));
    opts.limiter.take('agent', actorOf(caller));
    const sessionId = seeded ? await store.seedSession(caller, target, seeded, message) : await namedSession(caller, target, String(named));
    res.setHeader('x-session-id', sessionId);
    // Durable (its events kept): an approval parks it, a crash or a deploy hands it to another process.
    const run = (life: ReturnType<typeof runLifetime>, emit: Emit): Promise<Answered> => target.kind === 'agent'
      ? opts.agents.run(caller, target.row, { message, sessionId }, life, emit, { durable: true })
      : opts.orchestrations.run(caller, target.row, { message, sessionId }, life, emit, { durable: true });
    const created = Math.floor(Date.now() / 1000);
    const services = { ...opts.events, caller };
    if (!body.stream) {
      // Parked on an approval: the request follows the run to its end (any worker carries it on), then answers.
      const answer = target.kind === 'agent' ? agentAnswer(opts.calls, caller) : (id: string) => opts.orchestrations.answer(caller, id);
      const done = await jsonRun<Answered>(res, services, target.kind, (push) => run(runLifetime(res, opts.stop), push as Emit), answer);
      return void res.json(completion(`chatcmpl-${done.run_id}`, body.model, created, done.output, done.stop_reason, done.usage));
    }
    await stream(res, { model: body.model, created, withUsage: body.stream_options?.include_usage === true, kind: target.kind, services }, run);
  }));

  /** The named session the turn runs in: the caller's, of this agent, else 404. */
  const namedSession = async (caller: RequestContext, target: Runnable, named: string): Promise<string> => {
    if (!UUID.test(named) || !(await store.sessionOf(caller, target, named.toLowerCase()))) throw aiErrors.notFound('Session');
    return named.toLowerCase();
  };

  /**
   * Chunks as OpenAI sends them: the role, the answer's text as it comes (a
   * member's text inside a delegation is not the answer and is not sent),
   * the finish reason, usage when asked, then `data: [DONE]`. A failure
   * before the first chunk is a plain HTTP error; after it, an error object.
   * The run's events are kept: one that parks on an approval is followed
   * from them (the answer may come from any client, a worker carries the
   * run on), and its chunks go on as if it had run here all along.
   */
  const stream = async (res: Response, o: { model: string; created: number; withUsage: boolean; kind: 'agent' | 'orchestration'; services: FollowedServices }, run: (life: ReturnType<typeof runLifetime>, emit: Emit) => Promise<Answered>) => {
    const life = runLifetime(res, opts.stop);
    let shape: ReturnType<typeof chunks> | undefined;
    let told = 0;
    let usage: Answered['usage'] | undefined;
    const send = (data: unknown) => {
      if (!life.gone()) res.write(`data: ${JSON.stringify(data)}\n\n`);
    };
    const chunkOf = (e: { type?: unknown; run_id?: unknown; delta?: unknown; delegation_id?: unknown; tokens_in?: unknown; tokens_out?: unknown; cost_usd?: unknown }) => {
      if (e.type === 'start' && !shape) {
        shape = chunks(`chatcmpl-${String(e.run_id)}`, o.model, o.created);
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
        send(shape.role());
      } else if (e.type === 'content_delta' && !e.delegation_id && shape && typeof e.delta === 'string') send(shape.content(e.delta));
      else if (e.type === 'usage') usage = { tokens_in: Number(e.tokens_in), tokens_out: Number(e.tokens_out), cost_usd: Number(e.cost_usd) };
    };
    const end = (stop: 'answered' | 'max_steps', totals: Answered['usage'] | undefined) => {
      send(shape!.finish(stop));
      if (o.withUsage && totals) send(shape!.usage(totals));
      if (!life.gone()) res.write('data: [DONE]\n\n');
    };
    try {
      const done = await recordedRun(opts.events.log, o.kind, (push) => run(life, alsoTo(push as Emit, (e) => {
        told++;
        chunkOf(e);
      })));
      end(done.stop_reason, done.usage);
    } catch (err) {
      if (!shape) throw err;
      if (err instanceof Parked && !life.gone()) {
        const left = new AbortController();
        res.once('close', () => left.abort());
        const last = await followEvents({ ...o.services, kind: o.kind, runId: err.runId }, told, (_seq, e) => chunkOf(e), left.signal);
        if (last?.type === 'complete') end(last.stop_reason === 'max_steps' ? 'max_steps' : 'answered', usage);
        else if (last?.type === 'error') send(openAiError(aiErrors.endedWith(typeof last.error_code === 'string' ? last.error_code : undefined, String(last.error ?? 'The run failed'), {})));
      } else if (!(err instanceof Parked)) send(openAiError(toApiError(err)));
    }
    res.end();
  };

  return r;
}
