// The copilot beside the canvas: the operator's session for this workflow
// (opened on first use), its history, and a chat whose answer streams; an
// answer with a proposal hands it to the editor, which shows it over the
// canvas to be accepted or rejected whole. Accepting stores the graph before
// it as the message's snapshot, so it can be restored later.
import { useCallback, useEffect, useState } from 'react';
import { ai, ApiFailure, must } from '../../api/client.ts';
import { readEvents } from '../../api/events.ts';
import type { Graph } from './graph.ts';

export type CopilotMessage = { id: string; role: 'user' | 'assistant'; text: string; status?: string | undefined; tools: string[]; pre?: Graph | null; proposal?: Graph | null };
type Stored = { id: string; role: string; content: string | null; pre_snapshot?: unknown; proposed_state?: unknown };

export function useCopilot(workflowId: string) {
  const [session, setSession] = useState<string | null>(null);
  const [messages, setMessages] = useState<CopilotMessage[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();

  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const opened = await must(ai.POST('/api/copilot/sessions', { body: { workflow_id: workflowId } }));
        const history = (await must(ai.GET('/api/copilot/sessions/{id}/messages', { params: { path: { id: opened.id } } }))) as Stored[];
        if (!live) return;
        setSession(opened.id);
        setMessages(history.filter((m) => (m.role === 'user' || m.role === 'assistant') && m.content).map((m) => ({
          id: m.id, role: m.role as 'user' | 'assistant', text: m.content ?? '', tools: [],
          pre: (m.pre_snapshot as Graph | null | undefined) ?? null, proposal: (m.proposed_state as Graph | null | undefined) ?? null,
        })));
      } catch (err) {
        if (live) setError(err as Error);
      }
    })();
    return () => { live = false; };
  }, [workflowId]);

  /** Sends a message with the editor's graph; resolves with the answer's proposal, if any. */
  const send = useCallback(async (text: string, state: Graph): Promise<{ messageId: string; proposal: Graph } | null> => {
    if (!session) return null;
    const key = `a${Date.now()}`;
    setBusy(true);
    setError(undefined);
    setMessages((all) => [...all, { id: `u${Date.now()}`, role: 'user', text, tools: [] }, { id: key, role: 'assistant', text: '', tools: [], status: 'thinking…' }]);
    const change = (patch: (m: CopilotMessage) => CopilotMessage) => setMessages((all) => all.map((m) => (m.id === key ? patch(m) : m)));
    try {
      const res = await ai.POST('/api/copilot/sessions/{id}/chat', { params: { path: { id: session } }, body: { message: text, workflow_state: state }, parseAs: 'stream' });
      if (!res.response.ok || !res.data) throw new ApiFailure(res.response.status, res.error);
      let answer: { messageId: string; proposal: Graph } | null = null;
      for await (const e of readEvents(res.data)) {
        const d = e.data as Record<string, unknown>;
        if (d.type === 'status') change((m) => ({ ...m, status: String(d.message) }));
        else if (d.type === 'tool_call') change((m) => ({ ...m, tools: [...m.tools, String(d.name)] }));
        else if (d.type === 'content_delta') change((m) => ({ ...m, text: m.text + String(d.delta) }));
        else if (d.type === 'error') change((m) => ({ ...m, status: undefined, text: m.text || String(d.error) }));
        else if (d.type === 'complete') {
          const proposal = (d.proposed_state as Graph | null | undefined) ?? null;
          const diff = d.workflow_diff as { added?: { blocks: unknown[]; edges: unknown[] }; removed?: { blocks: unknown[]; edges: unknown[] }; modified?: { blocks: unknown[] } } | null;
          const empty = !diff || [diff.added?.blocks, diff.added?.edges, diff.removed?.blocks, diff.removed?.edges, diff.modified?.blocks].every((x) => !x?.length);
          change((m) => ({ ...m, id: String(d.message_id), text: String(d.content ?? m.text), status: undefined, proposal: empty ? null : proposal }));
          if (proposal && !empty) answer = { messageId: String(d.message_id), proposal };
        }
      }
      return answer;
    } catch (err) {
      setError(err as Error);
      change((m) => ({ ...m, status: undefined }));
      return null;
    } finally {
      setBusy(false);
    }
  }, [session]);

  const snapshot = useCallback(async (messageId: string, pre: Graph) => {
    if (!session) return;
    await must(ai.POST('/api/copilot/sessions/{id}/messages/{mid}/snapshot', { params: { path: { id: session, mid: messageId } }, body: { pre_snapshot: pre } }));
    setMessages((all) => all.map((m) => (m.id === messageId ? { ...m, pre } : m)));
  }, [session]);

  return { messages, busy, error, send, snapshot };
}
