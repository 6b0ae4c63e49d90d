// What every retrieval method answers: item ids with their scores, best first,
// and what it did, for the diagnostics entry.
import type { RequestContext } from '../../../../db/as-role.ts';

export type Scored = { id: string; score: number };
export type MethodRun = { items: Scored[]; diagnostics: Record<string, unknown> };
export type Retrieval = {
  ctx: RequestContext;
  kbId: string;
  query: string;
  limit: number;
  filter: Record<string, unknown> | null;
  config: Record<string, unknown>;
  embeddingModel: string | null;
  usage: { userId: string | null; feature: string; runId?: string | null; step?: string | null };
};
