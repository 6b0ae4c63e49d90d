// The editor's actions: the workflow's name, whether the draft is saved,
// undo, redo, auto-layout, deploy (a new version from the saved draft) and
// undeploy, and the deployed version.
import { Link } from 'react-router';
import { ai, must } from '../../api/client.ts';
import { useToast } from '../../app/toasts.tsx';
import type { components } from '../../api/ai/index.ts';
import type { SaveState } from './useGraphSave.ts';

type Props = {
  workflow: components['schemas']['WorkflowWithGraph']; saveState: SaveState;
  history: { undo: () => void; redo: () => void; canUndo: boolean; canRedo: boolean };
  onLayout: () => void; onSaveNow: () => Promise<boolean>; onChanged: () => void;
};
const SAVE_TEXT: Record<SaveState, string> = { saved: 'All changes saved', unsaved: 'Unsaved changes', saving: 'Saving…', invalid: 'Not saved: the graph has a problem' };

export function WorkflowToolbar({ workflow, saveState, history, onLayout, onSaveNow, onChanged }: Props) {
  const notify = useToast();
  const act = async (what: () => Promise<string>) => {
    try {
      notify(await what());
      onChanged();
    } catch (err) {
      notify((err as Error).message, 'error');
    }
  };
  const path = { params: { path: { id: workflow.id } } };
  const deploy = () => act(async () => {
    if (!(await onSaveNow())) throw new Error('Fix the graph before deploying it');
    return `Deployed version ${(await must(ai.POST('/api/workflows/{id}/deploy', path))).version}`;
  });
  return (
    <div className="workflow-head">
      <h1><Link to="/workflows">Workflows</Link> / {workflow.name}</h1>
      <div role="toolbar" aria-label="Workflow actions" className="inline-group">
        <span className="muted small" aria-live="polite">{SAVE_TEXT[saveState]}</span>
        <button type="button" onClick={history.undo} disabled={!history.canUndo} aria-keyshortcuts="Control+Z">Undo</button>
        <button type="button" onClick={history.redo} disabled={!history.canRedo} aria-keyshortcuts="Control+Shift+Z">Redo</button>
        <button type="button" onClick={onLayout}>Auto-layout</button>
        <Link to={`/workflows/${workflow.id}/runs`}>Run history</Link>
        <span className="small">{workflow.deployed ? `Deployed: version ${workflow.active_version}` : 'Not deployed'}</span>
        <button type="button" onClick={() => void deploy()}>Deploy</button>
        {workflow.deployed && <button type="button" onClick={() => void act(async () => (await must(ai.POST('/api/workflows/{id}/undeploy', path)), 'Undeployed'))}>Undeploy</button>}
      </div>
    </div>
  );
}
