// The workflow as the copilot sees and changes it: the editor's state
// normalised to {blocks, edges}, modify_workflow's operations applied to a
// proposal, the diff between two states, and the state cut to the part 8
// limits before a model reads it (each cut noted for the model).
import { jsonField } from './schemas.ts';
import type { Block, Edge, Graph } from '../workflows/engine/types.ts';

export type WorkflowDiff = {
  added: { blocks: Block[]; edges: Edge[] };
  removed: { blocks: string[]; edges: Edge[] };
  modified: { blocks: Array<{ id: string; before: Block; after: Block }> };
};

/**
 * The editor's state as a graph. Accepts {blocks, edges} as PUT /graph takes
 * it, and {nodes, edges} as canvas editors (React Flow) keep it, with a
 * node's config in `config` or `data.config` and its type in `type` or `data.type`.
 */
export function normaliseState(raw: unknown): Graph | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const s = raw as { blocks?: unknown; nodes?: unknown; edges?: unknown };
  const list = Array.isArray(s.blocks) ? s.blocks : Array.isArray(s.nodes) ? s.nodes : null;
  if (!list) return null;
  const blocks = list.filter((b): b is Record<string, unknown> => !!b && typeof b === 'object').map((b) => {
    const data = (b.data && typeof b.data === 'object' ? b.data : {}) as Record<string, unknown>;
    const config = (b.config && typeof b.config === 'object' ? b.config : data.config && typeof data.config === 'object' ? data.config : {}) as Record<string, unknown>;
    return { id: String(b.id ?? ''), type: String(b.type ?? data.type ?? ''), config, ...(b.position !== undefined ? { position: b.position } : {}) };
  });
  const edges = (Array.isArray(s.edges) ? s.edges : []).filter((e): e is Record<string, unknown> => !!e && typeof e === 'object')
    .map((e) => ({ source: String(e.source ?? ''), target: String(e.target ?? '') }));
  return { blocks, edges };
}

const edgeKey = (e: Edge) => `${e.source}->${e.target}`;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function diffStates(before: Graph, after: Graph): WorkflowDiff {
  const was = new Map(before.blocks.map((b) => [b.id, b]));
  const is = new Map(after.blocks.map((b) => [b.id, b]));
  const wasEdges = new Set(before.edges.map(edgeKey));
  const isEdges = new Set(after.edges.map(edgeKey));
  return {
    added: { blocks: after.blocks.filter((b) => !was.has(b.id)), edges: after.edges.filter((e) => !wasEdges.has(edgeKey(e))) },
    removed: { blocks: before.blocks.filter((b) => !is.has(b.id)).map((b) => b.id), edges: before.edges.filter((e) => !isEdges.has(edgeKey(e))) },
    modified: {
      blocks: after.blocks.filter((b) => was.has(b.id) && (!same(was.get(b.id)!.config, b.config) || was.get(b.id)!.type !== b.type))
        .map((b) => ({ id: b.id, before: was.get(b.id)!, after: b })),
    },
  };
}

export const emptyDiff = (d: WorkflowDiff) =>
  d.added.blocks.length + d.added.edges.length + d.removed.blocks.length + d.removed.edges.length + d.modified.blocks.length === 0;

export type Operation =
  | { op: 'add_block'; block: { id: string; type: string; config?: Record<string, unknown>; position?: unknown } }
  | { op: 'remove_block'; id: string }
  | { op: 'update_block'; id: string; config?: Record<string, unknown>; replace?: boolean; type?: string; position?: unknown }
  | { op: 'add_edge'; source: string; target: string }
  | { op: 'remove_edge'; source: string; target: string };

