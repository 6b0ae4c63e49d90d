// One orchestration: its settings and members beside its playground (each
// answer with its delegations as a tree under the message).
import { useMemo, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { useToast } from '../../app/toasts.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { orchestrationTarget } from '../agents/chatTarget.ts';
import { ModelPicker } from '../agents/ModelPicker.tsx';
import { Playground } from '../agents/Playground.tsx';
import { Members } from './Members.tsx';

export default function OrchestrationPage() {
  const { id = '', session = null } = useParams();
  const target = useMemo(() => orchestrationTarget(id), [id]);
  const o = useAsync(() => must(ai.GET('/api/orchestrations/{id}', { params: { path: { id } } })), [id]);
  const [model, setModel] = useState<string | null>(null);
  const [prompt, setPrompt] = useState<string | null>(null);
  const [error, setError] = useState<Error>();
  const notify = useToast();
  if (!o.value) return o.error ? <ErrorNote error={o.error} /> : <Loading what="the orchestration" />;
  const save = async (e: FormEvent) => {
    e.preventDefault();
    try {
      await must(ai.PUT('/api/orchestrations/{id}', { params: { path: { id } }, body: { model: (model ?? o.value!.model) || null, system_prompt: (prompt ?? o.value!.system_prompt) || null } }));
      notify('Orchestration saved');
      setError(undefined);
      o.reload();
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <div className="agent-page">
      <div className="agent-config">
        <h1><Link to="/orchestrations">Orchestrations</Link> / {o.value.name}</h1>
        <p className="small">Strategy: {o.value.strategy}</p>
        <form className="stack" onSubmit={(e) => void save(e)} aria-label="Orchestration settings">
          <ModelPicker value={model ?? o.value.model ?? ''} onChange={setModel} />
          <label>Coordinator's instructions<textarea rows={4} value={prompt ?? o.value.system_prompt ?? ''} onChange={(e) => setPrompt(e.target.value)} /></label>
          <ErrorNote error={error} />
          <button type="submit" className="primary">Save orchestration</button>
        </form>
        <Members orchestrationId={id} />
      </div>
      <Playground target={target} sessionId={session} />
    </div>
  );
}
