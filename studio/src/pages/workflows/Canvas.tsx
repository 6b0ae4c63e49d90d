// The graph on a React Flow canvas: blocks dragged in from the palette (or
// added from it by keyboard), moved, connected handle to handle, deleted
// with Delete. Positions change the graph when a drag ends, so one drag is
// one undo step. Run states, validation problems and a proposal's changes
// are drawn on the blocks and edges they belong to.
import { Background, Controls, ReactFlow, applyEdgeChanges, applyNodeChanges, useReactFlow, type Edge as FlowEdge, type EdgeChange, type NodeChange } from '@xyflow/react';
import { useEffect, useMemo, useRef, useState, type DragEvent } from 'react';
import { BlockNode, type BlockNodeData, type BlockNodeType } from './BlockNode.tsx';
import { addBlock, connect, removeBlock, removeEdge, type BlockType, type Edge, type Graph } from './graph.ts';
import type { BlockState } from './useWorkflowRun.ts';

export const DRAG_TYPE = 'application/x-pgbase-block';
/** Blocks on the canvas in the first frame of a large graph (with React Flow's own mount). */
const FIRST_SLICE = 8;
/** What one frame's slice of blocks may cost while a large graph opens: the next slice is sized from the last one's cost. */
const SLICE_BUDGET_MS = 35;
const nodeTypes = { block: BlockNode };

type Props = {
  /** Changes when the graph was laid out again, so the view fits it. */
  layoutTick: number;
  graph: Graph; types: BlockType[]; runStates: Record<string, BlockState>; problem: { block?: string; edge?: Edge; message: string } | null;
  changes?: { blocks: Record<string, 'added' | 'removed' | 'changed'>; edges: Record<string, 'added' | 'removed'> } | undefined;
  onChange: (next: Graph | ((now: Graph) => Graph)) => void; onSelect: (id: string | null) => void;
};

export const edgeKey = (e: Edge) => `${e.source}->${e.target}`;
const sameData = (a: BlockNodeData, b: BlockNodeData) =>
  a.label === b.label && a.blockId === b.blockId && a.trigger === b.trigger && a.run === b.run && a.problem === b.problem && a.change === b.change;

