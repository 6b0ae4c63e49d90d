// Deployed versions: each with its date and size, the active one marked,
// another made active (a rollback), and two compared on the canvas. The
// webhook blocks' addresses, their secret hidden until asked for, and the
// arm window that lets the webhook run the draft once.
import { useState } from 'react';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { useSession } from '../../app/session.tsx';
import { useToast } from '../../app/toasts.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { graphOf, type Graph } from './graph.ts';

type Props = { workflowId: string; graph: Graph; armedUntil: string | null; onCompare: (a: { version: number; graph: Graph }, b: { version: number; graph: Graph }) => void; onChanged: () => void };

function WebhookAddress({ id, secret }: { id: string; secret: string }) {
  const { state } = useSession();
  const [shown, setShown] = useState(false);
  const url = `${state?.project?.api_url ?? ''}/api/webhooks/${id}`;
  return (
    <div className="stack small">
      <label>Webhook address<input readOnly className="mono" value={url} onFocus={(e) => e.target.select()} /></label>
      <label>Secret (as Authorization: Bearer)<input readOnly className="mono" value={shown ? secret : '•'.repeat(12)} onFocus={(e) => e.target.select()} /></label>
      <button type="button" className="link-button" onClick={() => setShown((s) => !s)}>{shown ? 'Hide the secret' : 'Show the secret'}</button>
    </div>
  );
}

export function VersionsPanel({ workflowId, graph, armedUntil, onCompare, onChanged }: Props) {
  const versions = useAsync(() => must(ai.GET('/api/workflows/{id}/versions', { params: { path: { id: workflowId } } })), [workflowId]);
  const [a, setA] = useState('');
  const [b, setB] = useState('');
  const [error, setError] = useState<Error>();
  const notify = useToast();
  const path = { params: { path: { id: workflowId } } };
  const load = async (v: string) => {
    if (v === 'draft') return { version: 0, graph };
    const found = await must(ai.GET('/api/workflows/{id}/versions/{version}', { params: { path: { id: workflowId, version: v } } }));
    return { version: found.version, graph: graphOf(found.graph) };
  };
  const compare = async () => {
    try {
      onCompare(await load(a), await load(b));
      setError(undefined);
    } catch (err) {
      setError(err as Error);
    }
  };
  const act = (what: () => Promise<unknown>, done: string) => void what().then(() => { notify(done); versions.reload(); onChanged(); }, (e: Error) => setError(e));
  const hooks = graph.blocks.filter((x) => x.type === 'webhook' && typeof x.config.webhook_id === 'string');
  const choices = [{ value: 'draft', label: 'the draft' }, ...(versions.value ?? []).map((v) => ({ value: String(v.version), label: `version ${v.version}` }))];
  return (
    <section className="versions-panel" aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <ErrorNote error={error ?? versions.error} />
      <ul className="plain-list">
        {versions.value?.length === 0 && <li className="muted">Not deployed yet.</li>}
        {versions.value?.map((v) => (
          <li key={v.version} className="inline-group">
            <span>Version {v.version}{v.active ? ' (active)' : ''} · {v.blocks} blocks · {new Date(v.created_at).toLocaleString()}</span>
            {!v.active && <button type="button" className="link-button" onClick={() => act(() => must(ai.POST('/api/workflows/{id}/versions/{version}/activate', { params: { path: { id: workflowId, version: String(v.version) } } })), `Version ${v.version} is active`)}>Make active</button>}
          </li>
        ))}
      </ul>
      <form className="stack" onSubmit={(e) => { e.preventDefault(); void compare(); }}>
        <label>Compare<select value={a} onChange={(e) => setA(e.target.value)}><option value="">choose</option>{choices.map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}</select></label>
        <label>with<select value={b} onChange={(e) => setB(e.target.value)}><option value="">choose</option>{choices.map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}</select></label>
        <button type="submit" disabled={!a || !b || a === b}>Show the differences</button>
      </form>
      <h3>Webhook</h3>
      {hooks.length === 0 ? <p className="small muted">Add a Webhook block to trigger this workflow over HTTP.</p> : hooks.map((h) => <WebhookAddress key={h.id} id={String(h.config.webhook_id)} secret={String(h.config.webhook_secret ?? '')} />)}
      <p className="small">{armedUntil ? `Armed until ${new Date(armedUntil).toLocaleTimeString()}: the webhook runs the draft once.` : 'Not armed.'}</p>
      <button type="button" onClick={() => act(() => must(ai.POST('/api/workflows/{id}/arm', path)), 'Armed for 10 minutes')}>Arm the draft for one webhook call</button>
    </section>
  );
}
