// A workflow on a canvas: the palette, the graph, the selected block's panel
// and the run panel. Edits are saved as they are made (useGraphSave) and
// checked by the server's rules, the problem pinned where it is; undo and
// redo (Ctrl+Z, Ctrl+Shift+Z), auto-layout, deploy and undeploy; a run is
// watched on the canvas as its events arrive.
import { ReactFlowProvider } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useParams } from 'react-router';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { BlockPanel } from './BlockPanel.tsx';
import { CopilotPanel } from './CopilotPanel.tsx';
import { VersionsPanel } from './VersionsPanel.tsx';
import { acceptedGraph, overlay } from './proposal.ts';
import { useCopilot } from './useCopilot.ts';
import { Canvas } from './Canvas.tsx';
import { addBlock, autoLayout, freshId, graphOf, type Graph } from './graph.ts';
import { Palette } from './Palette.tsx';
import { RunPanel } from './RunPanel.tsx';
import { inputsOf } from '../../components/InputsForm.tsx';
import { useGraphSave } from './useGraphSave.ts';
import { useHistory } from './useHistory.ts';
import { useWorkflowRun } from './useWorkflowRun.ts';
import { WorkflowToolbar } from './WorkflowToolbar.tsx';

const editing = (t: EventTarget | null) => t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));