export function Canvas(p: Props) {
  const flow = useReactFlow();
  const label = useMemo(() => new Map(p.types.map((t) => [t.type, t])), [p.types]);
  const toNodes = (): BlockNodeType[] => p.graph.blocks.map((b) => ({
    id: b.id, type: 'block', position: b.position, ariaLabel: `${label.get(b.type)?.label ?? b.type} block ${b.id}`,
    data: { label: label.get(b.type)?.label ?? b.type, blockId: b.id, trigger: label.get(b.type)?.is_trigger ?? false, run: p.runStates[b.id],
      problem: p.problem?.block === b.id ? p.problem.message : undefined, change: p.changes?.blocks[b.id] },
  }));
  const toEdges = (): FlowEdge[] => p.graph.edges.map((e) => {
    const key = edgeKey(e);
    const problem = p.problem?.edge && edgeKey(p.problem.edge) === key;
    const change = p.changes?.edges[key];
    const className = [problem ? 'edge-problem' : '', change ? `edge-${change}` : ''].filter(Boolean).join(' ');
    return { id: key, source: e.source, target: e.target, ariaLabel: `Edge from ${e.source} to ${e.target}`,
      ...(className ? { className } : {}), ...(problem ? { label: p.problem!.message } : {}), animated: p.runStates[e.source]?.state === 'running' };
  });
  const [nodes, setNodes] = useState<BlockNodeType[]>(toNodes);
  // A large graph is put on the canvas a slice per frame, so opening it never holds the page for long:
  // each block's first render (and measuring) is the cost. A slice is sized from what the last one cost
  // (the time from its frame to the next), so a slow machine takes smaller slices.
  const [shown, setShown] = useState(FIRST_SLICE);
  const slice = useRef({ size: FIRST_SLICE, started: 0 });
  const filling = shown < nodes.length;
  useEffect(() => {
    if (shown === FIRST_SLICE && nodes.length > 0 && performance.getEntriesByName('studio-canvas-first-block').length === 0) performance.mark('studio-canvas-first-block');
    if (!filling) {
      if (nodes.length > 0 && performance.getEntriesByName('studio-canvas-filled').length === 0) performance.mark('studio-canvas-filled');
      return;
    }
    const s = slice.current;
    const frame = requestAnimationFrame((now) => {
      // From the last slice's frame to this one: its render, React Flow's measuring, layout and paint.
      if (s.started) s.size = Math.max(2, Math.min(100, Math.round(s.size * SLICE_BUDGET_MS / Math.max(1, now - s.started))));
      s.started = now;
      setShown((n) => n + s.size);
    });
    return () => cancelAnimationFrame(frame);
  }, [filling, shown]); // eslint-disable-line react-hooks/exhaustive-deps
  // Blocks added or removed, laid out again, or the first fill done: the view takes in the whole graph (no closer than 1:1).
  const extent = `${p.graph.blocks.length}:${p.layoutTick}:${filling}`;
  useEffect(() => { if (!filling) void flow.fitView({ maxZoom: 1, padding: 0.2 }); }, [extent]); // eslint-disable-line react-hooks/exhaustive-deps
  const [edges, setEdges] = useState<FlowEdge[]>(toEdges);
  // The graph (or the run, the problem, a proposal) changed: the canvas follows. A block whose position and
  // data did not change keeps its node object (its selection and measured size too), so only the blocks
  // that changed render again: a run's event repaints one block, not the whole graph.
  useEffect(() => setNodes((now) => {
    const before = new Map(now.map((n) => [n.id, n]));
    return toNodes().map((n) => {
      const was = before.get(n.id);
      if (!was) return n;
      if (was.position.x === n.position.x && was.position.y === n.position.y && was.ariaLabel === n.ariaLabel && sameData(was.data, n.data)) return was;
      return { ...was, position: n.position, data: n.data, ariaLabel: n.ariaLabel! };
    });
  }), [p.graph, p.runStates, p.problem, p.changes, p.types]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => setEdges((now) => {
    const before = new Map(now.map((e) => [e.id, e]));
    return toEdges().map((e) => {
      const was = before.get(e.id);
      return was && was.className === e.className && was.label === e.label && was.animated === e.animated ? was : e;
    });
  }), [p.graph, p.runStates, p.problem, p.changes]); // eslint-disable-line react-hooks/exhaustive-deps

  const onNodesChange = (changes: NodeChange<BlockNodeType>[]) => {
    const removed = changes.filter((c) => c.type === 'remove').map((c) => c.id);
    if (removed.length) p.onChange((g) => removed.reduce(removeBlock, g));
    setNodes((now) => applyNodeChanges(changes.filter((c) => c.type !== 'remove'), now));
    const chosen = changes.find((c) => c.type === 'select' && c.selected);
    if (chosen && chosen.type === 'select') p.onSelect(chosen.id);
  };
  const onEdgesChange = (changes: EdgeChange[]) => {
    const removed = changes.filter((c) => c.type === 'remove').map((c) => p.graph.edges.find((e) => edgeKey(e) === c.id)).filter((e): e is Edge => !!e);
    if (removed.length) p.onChange((g) => removed.reduce(removeEdge, g));
    setEdges((now) => applyEdgeChanges(changes.filter((c) => c.type !== 'remove'), now));
  };
  const onDrop = (e: DragEvent) => {
    const type = e.dataTransfer.getData(DRAG_TYPE);
    if (!type) return;
    e.preventDefault();
    const at = flow.screenToFlowPosition({ x: e.clientX, y: e.clientY });
    p.onChange((g) => addBlock(g, type, { x: Math.round(at.x), y: Math.round(at.y) }));
  };

  return (
    <div className="canvas" onDragOver={(e) => { if (e.dataTransfer.types.includes(DRAG_TYPE)) e.preventDefault(); }} onDrop={onDrop}>
      <ReactFlow
        nodes={filling ? nodes.slice(0, shown) : nodes} edges={edges} nodeTypes={nodeTypes} onNodesChange={onNodesChange} onEdgesChange={onEdgesChange}
        onConnect={(c) => p.onChange((g) => connect(g, c.source, c.target))}
        onNodeDragStop={(_e, _n, dragged) => p.onChange((g) => ({ ...g, blocks: g.blocks.map((b) => {
          const moved = dragged.find((d) => d.id === b.id);
          return moved ? { ...b, position: { x: Math.round(moved.position.x), y: Math.round(moved.position.y) } } : b;
        }) }))}
        onPaneClick={() => p.onSelect(null)}
        deleteKeyCode={['Delete', 'Backspace']} fitView fitViewOptions={{ maxZoom: 1, padding: 0.2 }} minZoom={0.05} proOptions={{ hideAttribution: true }}
        ariaLabelConfig={{ 'node.a11yDescription.default': 'Press Enter or Space to select the block, then the arrow keys to move it and Delete to remove it.' }}
      >
        <Background />
        <Controls />
      </ReactFlow>
    </div>
  );
}
