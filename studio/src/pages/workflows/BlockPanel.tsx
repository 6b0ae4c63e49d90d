// The selected block: its type's description, its settings as a form from
// the type's config schema, its edges (connect one from the keyboard, remove
// one), removal, and what the current run did there.
import { useState } from 'react';
import { BlockRun } from './BlockRun.tsx';
import { ConfigForm } from './ConfigForm.tsx';
import { connect, removeBlock, removeEdge, setConfig, type BlockType, type Graph } from './graph.ts';
import type { BlockState } from './useWorkflowRun.ts';

type Props = {
  graph: Graph; blockId: string; type: BlockType | undefined; workflowId: string; executionId: string | null; state: BlockState | undefined; problem: string | undefined;
  onChange: (next: Graph | ((now: Graph) => Graph)) => void; onClose: () => void;
};

export function BlockPanel(p: Props) {
  const block = p.graph.blocks.find((b) => b.id === p.blockId)!;
  const others = p.graph.blocks.filter((b) => b.id !== p.blockId && !p.graph.edges.some((e) => e.source === p.blockId && e.target === b.id));
  const [target, setTarget] = useState('');
  const outgoing = p.graph.edges.filter((e) => e.source === p.blockId);
  return (
    <aside className="block-panel" aria-labelledby="block-panel-title">
      <div className="card-head">
        <h2 id="block-panel-title">{p.type?.label ?? block.type} <span className="mono small">{block.id}</span></h2>
        <button type="button" className="icon-button" aria-label="Close the block's panel" onClick={p.onClose}>×</button>
      </div>
      {p.type && <p className="muted small">{p.type.description}</p>}
      {p.problem && <p className="error-text" role="alert">{p.problem}</p>}
      <ConfigForm key={block.id} schema={p.type?.config_schema ?? {}} config={block.config} onChange={(config) => p.onChange((g) => setConfig(g, block.id, config))} />
      <h3>Leads to</h3>
      <ul className="plain-list">
        {outgoing.map((e) => (
          <li key={e.target} className="inline-group">
            <span className="mono">{e.target}</span>
            <button type="button" className="link-button" aria-label={`Remove the edge to ${e.target}`} onClick={() => p.onChange((g) => removeEdge(g, e))}>Remove</button>
          </li>
        ))}
      </ul>
      <form className="field-row" onSubmit={(e) => { e.preventDefault(); if (target) p.onChange((g) => connect(g, block.id, target)); setTarget(''); }}>
        <label>Connect to
          <select value={target} onChange={(e) => setTarget(e.target.value)}>
            <option value="">Choose a block</option>
            {others.map((b) => <option key={b.id} value={b.id}>{b.id}</option>)}
          </select>
        </label>
        <button type="submit" disabled={!target}>Connect</button>
      </form>
      <button type="button" className="danger" onClick={() => { p.onChange((g) => removeBlock(g, block.id)); p.onClose(); }}>Remove block</button>
      <BlockRun workflowId={p.workflowId} executionId={p.executionId} blockId={block.id} state={p.state} />
    </aside>
  );
}
