// A copilot proposal drawn over the canvas: the proposed graph with the
// blocks and edges it removes kept in view, each block and edge marked
// added, removed or changed; and the graph accepting it gives (positions
// kept for blocks that stay, new ones placed beside the rest).
import { nextPosition, type Block, type Edge, type Graph } from './graph.ts';
import { edgeKey } from './Canvas.tsx';

export type Changes = { blocks: Record<string, 'added' | 'removed' | 'changed'>; edges: Record<string, 'added' | 'removed'> };

/** The proposal as a graph to save: blocks that stay keep where they are. */
export function acceptedGraph(current: Graph, proposed: { blocks: Array<Partial<Block> & { id: string; type: string }>; edges: Edge[] }): Graph {
  const where = new Map(current.blocks.map((b) => [b.id, b.position]));
  let placed: Graph = { blocks: [], edges: [] };
  for (const b of proposed.blocks) {
    const position = where.get(b.id) ?? (b.position as Block['position'] | undefined) ?? nextPosition({ ...placed, blocks: [...current.blocks, ...placed.blocks] });
    placed = { ...placed, blocks: [...placed.blocks, { id: b.id, type: b.type, config: b.config ?? {}, position }] };
  }
  return { blocks: placed.blocks, edges: proposed.edges.map((e) => ({ source: e.source, target: e.target })) };
}

/** What the canvas shows while a proposal waits: both graphs in one, every difference marked. */
export function overlay(current: Graph, accepted: Graph): { graph: Graph; changes: Changes } {
  const was = new Map(current.blocks.map((b) => [b.id, b]));
  const is = new Set(accepted.blocks.map((b) => b.id));
  const changes: Changes = { blocks: {}, edges: {} };
  for (const b of accepted.blocks) {
    const before = was.get(b.id);
    if (!before) changes.blocks[b.id] = 'added';
    else if (before.type !== b.type || JSON.stringify(before.config) !== JSON.stringify(b.config)) changes.blocks[b.id] = 'changed';
  }
  const removed = current.blocks.filter((b) => !is.has(b.id));
  for (const b of removed) changes.blocks[b.id] = 'removed';
  const wasEdges = new Set(current.edges.map(edgeKey));
  const isEdges = new Set(accepted.edges.map(edgeKey));
  for (const e of accepted.edges) if (!wasEdges.has(edgeKey(e))) changes.edges[edgeKey(e)] = 'added';
  const goneEdges = current.edges.filter((e) => !isEdges.has(edgeKey(e)));
  for (const e of goneEdges) changes.edges[edgeKey(e)] = 'removed';
  return { graph: { blocks: [...accepted.blocks, ...removed], edges: [...accepted.edges, ...goneEdges] }, changes };
}