export default function WorkflowEditor() {
  const { id = '' } = useParams();
  const loaded = useAsync(async () => {
    const [workflow, types] = await Promise.all([
      must(ai.GET('/api/workflows/{id}', { params: { path: { id } } })),
      must(ai.GET('/api/workflows/block-types')),
    ]);
    return { workflow, types, graph: graphOf(workflow) };
  }, [id]);
  const history = useHistory<Graph>({ blocks: [], edges: [] });
  const [selected, setSelected] = useState<string | null>(null);
  const [layoutTick, setLayoutTick] = useState(0);
  // The graph is taken from the server once per workflow: reading the workflow again (after a deploy) keeps the editor's undo history.
  const took = useRef<string | null>(null);
  useEffect(() => {
    if (!loaded.value || took.current === id) return;
    took.current = id;
    history.reset(loaded.value.graph);
  }, [loaded.value]); // eslint-disable-line react-hooks/exhaustive-deps
  const save = useGraphSave(id, history.value, loaded.value?.graph, history.amend);
  const run = useWorkflowRun(id);
  const copilot = useCopilot(id);
  const [side, setSide] = useState<'run' | 'copilot' | 'versions'>('run');
  const [comparing, setComparing] = useState<{ a: number; b: number; graph: Graph; changes: ReturnType<typeof overlay>['changes'] } | null>(null);
  const [proposal, setProposal] = useState<{ messageId: string; graph: Graph } | null>(null);
  const shown = useMemo(() => (proposal ? overlay(history.value, proposal.graph) : null), [proposal, history.value]);
  const runStates = run.view.status === 'idle' ? {} : run.view.blocks;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || editing(e.target)) return;
      const key = e.key.toLowerCase();
      if (key === 'z' && !e.shiftKey) history.undo();
      else if ((key === 'z' && e.shiftKey) || key === 'y') history.redo();
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [history.undo, history.redo]); // eslint-disable-line react-hooks/exhaustive-deps

  const types = loaded.value?.types ?? [];
  const typeOf = useMemo(() => new Map(types.map((t) => [t.type, t])), [types]);
  if (!loaded.value) return loaded.error ? <ErrorNote error={loaded.error} /> : <Loading what="the workflow" />;
  const block = selected ? history.value.blocks.find((b) => b.id === selected) : undefined;

  const ask = async (text: string) => {
    const answer = await copilot.send(text, history.value);
    if (answer) setProposal({ messageId: answer.messageId, graph: acceptedGraph(history.value, answer.proposal as Parameters<typeof acceptedGraph>[1]) });
  };
  const accept = async () => {
    if (!proposal) return;
    await copilot.snapshot(proposal.messageId, history.value).catch(() => undefined); // the change stands even if the snapshot could not be kept
    history.change(proposal.graph);
    setProposal(null);
  };

  const startRun = async (variables: Record<string, unknown>) => {
    if (await save.flush()) await run.start(variables, history.value.blocks.map((b) => b.id));
  };

  return (
    <div className="workflow-page">
      <WorkflowToolbar workflow={loaded.value.workflow} saveState={save.state} history={history} onLayout={() => { history.change(autoLayout); setLayoutTick((t) => t + 1); }} onSaveNow={save.flush} onChanged={loaded.reload} />
      {save.problem && <p className="error-note" role="alert">Not saved: {save.problem.message}</p>}
      {comparing && !proposal && (
        <div className="proposal-bar" role="region" aria-label="Comparison">
          <span>{comparing.a ? `Version ${comparing.a}` : 'The draft'} compared with {comparing.b ? `version ${comparing.b}` : 'the draft'}: {Object.values(comparing.changes.blocks).filter((c) => c === 'added').length} blocks added, {Object.values(comparing.changes.blocks).filter((c) => c === 'removed').length} removed, {Object.values(comparing.changes.blocks).filter((c) => c === 'changed').length} changed.</span>
          <button type="button" onClick={() => setComparing(null)}>Back to editing</button>
        </div>
      )}
      {proposal && shown && (
        <div className="proposal-bar" role="region" aria-label="Copilot proposal">
          <span>The copilot proposes {Object.values(shown.changes.blocks).filter((c) => c === 'added').length} added, {Object.values(shown.changes.blocks).filter((c) => c === 'removed').length} removed and {Object.values(shown.changes.blocks).filter((c) => c === 'changed').length} changed blocks, {Object.keys(shown.changes.edges).length} edge changes.</span>
          <button type="button" className="primary" onClick={() => void accept()}>Accept proposal</button>
          <button type="button" onClick={() => setProposal(null)}>Reject proposal</button>
        </div>
      )}
      <div className="workflow-body">
        <Palette types={types} onAdd={(type) => {
          setSelected(freshId(history.value, type));
          history.change((g) => addBlock(g, type));
        }} />
        <ReactFlowProvider>
          {comparing && !shown
            ? <Canvas layoutTick={layoutTick} graph={comparing.graph} types={types} runStates={{}} problem={null} changes={comparing.changes} onChange={() => undefined} onSelect={setSelected} />
            : shown
            ? <Canvas layoutTick={layoutTick} graph={shown.graph} types={types} runStates={{}} problem={null} changes={shown.changes} onChange={() => undefined} onSelect={setSelected} />
            : <Canvas layoutTick={layoutTick} graph={history.value} types={types} runStates={runStates} problem={save.problem} onChange={history.change} onSelect={setSelected} />}
        </ReactFlowProvider>
        <div className="workflow-side">
          <div className="segmented" role="group" aria-label="Side panel">
            <button type="button" aria-pressed={side === 'run'} onClick={() => setSide('run')}>Runs</button>
            <button type="button" aria-pressed={side === 'copilot'} onClick={() => setSide('copilot')}>Copilot</button>
            <button type="button" aria-pressed={side === 'versions'} onClick={() => setSide('versions')}>Versions</button>
          </div>
          {side === 'run' && <RunPanel view={run.view} workflowId={id} inputs={inputsOf(history.value.blocks.find((b) => b.type === 'starter')?.config)} onRun={(v) => void startRun(v)} onCancel={() => void run.cancel()} />}
          {side === 'copilot' && <CopilotPanel copilot={copilot} onSend={(t) => void ask(t)} onRestore={(g) => history.change(g)} />}
          {side === 'versions' && (
            <VersionsPanel workflowId={id} graph={history.value} armedUntil={loaded.value.workflow.armed_until} onChanged={loaded.reload}
              onCompare={(a, b) => setComparing({ a: a.version, b: b.version, ...overlay(a.graph, b.graph) })} />
          )}
          {block && !proposal && (
            <BlockPanel graph={history.value} blockId={block.id} type={typeOf.get(block.type)} workflowId={id} executionId={run.view.executionId}
              state={runStates[block.id]} problem={save.problem?.block === block.id ? save.problem.message : undefined} onChange={history.change} onClose={() => setSelected(null)} />
          )}
        </div>
      </div>
    </div>
  );
}
