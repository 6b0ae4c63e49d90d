// A workflow run as the canvas shows it: each block's state (waiting,
// running, succeeded, failed, skipped) from the numbered events as they
// arrive, with its output, error and duration. The run starts on the
// streaming endpoint; if that connection drops (a server restart), the run
// is followed again from the last event seen (Last-Event-ID), so the canvas
// carries on where it was. Events are applied as they arrive and shown once
// per frame: a burst of them (a fast run, or the stored ones replayed after
// a reconnection) is one render, not one each.
import { useCallback, useEffect, useRef, useState } from 'react';
import { ai, ApiFailure } from '../../api/client.ts';
import { follow, isLast, readEvents, type RunEvent } from '../../api/events.ts';

export type BlockState = { state: 'waiting' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'parked'; output?: unknown; error?: string; durationMs?: number; text?: string };
export type RunView = {
  executionId: string | null; status: 'idle' | 'running' | 'completed' | 'failed' | 'cancelled'; connection: 'live' | 'reconnecting' | 'ended';
  blocks: Record<string, BlockState>; output?: unknown; error?: string; resumed: number; lastEventId: number;
};

const idle: RunView = { executionId: null, status: 'idle', connection: 'ended', blocks: {}, resumed: 0, lastEventId: 0 };

/** One event's change to the view. */
export function applyEvent(view: RunView, e: RunEvent): RunView {
  const d = e.data as Record<string, unknown> & { type: string };
  const next: RunView = { ...view, lastEventId: e.id ?? view.lastEventId };
  const block = (id: unknown, change: Partial<BlockState>) => {
    const key = String(id);
    next.blocks = { ...view.blocks, [key]: { ...(view.blocks[key] ?? { state: 'waiting' }), ...change } as BlockState };
  };
  switch (d.type) {
    case 'run_started': return { ...next, executionId: String(d.execution_id), status: 'running' };
    case 'block_started': block(d.block_id, { state: 'running' }); break;
    case 'block_completed': block(d.block_id, { state: 'succeeded', output: d.output, durationMs: Number(d.duration_ms) }); break;
    case 'block_skipped': block(d.block_id, { state: 'skipped' }); break;
    case 'block_failed': block(d.block_id, { state: 'failed', error: String(d.error) }); break;
    case 'block_waiting': block(d.block_id, { state: 'parked' }); break;
    case 'content_delta': block(d.block_id, { text: (view.blocks[String(d.block_id)]?.text ?? '') + String(d.delta) }); break;
    case 'resumed': return { ...next, resumed: Number(d.resumes) };
    case 'run_completed': return { ...next, status: 'completed', output: d.output };
    case 'error': return { ...next, status: d.error_code === 'CANCELLED' || /cancel/i.test(String(d.error)) ? 'cancelled' : 'failed', error: String(d.error) };
  }
  return next;
}

export function useWorkflowRun(workflowId: string) {
  const [view, setView] = useState<RunView>(idle);
  const stop = useRef<AbortController>(null);
  useEffect(() => () => stop.current?.abort(), []);

  const start = useCallback(async (variables: Record<string, unknown>, blockIds: string[]) => {
    stop.current?.abort();
    const signal = (stop.current = new AbortController()).signal;
    let current: RunView = { ...idle, status: 'running', connection: 'live', blocks: Object.fromEntries(blockIds.map((id) => [id, { state: 'waiting' }])) };
    let frame = 0;
    const show = (e: RunEvent) => {
      current = applyEvent(current, e);
      if (!frame) frame = requestAnimationFrame(() => {
        frame = 0;
        setView(current);
      });
    };
    setView(current);
    const res = await ai.POST('/api/workflows/{id}/execute/stream', { params: { path: { id: workflowId } }, body: { variables }, parseAs: 'stream', signal });
    if (!res.response.ok || !res.data) {
      const failure = new ApiFailure(res.response.status, res.error);
      setView({ ...current, status: 'failed', connection: 'ended', error: failure.message });
      return;
    }
    let ended = false;
    try {
      for await (const e of readEvents(res.data, signal)) {
        show(e);
        if (isLast(e.data)) ended = true;
      }
    } catch {
      // the connection dropped: followed again below
    }
    if (ended || signal.aborted || !current.executionId) return setView((current = { ...current, connection: 'ended' }));
    const executionId = current.executionId;
    await follow({
      after: current.lastEventId, signal, onEvent: show,
      onState: (connection) => setView((current = { ...current, connection })),
      open: async (after) => {
        const r = await ai.GET('/api/workflows/{id}/executions/{eid}/events', {
          params: { path: { id: workflowId, eid: executionId } }, headers: { 'Last-Event-ID': String(after) }, parseAs: 'stream', signal,
        });
        if (!r.response.ok || !r.data) throw new ApiFailure(r.response.status, r.error);
        return r.data;
      },
    });
  }, [workflowId]);

  const cancel = useCallback(async () => {
    if (!view.executionId) return;
    await ai.POST('/api/workflows/{id}/executions/{eid}/cancel', { params: { path: { id: workflowId, eid: view.executionId } } });
  }, [view.executionId, workflowId]);

  return { view, start, cancel };
}
