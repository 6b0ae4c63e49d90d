// The tool-calling loop every agent run shares (a standalone run, a member of
// an orchestration, its coordinator, a workflow block): call the model, run
// the tool calls it asks for, feed their results back, until it answers or
// the step cap is reached. Bookkeeping (sessions, run records, hooks) is the
// caller's, through `fire` and `record`.
import { randomUUID } from 'node:crypto';
import { idempotencyKey } from '../runtime/net/idempotency.ts';
import { HandedOver } from '../failures.ts';
import { toolCallSpan } from '../../telemetry/genai.ts';
import { inSpan } from '../../telemetry/spans.ts';
import type { ChatMessage, ChatRequest, ChatResult, ChatTool, ModelRouter, ToolCall } from '../providers/router.ts';
import { aiErrors } from '../errors.ts';
import type { UsageContext, UsageTab } from '../usage/ledger.ts';
import { argumentsOf, loopToolCall, toolMessage, type LoopResume, type LoopToolCall, type RecordedMessage, type ToolOutcome } from '../steps/step.ts';
import type { Emit } from '../steps/events.ts';
import type { HookVerdict } from './hook-runner.ts';


/** A tool as the model sees it, and how to run it. */
export type FunctionTool = Extract<ChatTool, { type: 'function' }>;
/**
 * `key`: the call's idempotency key (runtime/net/idempotency.ts), for tools that call out.
 * `client`: a tool the run's client runs (an OpenAI client's own, /api/v1): never called here;
 * a step that calls one hands its calls to `awaitClient` once the agent's own calls are done.
 */
export type LoopTool = { chat: FunctionTool; call: (args: unknown, signal: AbortSignal, callId: string, key: string) => Promise<ToolOutcome>; client?: true };
export type LoopInput = {
  models: ModelRouter;
  model: string;
  /** System prompt, history and the new user message. Appended to as the run goes. */
  messages: ChatMessage[];
  tools: LoopTool[];
  maxSteps: number;
  tuning: Record<string, unknown>;
  /** The ledger tags; each model call adds `${stepPrefix}step-${n}`. */
  usage: Omit<UsageContext, 'step'>;
  stepPrefix?: string;
  signal: AbortSignal;
  /** With emit, the loop reports tool_call and tool_result, and model calls stream content_delta unless `stream` is false. */
  emit?: Emit;
  stream?: boolean;
  fire?: (event: string, extra: Record<string, unknown>) => Promise<HookVerdict>;
  record?: (message: RecordedMessage) => Promise<void>;
  /**
   * `record` stores an assistant message's `charges` in its own statement: a
   * model call's ledger rows then cost no round trip of their own (sql/0080).
   * Without it the router records them as each call ends.
   */
  chargesWithRecord?: boolean;
  /** Told as each step starts (a failed run records how far it got). */
  onStep?: (step: number) => void;
  /** A resumed run: `messages` already hold its stored steps; the loop goes on from here. */
  from?: LoopResume | undefined;
  /** Hands the calls of client tools to the client (the run waits for their results): never returns. */
  awaitClient?: ((calls: ToolCall[]) => Promise<never>) | undefined;
  /** The client's tool_choice: the first model call of this loop is asked it (later ones choose freely). */
  toolChoice?: ChatRequest['tool_choice'] | undefined;
  /** The client's response_format, asked of every model call. */
  responseFormat?: ChatRequest['response_format'] | undefined;
  /**
   * What is wrong with an answer (undefined: nothing), by the response format.
   * A wrong answer is sent back once with the reason; wrong again, the run
   * fails with RESPONSE_FORMAT_MISMATCH. With a check, the answer's text is
   * told once checked, in one content_delta, not as the model streams it.
   */
  checkAnswer?: ((output: string) => string | undefined) | undefined;
};

export type LoopResult = { output: string; stop: 'answered' | 'max_steps'; steps: number; toolCalls: LoopToolCall[] };

/** The tool a member is delegated to by: `delegate_to_<name>`, as function names allow. */
export function delegateToolName(agentName: string): string {
  return `delegate_to_${agentName.replace(/[^a-zA-Z0-9_-]/g, '_')}`.slice(0, 64);
}

const allow = async (): Promise<HookVerdict> => ({ decision: 'allow' });

