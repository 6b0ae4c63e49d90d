// Running the draft: the run's input variables (JSON, the starter's output),
// Run, Cancel, and how the run stands, live: its status, whether the stream
// is connected, a resume after a restart, and its output or error.
import { useState } from 'react';
import { Link } from 'react-router';
import type { RunView } from './useWorkflowRun.ts';

export function RunPanel({ view, onRun, onCancel, workflowId }: { view: RunView; onRun: (variables: Record<string, unknown>) => void; onCancel: () => void; workflowId: string }) {
  const [text, setText] = useState('{}');
  const [bad, setBad] = useState<string>();
  const run = () => {
    try {
      const parsed = JSON.parse(text || '{}') as unknown;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('the variables are a JSON object');
      setBad(undefined);
      onRun(parsed as Record<string, unknown>);
    } catch (err) {
      setBad((err as Error).message);
    }
  };
  const running = view.status === 'running';
  return (
    <section className="run-panel" aria-labelledby="run-panel-title">
      <h2 id="run-panel-title">Run</h2>
      <label>Variables (JSON)
        <textarea className="mono" rows={3} value={text} onChange={(e) => setText(e.target.value)} aria-invalid={bad ? 'true' : undefined} />
      </label>
      {bad && <p className="error-text small" role="alert">{bad}</p>}
      <div className="inline-group">
        <button type="button" className="primary" onClick={run} disabled={running}>Run</button>
        <button type="button" onClick={onCancel} disabled={!running || !view.executionId}>Cancel run</button>
      </div>
      <p role="status" className="run-status">
        {view.status === 'idle' ? 'Not run yet.' : `Run ${view.status}`}
        {running && view.connection === 'reconnecting' ? ' · reconnecting…' : ''}
        {view.resumed > 0 ? ` · resumed after a restart (${view.resumed})` : ''}
      </p>
      {view.executionId && <p className="small"><Link to={`/runs/workflow/${workflowId}/${view.executionId}`}>Open the run's page</Link></p>}
      {view.error && <pre className="error-text">{view.error}</pre>}
      {view.output !== undefined && <><h3>Output</h3><pre aria-label="Run output">{JSON.stringify(view.output, null, 2)}</pre></>}
    </section>
  );
}
