// The playground's conversation with an agent or an orchestration: a message is sent to the
// streaming run endpoint and its answer built from the events as they
// arrive; a reopened session is read back from its messages and runs, its
// last REPLAYED finished runs rebuilt from their stored events (tool calls,
// approvals, delegations: what the messages do not hold), and a run of it
// still going (or waiting for an approval) is followed from its first event,
// so any tab shows the same approval and sees it answered.
import { useCallback, useEffect, useRef, useState } from 'react';
import { ai, must } from '../../api/client.ts';
import { follow, isLast, readEvents, type RunEvent } from '../../api/events.ts';
import type { ChatTarget } from './chatTarget.ts';
import { applyRunEvent, newTurn, type Turn } from './turns.ts';

const OPEN = new Set(['running', 'waiting_approval', 'waiting_client']);
/** How many of a reopened session's finished runs are replayed from their events; older ones show their answer and totals. */
const REPLAYED = 20;

export function useChat(target: ChatTarget, sessionId: string | null, onSession: (id: string) => void) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [error, setError] = useState<Error>();
  const stop = useRef<AbortController>(new AbortController());
  const session = useRef(sessionId);

  const update = useCallback((key: string, e: RunEvent) => setTurns((all) => all.map((t) => (t.key === key ? applyRunEvent(t, e.data) : t))), []);

  /** Follows a run's stored and new events into the turn `key`. */
  const followRun = useCallback((key: string, runId: string, after: number, signal: AbortSignal) => follow({
    after, signal, onEvent: (e) => update(key, e), open: (from) => target.events(runId, from, signal),
  }), [target, update]);

  /** A finished run's turn rebuilt from its stored events; the summary `t` when they cannot be read. */
  const replayed = useCallback(async (t: Turn, signal: AbortSignal): Promise<Turn> => {
    try {
      let turn: Turn = { ...newTurn(t.key, t.user), runId: t.runId };
      for await (const e of readEvents(await target.events(t.runId!, 0, signal), signal)) {
        turn = applyRunEvent(turn, e.data);
        if (isLast(e.data)) return turn;
      }
    } catch {
      // unreadable: the summary stands
    }
    return t;
  }, [target]);

  // A session opened (or none: a new conversation): its turns read back.
  useEffect(() => {
    // The session this tab just started (its address follows it): its turns are live already.
    if (sessionId && sessionId === session.current && turns.length > 0) return;
    stop.current.abort();
    const signal = (stop.current = new AbortController()).signal;
    session.current = sessionId;
    if (!sessionId) return setTurns([]);
    void (async () => {
      try {
        const path = { params: { path: { id: sessionId } } };
        const [messages, runs] = await Promise.all([must(ai.GET('/api/sessions/{id}/messages', path)), must(ai.GET('/api/sessions/{id}/runs', path))]);
        const ordered = [...runs].sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
        const read: Turn[] = ordered.map((run) => {
          const own = messages.filter((m) => m.run_id === run.id);
          const user = own.find((m) => m.role === 'user')?.content ?? '';
          return { ...newTurn(run.id, user), runId: run.id, answer: run.output ?? own.filter((m) => m.role === 'assistant').at(-1)?.content ?? '',
            status: run.status === 'completed' ? 'completed' : OPEN.has(run.status) ? 'running' : 'failed', error: run.error,
            usage: { tokens_in: run.tokens_in, tokens_out: run.tokens_out, cost_usd: run.cost_usd } };
        });
        if (signal.aborted) return;
        // A run still going is rebuilt from its events, from the first.
        setTurns(read.map((t) => (t.status === 'running' ? { ...newTurn(t.key, t.user), runId: t.runId } : t)));
        for (const t of read) if (t.status === 'running') void followRun(t.key, t.runId!, 0, signal);
        const finished = read.filter((t) => t.status !== 'running').slice(-REPLAYED);
        const rebuilt = new Map((await Promise.all(finished.map((t) => replayed(t, signal)))).map((t) => [t.key, t]));
        if (!signal.aborted) setTurns((all) => all.map((t) => rebuilt.get(t.key) ?? t));
      } catch (err) {
        setError(err as Error);
      }
    })();
  }, [sessionId]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => () => stop.current.abort(), []);

  const send = useCallback(async (message: string) => {
    const key = `t${Date.now()}`;
    setTurns((all) => [...all, newTurn(key, message)]);
    setError(undefined);
    const signal = stop.current.signal;
    let stream: ReadableStream<Uint8Array>;
    try {
      stream = await target.start({ message, ...(session.current ? { session_id: session.current } : {}) }, signal);
    } catch (err) {
      return setTurns((all) => all.map((t) => (t.key === key ? { ...t, status: 'failed', error: (err as Error).message } : t)));
    }
    let runId: string | null = null;
    let last = 0;
    let ended = false;
    try {
      for await (const e of readEvents(stream, signal)) {
        if (e.id !== null) last = e.id;
        if (e.data.type === 'start') {
          runId = String(e.data.run_id);
          if (!session.current) {
            session.current = String(e.data.session_id);
            onSession(session.current);
          }
        }
        update(key, e);
        if (isLast(e.data)) ended = true;
      }
    } catch {
      // dropped: followed again below
    }
    if (!ended && runId && !signal.aborted) await followRun(key, runId, last, signal);
  }, [target, followRun, onSession, update]);

  const decide = useCallback(async (runId: string, approvalId: string, decision: 'approve' | 'deny') => {
    if (!target.decide) throw new Error('Approvals of this run are answered on its members\' agents');
    await target.decide(runId, approvalId, decision);
  }, [target]);

  return { turns, error, send, decide };
}
