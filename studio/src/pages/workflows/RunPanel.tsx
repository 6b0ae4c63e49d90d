// Running the draft: the run's input variables (a form from the starter's
// inputs, or JSON when it lists none; the starter's output), Run, Cancel, and how the run stands, live: its status, whether the stream
// is connected, a resume after a restart, and its output or error.
import { useState } from 'react';
import { Link } from 'react-router';
import { InputsForm, variablesOf, type Input } from '../../components/InputsForm.tsx';
import type { RunView } from './useWorkflowRun.ts';

type Props = { view: RunView; inputs: Input[]; onRun: (variables: Record<string, unknown>) => void; onCancel: () => void; workflowId: string };

export function RunPanel({ view, inputs, onRun, onCancel, workflowId }: Props) {
  const [text, setText] = useState('{}');
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [bad, setBad] = useState<string>();
  const run = () => {
    try {
      const parsed = inputs.length > 0 ? variablesOf(inputs, texts) : JSON.parse(text || '{}') as unknown;
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
      {inputs.length > 0 ? <InputsForm inputs={inputs} texts={texts} onChange={setTexts} /> : (
        <label>Variables (JSON)
          <textarea className="mono" rows={3} value={text} onChange={(e) => setText(e.target.value)} aria-invalid={bad ? 'true' : undefined} />
        </label>
      )}
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
