// A custom tool tried outside a run: its arguments asked for by a form
// generated from its input schema, the call made by the server as an
// agent's call is made (POST /api/tools/{id}/try), and the answer shown as
// the model would read it, as text.
import { useState, type FormEvent } from 'react';
import { ai, must } from '../../api/client.ts';
import { useAction } from '../../app/useAction.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { InputsForm, inputsOfSchema, variablesOf } from '../../components/InputsForm.tsx';

type Custom = { id: string; name: string; input_schema: unknown };
type Answer = { ok: boolean; output?: string; truncated?: boolean; error?: string; duration_ms: number };

export function ToolTry({ tools }: { tools: Custom[] }) {
  const [id, setId] = useState('');
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [answer, setAnswer] = useState<Answer>();
  const { error, busy, run } = useAction();
  const tool = tools.find((t) => t.id === id);
  const inputs = inputsOfSchema(tool?.input_schema);
  const call = (e: FormEvent) => {
    e.preventDefault();
    if (!tool) return;
    setAnswer(undefined);
    void run(async () => setAnswer(await must(ai.POST('/api/tools/{id}/try', { params: { path: { id: tool.id } }, body: { arguments: variablesOf(inputs, texts) } }))));
  };
  return (
    <section aria-labelledby="tool-try-title">
      <h2 id="tool-try-title">Try a custom tool</h2>
      <form className="stack kb-form" onSubmit={call}>
        <label>Tool
          <select value={id} onChange={(e) => { setId(e.target.value); setTexts({}); setAnswer(undefined); }}>
            <option value="">Choose</option>
            {tools.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
          </select>
        </label>
        {tool && (inputs.length > 0 ? <InputsForm inputs={inputs} texts={texts} onChange={setTexts} /> : <p className="small muted">Its schema names no arguments.</p>)}
        <ErrorNote error={error} />
        <button type="submit" className="primary" disabled={!tool || busy}>Call it</button>
      </form>
      {answer && (
        <div role="status" aria-label="Tool answer" className="card">
          <p>{answer.ok ? 'Answered' : 'Failed'} in {answer.duration_ms} ms{answer.truncated ? ' (output cut at MAX_TOOL_OUTPUT_LENGTH)' : ''}</p>
          {answer.ok ? <pre className="small">{answer.output}</pre> : <p className="error-text">{answer.error}</p>}
        </div>
      )}
    </section>
  );
}
