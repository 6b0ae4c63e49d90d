// The copilot's chat beside the canvas: the conversation (its answers as
// sanitised markdown), what it is doing while it answers, and for an
// accepted change the way back (the graph before it, restored as one
// undoable step).
import { useState, type FormEvent } from 'react';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Markdown } from '../../components/Markdown.tsx';
import type { Graph } from './graph.ts';
import type { useCopilot } from './useCopilot.ts';

type Props = { copilot: ReturnType<typeof useCopilot>; onSend: (text: string) => void; onRestore: (graph: Graph) => void };

export function CopilotPanel({ copilot, onSend, onRestore }: Props) {
  const [text, setText] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim() || copilot.busy) return;
    onSend(text);
    setText('');
  };
  return (
    <section className="copilot-panel" aria-labelledby="copilot-title">
      <h2 id="copilot-title">Copilot</h2>
      <ol className="plain-list copilot-messages" aria-label="Copilot conversation" aria-live="polite">
        {copilot.messages.map((m) => (
          <li key={m.id} className={`copilot-${m.role}`}>
            <span className="sr-only">{m.role === 'user' ? 'You: ' : 'Copilot: '}</span>
            {m.role === 'user' ? <span className="chat-text">{m.text}</span> : <Markdown className="chat-text" text={m.text} />}
            {m.tools.length > 0 && <span className="small muted"> · used {m.tools.join(', ')}</span>}
            {m.status && <span className="small muted" role="status"> {m.status}</span>}
            {m.pre && <div><button type="button" className="link-button" onClick={() => onRestore(m.pre!)}>Restore the graph before this change</button></div>}
          </li>
        ))}
      </ol>
      <ErrorNote error={copilot.error} />
      <form onSubmit={submit} className="stack">
        <label>Ask the copilot<textarea rows={2} value={text} onChange={(e) => setText(e.target.value)} /></label>
        <button type="submit" className="primary" disabled={copilot.busy || !text.trim()}>Send to copilot</button>
      </form>
    </section>
  );
}
