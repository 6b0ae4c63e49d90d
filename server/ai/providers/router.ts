// The model router: the only code that calls model vendors. A model id picks
// the vendor (vendors.ts); the key is the project's, else the platform's,
// else 402 provider_key_decrypt_failed. Every call goes through the openai
// SDK against the vendor's OpenAI-compatible API, with a timeout, retries on
// 429 and 5xx (exponential backoff with jitter, honouring Retry-After),
// cancellation through the caller's AbortSignal, optional fallback models on
// a hard failure, and one usage-ledger entry per attempt that reached a model.
import OpenAI from 'openai';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import { ApiError } from '../../errors.ts';
import { aiErrors } from '../errors.ts';
import type { Ledger, UsageContext } from '../usage/ledger.ts';
import { endModelCallSpan, modelCallSpan } from '../../telemetry/genai.ts';
import { traceHeaders } from '../../telemetry/spans.ts';
import type { KeySource } from './keys.ts';
import { routeModel, vendors, type Provider } from './vendors.ts';

export type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
export type ChatTool = OpenAI.Chat.Completions.ChatCompletionTool;
export type ToolCall = { id: string; name: string; arguments: string };
export type Usage = { inputTokens: number; outputTokens: number };

/** Model tuning as agents and blocks store it in `settings`. */
export type ChatSettings = { temperature?: number; max_tokens?: number; top_p?: number; fallback_models?: string[]; [other: string]: unknown };

export type ChatRequest = {
  model: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  tool_choice?: OpenAI.Chat.Completions.ChatCompletionToolChoiceOption;
  response_format?: OpenAI.Chat.Completions.ChatCompletionCreateParams['response_format'];
  settings?: ChatSettings;
  signal?: AbortSignal;
  context: UsageContext;
};

export type ChatResult = { content: string | null; toolCalls: ToolCall[]; usage: Usage; model: string; provider: Provider; finishReason: string | null };

export type StreamEvent =
  | { type: 'content'; delta: string }
  | { type: 'tool_call'; index: number; id?: string; name?: string; argumentsDelta: string }
  | { type: 'done'; result: ChatResult };

export type EmbedRequest = { model: string; input: string | string[]; dimensions?: number; signal?: AbortSignal; context: UsageContext };
export type EmbedResult = { embeddings: number[][]; usage: Usage; model: string; provider: Provider };

export type RerankRequest = { model: string; query: string; documents: string[]; signal?: AbortSignal; context: UsageContext };

export type ModelRouter = {
  chat: (req: ChatRequest) => Promise<ChatResult>;
  chatStream: (req: ChatRequest) => AsyncGenerator<StreamEvent>;
  embed: (req: EmbedRequest) => Promise<EmbedResult>;
  /** A hosted rerank endpoint (RERANK_API_URL) for models named rerank/<model>: a relevance score per document. */
  rerank: (req: RerankRequest) => Promise<number[]>;
};

const MAX_BACKOFF_MS = 30_000;

/** Why an attempt failed, and what to do about it. */
type Failure = { error: ApiError; retryable: boolean; retryAfterMs: number | undefined; fallback: boolean };

