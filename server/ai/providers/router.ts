// The model router: the only code that calls model vendors (its retry policy
// in retries.ts, the hosted reranker in rerank.ts). A model id picks
// the vendor (vendors.ts); the key is the project's, else the platform's,
// else 402 provider_key_decrypt_failed. Every call goes through the openai
// SDK against the vendor's OpenAI-compatible API, with a timeout, retries on
// 429 and 5xx (exponential backoff with jitter, honouring Retry-After),
// cancellation through the caller's AbortSignal, optional fallback models on
// a hard failure, and one usage-ledger entry per attempt that reached a model.
import OpenAI from 'openai';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import { aiErrors } from '../errors.ts';
import type { Ledger, UsageContext, UsageEntry } from '../usage/ledger.ts';
import { endModelCallSpan, modelCallSpan } from '../../telemetry/genai.ts';
import { traceHeaders } from '../../telemetry/spans.ts';
import type { KeySource } from './keys.ts';
import { reranker } from './rerank.ts';
import { retryPolicy } from './retries.ts';
import type { ChatRequest, ChatResult, ChatSettings, EmbedRequest, EmbedResult, ModelRouter, StreamEvent, ToolCall, Usage } from './types.ts';
import { routeModel, vendors } from './vendors.ts';

export type { ChatMessage, ChatRequest, ChatResult, ChatSettings, ChatTool, EmbedRequest, EmbedResult, ModelRouter, RerankRequest, StreamEvent, ToolCall, Usage } from './types.ts';