/** Applies operations in order; a wrong one is reported, not thrown, so the model can fix it. */
export function applyOperations(state: Graph, ops: unknown): { state: Graph; errors: string[] } {
  const blocks = state.blocks.map((b) => ({ ...b, config: { ...b.config } }));
  let edges = state.edges.map((e) => ({ ...e }));
  const errors: string[] = [];
  if (!Array.isArray(ops) || ops.length === 0) return { state, errors: ['operations must be a non-empty list'] };
  ops.forEach((raw, i) => {
    const op = raw as Record<string, unknown>;
    const at = `operations[${i}]`;
    const find = (id: unknown) => blocks.findIndex((b) => b.id === id);
    switch (op?.op) {
      case 'add_block': {
        const b = op.block as Record<string, unknown> | undefined;
        if (!b || typeof b.id !== 'string' || !b.id || typeof b.type !== 'string' || !b.type) return void errors.push(`${at}: add_block needs block.id and block.type`);
        if (find(b.id) >= 0) return void errors.push(`${at}: a block with id ${b.id} already exists`);
        let config: Record<string, unknown>;
        try {
          config = jsonField(b.config, `${at}: block.config`) ?? {};
        } catch (err) {
          return void errors.push((err as Error).message);
        }
        blocks.push({ id: b.id, type: b.type, config, ...(b.position !== undefined && b.position !== null ? { position: b.position } : {}) });
        return;
      }
      case 'remove_block': {
        const n = find(op.id);
        if (n < 0) return void errors.push(`${at}: no block ${String(op.id)}`);
        blocks.splice(n, 1);
        edges = edges.filter((e) => e.source !== op.id && e.target !== op.id);
        return;
      }
      case 'update_block': {
        const n = find(op.id);
        if (n < 0) return void errors.push(`${at}: no block ${String(op.id)}`);
        let config: Record<string, unknown>;
        try {
          config = jsonField(op.config, `${at}: config`) ?? {};
        } catch (err) {
          return void errors.push((err as Error).message);
        }
        const b = blocks[n]!;
        blocks[n] = { ...b, ...(typeof op.type === 'string' ? { type: op.type } : {}), ...(op.position !== undefined && op.position !== null ? { position: op.position } : {}), config: op.replace === true ? config : { ...b.config, ...config } };
        return;
      }
      case 'add_edge':
      case 'remove_edge': {
        if (typeof op.source !== 'string' || typeof op.target !== 'string') return void errors.push(`${at}: ${op.op} needs source and target`);
        const exists = edges.some((e) => e.source === op.source && e.target === op.target);
        if (op.op === 'add_edge') {
          if (exists) return void errors.push(`${at}: the edge ${op.source} -> ${op.target} already exists`);
          edges.push({ source: op.source, target: op.target });
        } else {
          if (!exists) return void errors.push(`${at}: no edge ${op.source} -> ${op.target}`);
          edges = edges.filter((e) => !(e.source === op.source && e.target === op.target));
        }
        return;
      }
      default:
        errors.push(`${at}: op must be add_block, remove_block, update_block, add_edge or remove_edge`);
    }
  });
  return { state: { blocks, edges }, errors };
}

export type StateLimits = { maxBlockName: number; maxConfigValue: number; maxTotal: number; maxDepth: number };

/** The state as the model reads it: long names and values, deep configs and the whole cut to the limits, with notes saying so. */
export function stateForModel(state: Graph, limits: StateLimits): { text: string; notes: string[] } {
  const notes = new Set<string>();
  const cutValue = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') {
      if (v.length <= limits.maxConfigValue) return v;
      notes.add(`Config values longer than ${limits.maxConfigValue} characters were cut (marked [cut]).`);
      return `${v.slice(0, limits.maxConfigValue)}[cut]`;
    }
    if (v && typeof v === 'object') {
      if (depth >= limits.maxDepth) {
        notes.add(`Config nested deeper than ${limits.maxDepth} levels was summarised (marked [nested]).`);
        return Array.isArray(v) ? `[nested list of ${v.length}]` : `[nested object with keys ${Object.keys(v).join(', ')}]`;
      }
      if (Array.isArray(v)) return v.map((x) => cutValue(x, depth + 1));
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cutValue(x, depth + 1)]));
    }
    return v;
  };
  const blocks = state.blocks.map((b) => {
    const config = cutValue(b.config, 0) as Record<string, unknown>;
    if (typeof config.name === 'string' && (b.config.name as string).length > limits.maxBlockName) {
      notes.add(`Block names longer than ${limits.maxBlockName} characters were cut.`);
      config.name = (b.config.name as string).slice(0, limits.maxBlockName);
    }
    return { id: b.id, type: b.type, config };
  });
  let text = JSON.stringify({ blocks, edges: state.edges });
  if (text.length > limits.maxTotal) {
    notes.add(`The workflow state was cut at ${limits.maxTotal} characters; ask get_block_info or the user for the rest.`);
    text = `${text.slice(0, limits.maxTotal)}[cut]`;
  }
  return { text, notes: [...notes] };
}
