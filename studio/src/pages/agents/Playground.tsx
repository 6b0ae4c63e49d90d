// Talking to an agent or an orchestration: the conversation (streamed answers, tool calls,
// approvals, tokens and cost per message) and a box to write in (Enter
// sends, Shift+Enter breaks the line). A new conversation's address becomes
// its session's once the run starts, so it can be reopened, in another tab too.
import { useState, type FormEvent, type KeyboardEvent } from 'react';
import { useNavigate } from 'react-router';
import { useToast } from '../../app/toasts.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { ChatTurn } from './ChatTurn.tsx';
import { SessionList } from './SessionList.tsx';
import { useChat } from './useChat.ts';
import type { ChatTarget } from './chatTarget.ts';

export function Playground({ target, sessionId }: { target: ChatTarget; sessionId: string | null }) {
  const navigate = useNavigate();
  const notify = useToast();
  const [tick, setTick] = useState(0);
  const chat = useChat(target, sessionId, (id) => { void navigate(`${target.base}/sessions/${id}`, { replace: true }); setTick((t) => t + 1); });
  const [text, setText] = useState('');
  const busy = chat.turns.some((t) => t.status === 'running');
  const send = (e?: FormEvent) => {
    e?.preventDefault();
    if (!text.trim() || busy) return;
    void chat.send(text);
    setText('');
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey) send(e as unknown as FormEvent);
  };
  const decide = (runId: string, approvalId: string, decision: 'approve' | 'deny') =>
    void chat.decide(runId, approvalId, decision).then(() => notify(decision === 'approve' ? 'Approved' : 'Denied'), (err: Error) => notify(err.message, 'error'));
  return (
    <section className="playground" aria-labelledby="playground-title">
      <h2 id="playground-title">Playground</h2>
      <div className="playground-body">
        <SessionList target={target} current={sessionId} tick={tick} />
        <div className="chat">
          <ErrorNote error={chat.error} />
          <ol className="plain-list chat-turns" aria-label="Conversation" aria-live="polite">
            {chat.turns.map((t) => <ChatTurn key={t.key} turn={t} runPage={target.runPage} canDecide={!!target.decide} onDecide={decide} />)}
          </ol>
          <form className="chat-input" onSubmit={send}>
            <label className="sr-only" htmlFor="chat-message">Message</label>
            <textarea id="chat-message" rows={2} value={text} onChange={(e) => setText(e.target.value)} onKeyDown={onKey} placeholder="Write to the agent" />
            <button type="submit" className="primary" disabled={busy || !text.trim()}>Send</button>
          </form>
        </div>
      </div>
    </section>
  );
}