export function modelRouter(opts: { config: Config; keys: KeySource; ledger: Ledger; log: Logger }): ModelRouter {
  const { config, keys, ledger } = opts;
  const byProvider = vendors(config);
  const { withPolicy, classify } = retryPolicy(opts);

  // One SDK client per vendor while its key stays the same (a client holds no connection of its own; building one per call showed in profiles).
  const clients = new Map<string, { key: string; client: OpenAI }>();
  /** The vendor, its model id and an SDK client with the key in force. */
  const connect = async (model: string) => {
    const routed = routeModel(model);
    if (!routed) throw aiErrors.badModel(model);
    const key = await keys(routed.provider);
    if (!key) throw aiErrors.noProviderKey(routed.provider);
    let kept = clients.get(routed.provider);
    if (kept?.key !== key) {
      // The SDK's own retries and logging are off: this router retries, and logs only what is safe to log.
      kept = { key, client: new OpenAI({ apiKey: key, baseURL: byProvider[routed.provider].openAiBase, maxRetries: 0, timeout: config.AI_PROVIDER_TIMEOUT_MS, logLevel: 'off' }) };
      clients.set(routed.provider, kept);
    }
    return { ...routed, client: kept.client };
  };

  /** A call's ledger entry: held on the caller's tab when it has one (its next statement stores it), else recorded now. */
  const charge = async ({ tab, ...context }: UsageContext, call: Omit<UsageEntry, keyof UsageContext>): Promise<void> => {
    const entry = { ...context, ...call };
    if (tab) tab.add(entry);
    else await ledger.record(entry);
  };

  const tuning = (s: ChatSettings | undefined) => ({
    ...(typeof s?.temperature === 'number' ? { temperature: s.temperature } : {}),
    ...(typeof s?.max_tokens === 'number' ? { max_tokens: s.max_tokens } : {}),
    ...(typeof s?.top_p === 'number' ? { top_p: s.top_p } : {}),
  });
  const body = (req: ChatRequest, model: string) => ({
    model, messages: req.messages, ...tuning(req.settings),
    ...(req.tools && req.tools.length > 0 ? { tools: req.tools, ...(req.tool_choice ? { tool_choice: req.tool_choice } : {}) } : {}),
    ...(req.response_format ? { response_format: req.response_format } : {}),
  });

  const chat = (req: ChatRequest): Promise<ChatResult> =>
    withPolicy(req.model, req.settings, req.signal, async (modelId) => {
      const { provider, model, client } = await connect(modelId);
      const started = Date.now();
      let usage: Usage = { inputTokens: 0, outputTokens: 0 };
      let ok = false;
      const span = modelCallSpan('chat', provider, model, { ...req.settings, messages: req.messages });
      let answered: { model?: string; finishReason?: string | null; output?: unknown; error?: unknown } = {};
      try {
        const completion = await client.chat.completions.create({ ...body(req, model), stream: false }, { signal: req.signal, headers: traceHeaders(span) });
        usage = { inputTokens: completion.usage?.prompt_tokens ?? 0, outputTokens: completion.usage?.completion_tokens ?? 0 };
        const choice = completion.choices[0];
        ok = true;
        answered = { model: completion.model, finishReason: choice?.finish_reason ?? null, output: choice?.message };
        return {
          content: choice?.message.content ?? null,
          toolCalls: (choice?.message.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : [])),
          usage, model: modelId, provider, finishReason: choice?.finish_reason ?? null,
        };
      } catch (err) {
        answered = { error: err };
        throw err;
      } finally {
        endModelCallSpan(span, { ...usage, ...answered });
        await charge(req.context, { model: modelId, provider, kind: 'chat', tokensIn: usage.inputTokens, tokensOut: usage.outputTokens, latencyMs: Date.now() - started, ok });
      }
    });

  /**
   * Deltas as they come (content, and tool-call fragments by index), then
   * `done` with the whole result and usage. Retries and fallbacks happen
   * only before the first delta: a stream that broke halfway fails.
   */
  async function* chatStream(req: ChatRequest): AsyncGenerator<StreamEvent> {
    const started = Date.now();
    const opened = await withPolicy(req.model, req.settings, req.signal, async (modelId) => {
      const { provider, model, client } = await connect(modelId);
      const span = modelCallSpan('chat', provider, model, { ...req.settings, messages: req.messages });
      try {
        const stream = await client.chat.completions.create({ ...body(req, model), stream: true, stream_options: { include_usage: true } }, { signal: req.signal, headers: traceHeaders(span) });
        return { stream, provider, modelId, span };
      } catch (err) {
        endModelCallSpan(span, { inputTokens: 0, outputTokens: 0, error: err });
        throw err;
      }
    });
    const { stream, provider, modelId, span } = opened;
    let answeredModel: string | undefined;
    let failure: unknown;
    let content = '';
    const calls = new Map<number, ToolCall>();
    let usage: Usage = { inputTokens: 0, outputTokens: 0 };
    let finishReason: string | null = null;
    let ok = false;
    try {
      for await (const chunk of stream) {
        if (chunk.usage) usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
        answeredModel ??= chunk.model;
        const choice = chunk.choices[0];
        if (!choice) continue;
        if (choice.finish_reason) finishReason = choice.finish_reason;
        if (choice.delta.content) {
          content += choice.delta.content;
          yield { type: 'content', delta: choice.delta.content };
        }
        for (const d of choice.delta.tool_calls ?? []) {
          const call = calls.get(d.index) ?? { id: '', name: '', arguments: '' };
          if (d.id) call.id = d.id;
          if (d.function?.name) call.name += d.function.name;
          if (d.function?.arguments) call.arguments += d.function.arguments;
          calls.set(d.index, call);
          yield { type: 'tool_call', index: d.index, ...(d.id ? { id: d.id } : {}), ...(d.function?.name ? { name: d.function.name } : {}), argumentsDelta: d.function?.arguments ?? '' };
        }
      }
      ok = true;
    } catch (err) {
      failure = classify(err, provider, req.signal).error;
      throw failure;
    } finally {
      const output = { role: 'assistant', content: content || null, ...(calls.size > 0 ? { tool_calls: [...calls.values()] } : {}) };
      endModelCallSpan(span, { ...usage, model: answeredModel, finishReason, output, error: failure ?? (ok ? undefined : new Error('the stream was not read to its end')) });
      await charge(req.context, { model: modelId, provider, kind: 'chat', tokensIn: usage.inputTokens, tokensOut: usage.outputTokens, latencyMs: Date.now() - started, ok });
    }
    const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
    yield { type: 'done', result: { content: content || null, toolCalls, usage, model: modelId, provider, finishReason } };
  }

  const embed = (req: EmbedRequest): Promise<EmbedResult> =>
    withPolicy(req.model, undefined, req.signal, async (modelId) => {
      const { provider, model, client } = await connect(modelId);
      const started = Date.now();
      let tokens = 0;
      let ok = false;
      const span = modelCallSpan('embeddings', provider, model, {});
      let failure: unknown;
      try {
        const result = await client.embeddings.create(
          { model, input: req.input, encoding_format: 'float', ...(req.dimensions ? { dimensions: req.dimensions } : {}) },
          { signal: req.signal, headers: traceHeaders(span) },
        );
        tokens = result.usage?.prompt_tokens ?? 0;
        ok = true;
        const embeddings = [...result.data].sort((a, b) => a.index - b.index).map((d) => d.embedding as number[]);
        return { embeddings, usage: { inputTokens: tokens, outputTokens: 0 }, model: modelId, provider };
      } catch (err) {
        failure = err;
        throw err;
      } finally {
        endModelCallSpan(span, { inputTokens: tokens, outputTokens: 0, ...(ok ? { model } : { error: failure }) });
        await charge(req.context, { model: modelId, provider, kind: 'embedding', tokensIn: tokens, tokensOut: 0, latencyMs: Date.now() - started, ok });
      }
    });

  return { chat, chatStream, embed, rerank: reranker(config, ledger), tab: ledger.tab };
}
