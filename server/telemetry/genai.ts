// Model-call spans by the OpenTelemetry GenAI semantic conventions: one
// `chat {model}` (or `embeddings {model}`) CLIENT span per attempt the
// router makes, with provider, requested and answered model, token usage
// and finish reasons. Message contents are added only when
// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
import { SpanKind, type Span } from '@opentelemetry/api';
import { failSpan, inSpan, startSpan } from './spans.ts';
import { tracing } from './state.ts';

// The conventions' provider names; OpenRouter has none of its own.
const PROVIDER_NAME: Record<string, string> = { openai: 'openai', anthropic: 'anthropic', gemini: 'gcp.gemini', openrouter: 'openrouter' };

export type ModelCallSpan = { span: Span | undefined };

export function modelCallSpan(operation: 'chat' | 'embeddings', provider: string, model: string, request: { temperature?: unknown; max_tokens?: unknown; top_p?: unknown; messages?: unknown; serverAddress?: string }): Span | undefined {
  if (!tracing.on) return undefined;
  const span = startSpan(`${operation} ${model}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': operation,
      'gen_ai.provider.name': PROVIDER_NAME[provider] ?? provider,
      'gen_ai.request.model': model,
      ...(typeof request.temperature === 'number' ? { 'gen_ai.request.temperature': request.temperature } : {}),
      ...(typeof request.max_tokens === 'number' ? { 'gen_ai.request.max_tokens': request.max_tokens } : {}),
      ...(typeof request.top_p === 'number' ? { 'gen_ai.request.top_p': request.top_p } : {}),
      ...(request.serverAddress ? { 'server.address': request.serverAddress } : {}),
      ...(tracing.captureMessages && request.messages !== undefined ? { 'gen_ai.input.messages': JSON.stringify(request.messages) } : {}),
    },
  });
  return span;
}

/** Ends a model call's span with what came back (or the error). */
export function endModelCallSpan(span: Span | undefined, outcome: { model?: string | undefined; inputTokens: number; outputTokens: number; finishReason?: string | null | undefined; output?: unknown; error?: unknown }): void {
  if (!span) return;
  if (outcome.model) span.setAttribute('gen_ai.response.model', outcome.model);
  span.setAttribute('gen_ai.usage.input_tokens', outcome.inputTokens);
  span.setAttribute('gen_ai.usage.output_tokens', outcome.outputTokens);
  if (outcome.finishReason) span.setAttribute('gen_ai.response.finish_reasons', [outcome.finishReason]);
  if (tracing.captureMessages && outcome.output !== undefined) span.setAttribute('gen_ai.output.messages', JSON.stringify(outcome.output));
  // By its code (failSpan): a vendor's message may quote the key it refused.
  if (outcome.error) failSpan(span, outcome.error);
  span.end();
}

/**
 * A tool call's `execute_tool {name}` span (hooks and approvals included: the
 * time the run spent on the call). A call that failed is an error span; the
 * arguments and result are added only with message capture on.
 */
export function toolCallSpan<T extends { ok: boolean; arguments?: unknown; result?: string; error?: string }>(call: { id: string; name: string }, fn: () => Promise<T>): Promise<T> {
  if (!tracing.on) return fn();
  return inSpan(`execute_tool ${call.name}`, {
    attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': call.name, 'gen_ai.tool.call.id': call.id, 'gen_ai.tool.type': 'function' },
  }, async (span) => {
    const done = await fn();
    if (tracing.captureMessages) {
      span?.setAttribute('gen_ai.tool.call.arguments', JSON.stringify(done.arguments ?? null));
      if (done.ok) span?.setAttribute('gen_ai.tool.call.result', done.result ?? '');
    }
    if (!done.ok) failSpan(span, null, 'tool_error');
    return done;
  });
}