export async function runLoop(input: LoopInput): Promise<LoopResult> {
  const { models, messages, emit, signal } = input;
  const fire = input.fire ?? allow;
  const record = input.record ?? (async () => undefined);
  const toolCalls: LoopToolCall[] = [];
  const runCalls = toolRunner(input, fire, record, toolCalls);
  let output = '';
  let steps = 0;
  let choiceAsked = false;
  let retriedFormat = false;
  if (input.from) {
    steps = input.from.steps;
    if (input.from.answered !== undefined) return { output: input.from.answered, stop: 'answered', steps, toolCalls };
    input.onStep?.(steps);
    for (const { call, outcome, latency_ms } of input.from.done) {
      emit?.(toolCallEvent(call, steps));
      emit?.(toolResultEvent(call, outcome, latency_ms));
    }
    await runCalls(input.from.pending, steps);
  }
  while (steps < input.maxSteps) {
    steps++;
    input.onStep?.(steps);
    const answered = await inSpan(`step ${steps}`, { attributes: { 'pgbase.step': steps, ...(input.usage.runId ? { 'pgbase.run_id': input.usage.runId } : {}) } }, () => step(steps));
    if (answered) return answered;
  }
  return { output, stop: 'max_steps', steps, toolCalls };

  /** One model call and its tool calls; the run's result when the model answered. */
  async function step(n: number): Promise<LoopResult | undefined> {
    // The call's ledger rows go with the message that stores its answer; whatever that statement does not take is recorded on its own.
    const tab = input.chargesWithRecord ? models.tab() : undefined;
    const choice = input.toolChoice && !choiceAsked ? input.toolChoice : undefined;
    choiceAsked = true;
    const request = {
      model: input.model, messages, settings: input.tuning, signal,
      ...(input.tools.length > 0 ? { tools: input.tools.map((t) => t.chat), ...(choice ? { tool_choice: choice } : {}) } : {}),
      ...(input.responseFormat ? { response_format: input.responseFormat } : {}),
      context: { ...input.usage, step: `${input.stepPrefix ?? ''}step-${n}`, ...(tab ? { tab } : {}) },
    };
    const started = Date.now();
    let result: ChatResult | undefined;
    try {
      if (emit && input.stream !== false) {
        for await (const event of models.chatStream(request)) {
          if (event.type === 'content' && event.delta && !input.checkAnswer) emit({ type: 'content_delta', delta: event.delta, step: n });
          else if (event.type === 'done') result = event.result;
        }
        if (!result) throw new Error('the model stream ended without a result');
      } else result = await models.chat(request);
      const turnMs = Date.now() - started;
      output = result.content ?? '';
      if (result.toolCalls.length === 0) {
        const wrong = input.checkAnswer?.(output);
        if (wrong !== undefined) {
          if (retriedFormat) throw aiErrors.responseFormatMismatch(wrong);
          // Told why, once, in this run's memory only (a resumed run asks again from its stored steps).
          retriedFormat = true;
          messages.push({ role: 'assistant', content: output }, { role: 'user', content: `Your answer does not match the required response format: ${wrong}. Answer again with only the JSON it asks for.` });
          return undefined;
        }
        if (input.checkAnswer && output) emit?.({ type: 'content_delta', delta: output, step: n });
        // A hook may take long (a person's approval): the call is charged before it runs.
        if (input.fire) await tab?.flush();
        await fire('PreResponse', { response: output });
        await recordCharged({ role: 'assistant', content: output, latency_ms: turnMs }, tab);
        messages.push({ role: 'assistant', content: output });
        return { output, stop: 'answered', steps: n, toolCalls };
      }
      messages.push({ role: 'assistant', content: result.content, tool_calls: result.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) });
      await recordCharged({ role: 'assistant', content: result.content, tool_calls: result.toolCalls, latency_ms: turnMs }, tab);
    } finally {
      await tab?.flush();
    }
    await runCalls(result.toolCalls.map((call, position) => ({ n: position, call })), n);
    return undefined;
  }

  /**
   * Stores a model call's answer with its ledger rows; rows a failed statement
   * did not store stay on the tab (a step refused, its run taken over or
   * cancelled, still stored them: the tab does not hold those again).
   */
  async function recordCharged(message: RecordedMessage, tab: UsageTab | undefined): Promise<void> {
    const charges = tab?.take() ?? [];
    try {
      await record(charges.length > 0 ? { ...message, charges } : message);
    } catch (err) {
      tab?.putBack(charges);
      throw err;
    }
  }
}

