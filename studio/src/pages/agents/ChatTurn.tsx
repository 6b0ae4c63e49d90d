// One exchange in the playground: the user's message, the agent's answer as
// text (streamed), each tool call with its arguments and result
// (collapsible), an approval waiting with Approve and Deny, an
// orchestration's delegations as a tree, and the run's tokens and cost.
// Everything here came from a user or a model: the answers as sanitised
// markdown (components/Markdown.tsx), the rest as text.
import { Link } from 'react-router';
import { Markdown } from '../../components/Markdown.tsx';
import type { Turn } from './turns.ts';

/** A value as indented JSON text; a string holding JSON (tool arguments and results often are) is indented too. */
function json(v: unknown): string {
  if (typeof v !== 'string') return JSON.stringify(v, null, 2);
  try {
    return JSON.stringify(JSON.parse(v), null, 2);
  } catch {
    return v;
  }
}

type Props = { turn: Turn; runPage: (runId: string) => string; canDecide: boolean; onDecide: (runId: string, approvalId: string, decision: 'approve' | 'deny') => void };

export function ChatTurn({ turn, runPage, canDecide, onDecide }: Props) {
  return (
    <li className="chat-turn">
      <div className="chat-user"><span className="sr-only">You: </span>{turn.user}</div>
      <div className="chat-answer" aria-busy={turn.status === 'running'}>
        {turn.tools.map((t) => (
          <details key={t.id} className="tool-call">
            <summary>Tool {t.name}{t.ok === undefined ? ' (running)' : t.ok ? '' : ' (failed)'}</summary>
            <h4>Arguments</h4><pre>{json(t.arguments)}</pre>
            {t.result !== undefined && <><h4>Result</h4><pre>{json(t.result)}</pre></>}
            {t.error && <p className="error-text">{t.error}</p>}
          </details>
        ))}
        {turn.approvals.map((a) => (
          <div key={a.id} className="approval card" role="group" aria-label="Approval">
            <p>{a.message ?? 'The agent asks to go on.'}{a.tool ? ` Tool ${a.tool.name}:` : ''}</p>
            {a.tool && <pre>{json(a.tool.arguments)}</pre>}
            {a.status === 'pending' && turn.runId && canDecide ? (
              <div className="inline-group">
                <button type="button" className="primary" onClick={() => onDecide(turn.runId!, a.id, 'approve')}>Approve</button>
                <button type="button" className="danger" onClick={() => onDecide(turn.runId!, a.id, 'deny')}>Deny</button>
              </div>
            ) : <p className="small" role="status">Answered: {a.status}</p>}
          </div>
        ))}
        {turn.delegations.length > 0 && (
          <ul className="delegations" aria-label="Delegations">
            {turn.delegations.map((d) => <li key={d.id}><strong>{d.agent}</strong>: {d.task}{d.ok === false ? ' (failed)' : ''}{d.text && <Markdown text={d.text} />}</li>)}
          </ul>
        )}
        <div className="chat-text"><span className="sr-only">Agent: </span>{turn.answer ? <Markdown text={turn.answer} /> : turn.status === 'running' ? '…' : ''}</div>
        {turn.error && <p className="error-text" role="alert">{turn.error}</p>}
        <p className="chat-meta small muted">
          {turn.usage ? `${turn.usage.tokens_in} in / ${turn.usage.tokens_out} out tokens · $${turn.usage.cost_usd.toFixed(6)}` : turn.status === 'running' ? 'running…' : ''}
          {turn.runId && <> · <Link to={runPage(turn.runId)}>timeline</Link></>}
        </p>
      </div>
    </li>
  );
}
