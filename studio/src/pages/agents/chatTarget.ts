// What the playground talks to: an agent or an orchestration, each through
// its own typed /api paths (a run streamed, a run's events followed, an
// approval answered, its run page and its sessions).
import { ai, ApiFailure, must } from '../../api/client.ts';

type Stream = Promise<{ data?: ReadableStream<Uint8Array> | null | undefined; error?: unknown; response: Response }>;
export type ChatTarget = {
  kind: 'agent' | 'orchestration'; id: string;
  start: (body: { message: string; session_id?: string }, signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>;
  events: (runId: string, after: number, signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>;
  decide: ((runId: string, approvalId: string, decision: 'approve' | 'deny') => Promise<void>) | null;
  runPage: (runId: string) => string;
  base: string;
};

const opened = async (call: Stream) => {
  const r = await call;
  if (!r.response.ok || !r.data) throw new ApiFailure(r.response.status, r.error);
  return r.data;
};
const cursor = (after: number) => ({ 'Last-Event-ID': String(after) });

export function agentTarget(id: string): ChatTarget {
  const path = { id };
  return {
    kind: 'agent', id, base: `/agents/${id}`, runPage: (runId) => `/runs/agent/${id}/${runId}`,
    start: (body, signal) => opened(ai.POST('/api/agents/{id}/run/stream', { params: { path }, body, parseAs: 'stream', signal })),
    events: (runId, after, signal) => opened(ai.GET('/api/agents/{id}/runs/{runId}/events', { params: { path: { id, runId } }, headers: cursor(after), parseAs: 'stream', signal })),
    decide: async (runId, approvalId, decision) => void (await must(ai.POST('/api/agents/{id}/runs/{runId}/approvals/{approvalId}', { params: { path: { id, runId, approvalId } }, body: { decision } }))),
  };
}

export function orchestrationTarget(id: string): ChatTarget {
  return {
    kind: 'orchestration', id, base: `/orchestrations/${id}`, runPage: (runId) => `/runs/orchestration/${runId}`, decide: null,
    start: (body, signal) => opened(ai.POST('/api/orchestrations/{id}/run/stream', { params: { path: { id } }, body, parseAs: 'stream', signal })),
    events: (runId, after, signal) => opened(ai.GET('/api/orchestrations/runs/{runId}/events', { params: { path: { runId } }, headers: cursor(after), parseAs: 'stream', signal })),
  };
}