/** Runs a step's tool calls in order: hooks, the tool, its result reported, stored and fed back. */
function toolRunner(input: LoopInput, fire: NonNullable<LoopInput['fire']>, record: NonNullable<LoopInput['record']>, toolCalls: LoopToolCall[]) {
  const { tools, emit, signal, messages } = input;
  // A loop with no run (none today keeps its tools' calls apart otherwise) still gives each call its own key.
  const runKey = input.usage.runId ?? randomUUID();
  const isClients = (name: string) => tools.some((t) => t.client && t.chat.function.name === name);
  return async (calls: LoopResume['pending'], steps: number) => {
    const clients = calls.filter(({ call }) => isClients(call.name));
    for (const { n, call } of calls) if (!isClients(call.name)) await toolCallSpan(call, () => runCall(n, call, steps));
    if (clients.length === 0) return;
    // The client runs these: told as calls, then handed over; the run waits for their results.
    for (const { call } of clients) emit?.(toolCallEvent(call, steps));
    if (!input.awaitClient) throw new Error('a client tool was called in a run that has no client');
    await input.awaitClient(clients.map(({ call }) => call));
  };

  async function runCall(n: number, call: LoopResume['pending'][number]['call'], steps: number): Promise<LoopToolCall> {
    const tool = tools.find((t) => t.chat.function.name === call.name);
    // The call's place in the run (step, position, the model's id): the same on a repeat, its own otherwise.
    const key = idempotencyKey('tool', runKey, `${input.stepPrefix ?? ''}step-${steps}/${n}`, call.id);
    emit?.(toolCallEvent(call, steps));
    const began = Date.now();
    let args = argumentsOf(call.arguments);
    let outcome: ToolOutcome;
    if (args === undefined) outcome = { ok: false, error: `The arguments of ${call.name} are not valid JSON` };
    else if (!tool) outcome = { ok: false, error: `Unknown tool ${call.name}: it is not available to this agent` };
    else {
      const verdict = await fire('PreToolUse', { tool_name: call.name, tool_call_id: call.id, step: steps, arguments: args });
      if (verdict.decision === 'deny') outcome = { ok: false, error: `Denied by hook: ${verdict.reason ?? 'no reason given'}` };
      else {
        if (verdict.arguments) args = verdict.arguments;
        try {
          outcome = await tool.call(args, signal, call.id, key);
        } catch (err) {
          // Stopped, or the run is another process's now (a delegation's member could not store its step): no result.
          if (signal.aborted || err instanceof HandedOver) throw err;
          outcome = { ok: false, error: (err as Error).message };
        }
        // A call cut off by a cancel or the server's stop is not a result: nothing is stored, the run ends
        // (a resumed run makes the call again, with the same key).
        if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('The run was stopped');
        await fire('PostToolUse', { tool_name: call.name, tool_call_id: call.id, step: steps, arguments: args, result: outcome.ok ? outcome.output : { error: outcome.error } });
      }
    }
    if (args === undefined) args = call.arguments;
    const latency = Date.now() - began;
    const content = toolMessage(outcome);
    const done = loopToolCall(call, args, outcome, latency);
    // Stored before it is told: a result followers saw is one a resumed run has (and does not run again).
    await record({ role: 'tool', content, tool_call_id: call.id, name: call.name, is_error: !outcome.ok, latency_ms: latency });
    toolCalls.push(done);
    messages.push({ role: 'tool', tool_call_id: call.id, content });
    emit?.(toolResultEvent(call, outcome, latency));
    return done;
  }
}

type ToolCallAsked = ChatResult['toolCalls'][number];
const toolCallEvent = (call: ToolCallAsked, step: number) => ({ type: 'tool_call' as const, id: call.id, name: call.name, arguments: call.arguments, step });
const toolResultEvent = (call: ToolCallAsked, outcome: ToolOutcome, latencyMs: number) =>
  ({ type: 'tool_result' as const, id: call.id, name: call.name, ok: outcome.ok, ...(outcome.ok ? { result: outcome.output } : { error: outcome.error }), latency_ms: latencyMs });
