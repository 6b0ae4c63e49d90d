// The usage ledger: every model call the router makes is recorded here with
// who, what for, which model, tokens, latency and its price (ai.record_usage
// prices it from ai.model_prices). With AI_BILLING=credits a call is refused
// (402) while the project's credit balance is not above zero.
import type { Request } from 'express';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { metrics, withinSeriesBudget } from '../../telemetry/metrics.ts';

export type UsageContext = {
  /** The user the call is for (null: the project itself, through the service-role key). */
  userId: string | null;
  /** What made the call: workflow, agent, copilot, indexing, enrichment, ... */
  feature: string;
  /** The run, session or job the call belongs to. */
  runId?: string | null;
  /** The step of that run (a workflow block id, an agent turn), for per-step cost. */
  step?: string | null;
  /** Where the call's entries wait for the caller's next statement instead of being recorded on their own (UsageTab). */
  tab?: UsageTab | undefined;
};

export type UsageEntry = Omit<UsageContext, 'tab'> & { model: string; /** The vendor the router called (providers/vendors.ts names them), or 'rerank'. */ provider: string; kind: 'chat' | 'embedding' | 'rerank'; tokensIn: number; tokensOut: number; latencyMs: number; ok: boolean };

export type Ledger = {
  record: (entry: UsageEntry) => Promise<void>;
  /** Throws 402 when billing by credits and none are left. */
  checkCredits: () => Promise<void>;
  /** A tab for one model call's entries (a run's step): see UsageTab. */
  tab: () => UsageTab;
};

/**
 * A model call's ledger entries held for the statement that stores the step
 * answering it (a run's message: sql/0080), so a step is one round trip, not
 * two. What that statement does not take (the call failed, a hook runs
 * first, the statement failed) is recorded on its own by `flush`.
 */
export type UsageTab = {
  add: (entry: UsageEntry) => void;
  /** The entries held, handed to a statement that stores them. */
  take: () => UsageEntry[];
  /** Entries a statement took: held again, but for those it stored (`chargesStored`; a refused step still stores its charges). */
  putBack: (entries: UsageEntry[]) => void;
  /** Records what is still held, each on its own. */
  flush: () => Promise<void>;
};

/** The ledger's fields of an entry, as sql/0080 reads a charge. */
export const chargeRow = (e: UsageEntry) => ({
  user_id: e.userId, feature: e.feature, run_id: e.runId ?? null, step: e.step ?? null, model: e.model, provider: e.provider, kind: e.kind,
  tokens_in: e.tokensIn, tokens_out: e.tokensOut, latency_ms: e.latencyMs, ok: e.ok,
});

// Entries a step's statement stored: a tab never holds (nor records) them again.
const storedEntries = new WeakSet<UsageEntry>();

/** Entries another statement stored (sql/0080), counted as the ledger counts its own: with their prices, in order. */
export function chargesStored(entries: UsageEntry[], costs: Array<number | null>): void {
  entries.forEach((e, i) => {
    storedEntries.add(e);
    countModelCall(e, Number(costs[i] ?? 0));
  });
}

/** The model-call metrics, moved where every call is recorded. */
function countModelCall(e: UsageEntry, cost: number): void {
  // A model is named by whoever made the agent: past the series budget it is counted as `other`.
  const model = { provider: e.provider, model: withinSeriesBudget('model', `${e.provider} ${e.model}`) ? e.model.slice(0, 200) : 'other' };
  metrics.modelCalls.inc({ ...model, kind: e.kind, outcome: e.ok ? 'ok' : 'error' });
  metrics.modelTokens.inc({ ...model, direction: 'input' }, e.tokensIn);
  metrics.modelTokens.inc({ ...model, direction: 'output' }, e.tokensOut);
  if (cost > 0) metrics.modelCost.inc(model, cost);
  metrics.modelSeconds.observe(model, e.latencyMs / 1000);
}

export function usageLedger(adminPool: pg.Pool, billing: 'off' | 'credits', log: Logger): Ledger {
  const record = async (e: UsageEntry): Promise<void> => {
    try {
      const { rows } = await adminPool.query<{ cost: string | null }>('select ai.record_usage($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) as cost', [
        e.userId, e.feature, e.runId ?? null, e.step ?? null, e.model, e.provider, e.kind, e.tokensIn, e.tokensOut, e.latencyMs, e.ok,
      ]);
      countModelCall(e, Number(rows[0]?.cost ?? 0));
    } catch (err) {
      countModelCall(e, 0);
      // A call that happened is never failed for its bookkeeping; the gap is logged.
      log.error({ error: (err as Error).message, model: e.model, feature: e.feature, tokens_in: e.tokensIn, tokens_out: e.tokensOut }, 'usage not recorded');
    }
  };
  return {
    record,
    tab: () => {
      let held: UsageEntry[] = [];
      return {
        add: (e) => void held.push(e),
        take: () => held.splice(0),
        putBack: (entries) => {
          held = [...entries.filter((e) => !storedEntries.has(e)), ...held];
        },
        flush: async () => {
          for (const e of held.splice(0)) await record(e);
        },
      };
    },
    checkCredits: async () => {
      if (billing !== 'credits') return;
      const { rows } = await adminPool.query<{ balance_usd: string }>('select balance_usd from ai.credits');
      if (!rows[0] || Number(rows[0].balance_usd) <= 0) throw aiErrors.noCredits();
    },
  };
}

/** GET /api/usage's answer, as the caller (a user sees their own calls only: the ai.usage policy). */
export async function usageReport(calls: AiCalls, req: Request, q: { from?: string | undefined; to?: string | undefined; feature?: string | undefined; model?: string | undefined; user?: string | undefined; limit?: number | undefined }): Promise<unknown> {
  const [row] = await calls.call<{ report: unknown }>(req, 'select ai.usage_report($1, $2, $3, $4, $5, $6) as report', [
    q.from ?? null, q.to ?? null, q.feature ?? null, q.model ?? null, q.user ?? null, q.limit ?? 100,
  ]);
  return row!.report;
}
