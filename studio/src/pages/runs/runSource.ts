// The three kinds of run (a workflow execution, an agent run, an
// orchestration run) as one shape for the run page: their stored record,
// their event stream from a given event number, and cancel, each through the
// typed client of its own /api paths.
import type { components } from '../../api/ai/index.ts';
import { ai, ApiFailure, must } from '../../api/client.ts';

export type Span = components['schemas']['TimelineNode'];
export type RunRecord = {
  status: string; error: string | null; started_at: string | null; finished_at: string | null; tokens_in: number; tokens_out: number; cost_usd: number;
  trace_id: string | null; timeline: Span; output: unknown;
};
export type RunKind = 'workflow' | 'agent' | 'orchestration';
export type RunSource = { title: string; load: () => Promise<RunRecord>; open: (after: number, signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>; cancel: () => Promise<void> };

const stream = async (call: Promise<{ data?: ReadableStream<Uint8Array> | null | undefined; error?: unknown; response: Response }>) => {
  const r = await call;
  if (!r.response.ok || !r.data) throw new ApiFailure(r.response.status, r.error);
  return r.data;
};
const cursor = (after: number) => ({ 'Last-Event-ID': String(after) });

/** The run named by the page's address: /runs/workflow/{workflow}/{execution}, /runs/agent/{agent}/{run}, /runs/orchestration/{run}. */
export function runSource(kind: RunKind, owner: string, id: string): RunSource {
  if (kind === 'workflow') {
    const path = { id: owner, eid: id };
    return {
      title: 'Workflow execution',
      load: async () => {
        const e = await must(ai.GET('/api/workflows/{id}/executions/{eid}', { params: { path } }));
        return { ...e, output: e.output, trace_id: e.trace_id, timeline: e.timeline };
      },
      open: (after, signal) => stream(ai.GET('/api/workflows/{id}/executions/{eid}/events', { params: { path }, headers: cursor(after), parseAs: 'stream', signal })),
      cancel: async () => void (await must(ai.POST('/api/workflows/{id}/executions/{eid}/cancel', { params: { path } }))),
    };
  }
  if (kind === 'agent') {
    const path = { id: owner, runId: id };
    return {
      title: 'Agent run',
      load: async () => {
        const r = await must(ai.GET('/api/agents/{id}/runs/{runId}', { params: { path } }));
        return { ...r, output: r.output };
      },
      open: (after, signal) => stream(ai.GET('/api/agents/{id}/runs/{runId}/events', { params: { path }, headers: cursor(after), parseAs: 'stream', signal })),
      cancel: async () => void (await must(ai.POST('/api/agents/{id}/runs/{runId}/cancel', { params: { path } }))),
    };
  }
  const path = { runId: id };
  return {
    title: 'Orchestration run',
    load: async () => {
      const r = await must(ai.GET('/api/orchestrations/runs/{runId}', { params: { path } }));
      return { ...r, ...r.usage, output: r.output };
    },
    open: (after, signal) => stream(ai.GET('/api/orchestrations/runs/{runId}/events', { params: { path }, headers: cursor(after), parseAs: 'stream', signal })),
    cancel: async () => void (await must(ai.POST('/api/orchestrations/runs/{runId}/cancel', { params: { path } }))),
  };
}