export function modelRouter(opts: { config: Config; keys: KeySource; ledger: Ledger; log: Logger }): ModelRouter {
  const { config, keys, ledger, log } = opts;
  const byProvider = vendors(config);

  /** The vendor, its model id and an SDK client with the key in force. */
  const connect = async (model: string) => {
    const routed = routeModel(model);
    if (!routed) throw aiErrors.badModel(model);
    const key = await keys(routed.provider);
    if (!key) throw aiErrors.noProviderKey(routed.provider);
    // The SDK's own retries and logging are off: this router retries, and logs only what is safe to log.
    const client = new OpenAI({ apiKey: key, baseURL: byProvider[routed.provider].openAiBase, maxRetries: 0, timeout: config.AI_PROVIDER_TIMEOUT_MS, logLevel: 'off' });
    return { ...routed, client };
  };

  const classify = (err: unknown, provider: Provider, signal: AbortSignal | undefined): Failure => {
    if (signal?.aborted || err instanceof OpenAI.APIUserAbortError) return { error: aiErrors.cancelled(), retryable: false, retryAfterMs: undefined, fallback: false };
    if (err instanceof OpenAI.APIConnectionTimeoutError) return { error: aiErrors.providerTimeout(provider), retryable: true, retryAfterMs: undefined, fallback: true };
    if (err instanceof OpenAI.APIConnectionError) return { error: aiErrors.providerFailed(provider, 'connection failed'), retryable: true, retryAfterMs: undefined, fallback: true };
    if (err instanceof OpenAI.APIError) {
      const status = err.status ?? 0;
      const message = err.message.replace(/^\d{3} /, '').slice(0, 300);
      const retryable = status === 429 || status >= 500;
      // A request the vendor refused as malformed fails the same way on any model: no fallback.
      return { error: aiErrors.providerFailed(provider, message, status), retryable, retryAfterMs: retryAfter(err.headers), fallback: status !== 400 && status !== 422 };
    }
    if (err instanceof ApiError) return { error: err, retryable: false, retryAfterMs: undefined, fallback: err.status === 402 };
    return { error: aiErrors.providerFailed(provider, (err as Error)?.message ?? 'unknown error'), retryable: false, retryAfterMs: undefined, fallback: true };
  };

  const backoff = (attempt: number, retryAfterMs: number | undefined): number => {
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, MAX_BACKOFF_MS);
    const base = config.AI_PROVIDER_RETRY_BASE_MS * 2 ** attempt;
    return Math.min(base * (0.75 + Math.random() * 0.5), MAX_BACKOFF_MS);
  };

  /**
   * Runs `attempt` on the model, then on each fallback model after a hard
   * failure; retries each model on 429, 5xx and lost connections first.
   */
  const withPolicy = async <T>(model: string, settings: ChatSettings | undefined, signal: AbortSignal | undefined, attempt: (model: string) => Promise<T>): Promise<T> => {
    await ledger.checkCredits();
    const models = [model, ...(Array.isArray(settings?.fallback_models) ? settings.fallback_models.filter((m): m is string => typeof m === 'string') : [])];
    let last: Failure | undefined;
    for (const candidate of models) {
      for (let tries = 0; ; tries++) {
        try {
          return await attempt(candidate);
        } catch (err) {
          last = classify(err, routeModel(candidate)?.provider ?? 'openai', signal);
          if (!last.retryable || tries >= config.AI_PROVIDER_MAX_RETRIES) break;
          const wait = backoff(tries, last.retryAfterMs);
          log.warn({ model: candidate, attempt: tries + 1, wait_ms: Math.round(wait), error: last.error.message }, 'model call failed; retrying');
          await sleep(wait, signal).catch(() => undefined);
          if (signal?.aborted) throw aiErrors.cancelled();
        }
      }
      if (!last.fallback) break;
      if (candidate !== models.at(-1)) log.warn({ model: candidate, error: last.error.message }, 'model failed; trying the next fallback model');
    }
    throw last!.error;
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
        await ledger.record({ ...req.context, model: modelId, provider, kind: 'chat', tokensIn: usage.inputTokens, tokensOut: usage.outputTokens, latencyMs: Date.now() - started, ok });
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
      await ledger.record({ ...req.context, model: modelId, provider, kind: 'chat', tokensIn: usage.inputTokens, tokensOut: usage.outputTokens, latencyMs: Date.now() - started, ok });
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
        await ledger.record({ ...req.context, model: modelId, provider, kind: 'embedding', tokensIn: tokens, tokensOut: 0, latencyMs: Date.now() - started, ok });
      }
    });

  const rerank = async (req: RerankRequest): Promise<number[]> => {
    if (!config.RERANK_API_URL) throw aiErrors.validation(`The reranker ${req.model} needs a hosted rerank endpoint: set RERANK_API_URL`);
    await ledger.checkCredits();
    const started = Date.now();
    let tokens = 0;
    let ok = false;
    try {
      const signal = AbortSignal.any([AbortSignal.timeout(config.AI_PROVIDER_TIMEOUT_MS), ...(req.signal ? [req.signal] : [])]);
      const res = await fetch(`${config.RERANK_API_URL.replace(/\/$/, '')}/rerank`, {
        method: 'POST', signal,
        headers: { 'content-type': 'application/json', ...(config.RERANK_API_KEY ? { authorization: `Bearer ${config.RERANK_API_KEY}` } : {}) },
        body: JSON.stringify({ model: req.model.replace(/^rerank\//, ''), query: req.query, documents: req.documents, top_n: req.documents.length }),
      }).catch((err: Error) => {
        throw req.signal?.aborted ? aiErrors.cancelled() : err.name === 'TimeoutError' ? aiErrors.providerTimeout('rerank') : aiErrors.providerFailed('rerank', 'connection failed');
      });
      const text = await res.text();
      if (!res.ok) throw aiErrors.providerFailed('rerank', `${res.status} ${text.slice(0, 200)}`, res.status);
      // Cohere and Jina answer {results: [{index, relevance_score}]}; text-embeddings-inference [{index, score}].
      const body = JSON.parse(text) as { results?: unknown[]; usage?: { total_tokens?: number } } | unknown[];
      const list = (Array.isArray(body) ? body : body.results ?? []) as Array<{ index?: number; relevance_score?: number; score?: number }>;
      const scores = req.documents.map(() => 0);
      for (const r of list) if (typeof r.index === 'number' && r.index >= 0 && r.index < scores.length) scores[r.index] = Number(r.relevance_score ?? r.score ?? 0);
      tokens = Array.isArray(body) ? 0 : body.usage?.total_tokens ?? 0;
      ok = true;
      return scores;
    } finally {
      await ledger.record({ ...req.context, model: req.model, provider: 'rerank', kind: 'rerank', tokensIn: tokens, tokensOut: 0, latencyMs: Date.now() - started, ok });
    }
  };

  return { chat, chatStream, embed, rerank };
}

/** Retry-After (seconds or an HTTP date) or retry-after-ms, in milliseconds. */
function retryAfter(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms >= 0 && headers?.get('retry-after-ms')) return ms;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
