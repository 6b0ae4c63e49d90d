// A workflow's draft graph as the canvas edits it, and the pure steps on it:
// adding a block with a fresh id, connecting, auto-layout in layers (each
// block one column right of its furthest parent), and finding which block or
// edge a put_graph error names, so the canvas can pin it there.
import type { components } from '../../api/ai/index.ts';

export type BlockType = components['schemas']['BlockType'];
export type Block = { id: string; type: string; config: Record<string, unknown>; position: { x: number; y: number } };
export type Edge = { source: string; target: string };
export type Graph = { blocks: Block[]; edges: Edge[] };

const COLUMN = 260;
const ROW = 120;

/** The graph the server answered, with every block given a position and a config. */
export function graphOf(value: { blocks: unknown[]; edges: unknown[] }): Graph {
  const blocks = (value.blocks as Array<Partial<Block> & { id: string; type: string }>).map((b, i) => ({
    id: b.id, type: b.type, config: b.config ?? {}, position: b.position ?? { x: i * COLUMN, y: 0 },
  }));
  return { blocks, edges: (value.edges as Edge[]).map((e) => ({ source: e.source, target: e.target })) };
}

/** A new block of `type`'s id: the type's name, numbered when taken (code, code_2, ...). */
export function freshId(graph: Graph, type: string): string {
  const taken = new Set(graph.blocks.map((b) => b.id));
  if (!taken.has(type)) return type;
  for (let n = 2; ; n++) if (!taken.has(`${type}_${n}`)) return `${type}_${n}`;
}

/** Where a block added without a drop point goes: right of the rightmost block. */
export function nextPosition(graph: Graph): { x: number; y: number } {
  if (graph.blocks.length === 0) return { x: 0, y: 0 };
  const right = graph.blocks.reduce((a, b) => (b.position.x > a.position.x ? b : a));
  return { x: right.position.x + COLUMN, y: right.position.y };
}

export function addBlock(graph: Graph, type: string, position = nextPosition(graph)): Graph {
  return { ...graph, blocks: [...graph.blocks, { id: freshId(graph, type), type, config: {}, position }] };
}

export function connect(graph: Graph, source: string, target: string): Graph {
  if (source === target || graph.edges.some((e) => e.source === source && e.target === target)) return graph;
  return { ...graph, edges: [...graph.edges, { source, target }] };
}

export function removeBlock(graph: Graph, id: string): Graph {
  return { blocks: graph.blocks.filter((b) => b.id !== id), edges: graph.edges.filter((e) => e.source !== id && e.target !== id) };
}

export function removeEdge(graph: Graph, edge: Edge): Graph {
  return { ...graph, edges: graph.edges.filter((e) => !(e.source === edge.source && e.target === edge.target)) };
}

export function setConfig(graph: Graph, id: string, config: Record<string, unknown>): Graph {
  return { ...graph, blocks: graph.blocks.map((b) => (b.id === id ? { ...b, config } : b)) };
}

/** Layers left to right: a block's column is one more than its furthest parent's (edges back into a split's path are not followed twice). */
export function autoLayout(graph: Graph): Graph {
  const column = new Map<string, number>(graph.blocks.map((b) => [b.id, 0]));
  // Longest path by relaxing edges at most |blocks| times: bounded even when a split's loop leads back.
  for (let round = 0; round < graph.blocks.length; round++) {
    let changed = false;
    for (const e of graph.edges) {
      const next = (column.get(e.source) ?? 0) + 1;
      if (next > (column.get(e.target) ?? 0) && next < graph.blocks.length) {
        column.set(e.target, next);
        changed = true;
      }
    }
    if (!changed) break;
  }
  const rows = new Map<number, number>();
  return {
    ...graph,
    blocks: graph.blocks.map((b) => {
      const c = column.get(b.id) ?? 0;
      const r = rows.get(c) ?? 0;
      rows.set(c, r + 1);
      return { ...b, position: { x: c * COLUMN, y: r * ROW } };
    }),
  };
}

/** What a put_graph message names: a block (`Block "x"`, `block "x"`, `(block "x")`, `Duplicate block id "x"`) or an edge (`Edge a -> b`). */
export function pinOf(message: string): { block?: string; edge?: Edge } {
  const edge = /^Edge (.+?) -> (.+?)(:| appears)/.exec(message);
  if (edge) return { edge: { source: edge[1]!, target: edge[2]! } };
  const block = /[Bb]lock(?: id)? "([^"]+)"/.exec(message);
  return block ? { block: block[1]! } : {};
}
