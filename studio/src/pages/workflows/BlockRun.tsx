// What the current run did at one block: its state and duration, its output
// (or error) as it arrived, and on request the stored input, output and log
// lines (GET …/executions/{eid}/logs). All of it shown as text.
import { useState } from 'react';
import { ai, must } from '../../api/client.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import type { BlockState } from './useWorkflowRun.ts';

type Stored = { input: unknown; output: unknown; error: string | null; logs?: unknown; attempts: number };
const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

export function BlockRun({ workflowId, executionId, blockId, state }: { workflowId: string; executionId: string | null; blockId: string; state: BlockState | undefined }) {
  const [stored, setStored] = useState<Stored | null>();
  const [error, setError] = useState<Error>();
  const load = async () => {
    try {
      const found = await must(ai.GET('/api/workflows/{id}/executions/{eid}/logs', { params: { path: { id: workflowId, eid: executionId! } } }));
      setStored((found.logs.find((l) => l.block_id === blockId) as Stored | undefined) ?? null);
    } catch (err) {
      setError(err as Error);
    }
  };
  if (!state) return null;
  return (
    <section aria-labelledby="block-run-title" className="block-run">
      <h3 id="block-run-title">In this run: {state.state}{state.durationMs !== undefined ? `, ${Math.round(state.durationMs)} ms` : ''}</h3>
      {state.error && <pre className="error-text">{state.error}</pre>}
      {state.text && <pre aria-label="Streamed text">{state.text}</pre>}
      {state.output !== undefined && <><h4>Output</h4><pre aria-label="Block output">{text(state.output)}</pre></>}
      {executionId && <button type="button" onClick={() => void load()}>Input, output and logs</button>}
      <ErrorNote error={error} />
      {stored === null && <p className="muted">Nothing stored for this block.</p>}
      {stored && (
        <div className="stack">
          <h4>Input</h4><pre>{text(stored.input)}</pre>
          <h4>Stored output</h4><pre>{text(stored.output)}</pre>
          <h4>Logs</h4><pre aria-label="Block logs">{Array.isArray(stored.logs) && stored.logs.length ? stored.logs.map(String).join('\n') : 'No log lines.'}</pre>
          {stored.attempts > 1 && <p className="small">{stored.attempts} attempts</p>}
        </div>
      )}
    </section>
  );
}
