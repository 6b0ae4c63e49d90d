// What the model router takes and answers (router.ts): chat requests and
// results, stream events, embeddings, reranking.
import type OpenAI from 'openai';
import type { UsageContext, UsageTab } from '../usage/ledger.ts';
import type { Provider } from './vendors.ts';

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
  /** A tab for one call's ledger entries, stored by the caller's next statement (usage/ledger.ts UsageTab). */
  tab: () => UsageTab;
};
