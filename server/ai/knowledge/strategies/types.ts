// One interface for every indexing strategy: a source's document in, the
// items to store out (their text, provenance in `meta`, strategy extras, and
// the text to embed when it is not the item's own). The job (../job.ts) does
// the rest: embeddings, storage, progress, the state machine.
import type { ChatResult, ModelRouter } from '../../providers/router.ts';
import type { Settings } from '../../settings/accessor.ts';
import type { Element } from '../../sources/extract/types.ts';
import type { UsageContext } from '../../usage/ledger.ts';

export type SourceDocument = { sourceId: string; name: string; metadata: Record<string, unknown>; elements: Element[]; markdown: string; pages: number };

export type NewItem = { kind: 'chunk' | 'document' | 'node' | 'item'; text: string; meta: Record<string, unknown>; extras?: Record<string, unknown>; tokens: number; embedText?: string };

export type StrategyContext = {
  config: Record<string, unknown>;
  models: ModelRouter;
  settings: Settings;
  usage: UsageContext;
  signal: AbortSignal;
  /** Reports steps done of total; rejects when the run should stop. */
  progress: (done: number, total: number) => Promise<void>;
};

export type Strategy = {
  items: (doc: SourceDocument, ctx: StrategyContext) => Promise<NewItem[]>;
  /** The model the items are embedded with; null: no vectors (full_text only). */
  embeddingModel: (config: Record<string, unknown>) => string | null;
  /** Work on the stored items (their ids known), before the run ends; answers stats to add. */
  afterStore?: (items: Array<{ id: string; text: string }>, ctx: StrategyContext) => Promise<Record<string, unknown>>;
};

// A strategy that cannot do its work throws Failure (failures.ts): the
// indexed source fails with its message. A run that no longer holds
// (cancelled, removed, re-queued) throws Stopped: the job ends quietly.

export const textOfChat = (r: ChatResult): string => r.content ?? '';

/** The configured embedding model; null or "none" turns vectors off. */
export const embeddingModelOf = (config: Record<string, unknown>): string | null => {
  const m = config.embedding_model;
  return typeof m === 'string' && m && m !== 'none' ? m : null;
};
