// One reference syntax, resolved in every string of a block's config before
// the block runs:
//   <blockId.path.to.value>   an upstream block's output (by block id, or its config `name`)
//   <blockId>                 that block's whole output
//   <variables.key>           the run's input variables (alias <start.key>)
// Paths step into objects by key and arrays by index. A string that is one
// reference becomes the referenced value itself (an object stays an object);
// references inside longer text are written as text (objects as JSON).
// A reference to a block, variable or path that does not exist fails the
// block with a message naming it. `<word>` that names no block and has no
// path is left as text (so markup such as <br> survives).
import { type Block } from './types.ts';
import { Failure } from '../../failures.ts';

const REFERENCE = /<([A-Za-z_][A-Za-z0-9_-]*)((?:\.[A-Za-z0-9_-]+)*)>/g;
const WHOLE = /^<([A-Za-z_][A-Za-z0-9_-]*)((?:\.[A-Za-z0-9_-]+)*)>$/;

export type Scope = {
  variables: Record<string, unknown>;
  outputs: ReadonlyMap<string, unknown>;
  /** Every block of the graph, by id and by config `name`. */
  blocks: ReadonlyMap<string, Block>;
};

/** The graph's blocks by id and by their config `name` (ids win). */
export function blockIndex(blocks: Block[]): Map<string, Block> {
  const index = new Map<string, Block>();
  for (const b of blocks) if (typeof b.config.name === 'string' && b.config.name) index.set(b.config.name, b);
  for (const b of blocks) index.set(b.id, b);
  return index;
}

/** The config with every reference resolved (a new object; the graph is not changed). */
export function resolveConfig(config: Record<string, unknown>, scope: Scope): Record<string, unknown> {
  return resolveValue(config, scope) as Record<string, unknown>;
}

function resolveValue(value: unknown, scope: Scope): unknown {
  if (typeof value === 'string') return resolveString(value, scope);
  if (Array.isArray(value)) return value.map((v) => resolveValue(v, scope));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveValue(v, scope)]));
  return value;
}

function resolveString(text: string, scope: Scope): unknown {
  const whole = WHOLE.exec(text);
  if (whole) {
    const found = lookup(whole[1]!, whole[2]!, scope);
    return found.literal ? text : found.value;
  }
  return text.replace(REFERENCE, (match, head: string, path: string) => {
    const found = lookup(head, path, scope);
    if (found.literal) return match;
    return typeof found.value === 'string' ? found.value : JSON.stringify(found.value ?? null);
  });
}

function lookup(head: string, path: string, scope: Scope): { literal: true } | { literal: false; value: unknown } {
  const steps = path ? path.slice(1).split('.') : [];
  const shown = `<${head}${path}>`;
  if (head === 'variables' || head === 'start') {
    return { literal: false, value: walk(scope.variables, steps, shown, 'the run\'s variables') };
  }
  const block = scope.blocks.get(head);
  if (!block) {
    if (steps.length === 0) return { literal: true };
    throw new Failure(`Reference ${shown}: no block or variable named "${head}"`);
  }
  if (!scope.outputs.has(block.id)) throw new Failure(`Reference ${shown}: block "${block.id}" has not run before this block`);
  return { literal: false, value: walk(scope.outputs.get(block.id), steps, shown, `the output of "${block.id}"`) };
}

function walk(root: unknown, steps: string[], shown: string, where: string): unknown {
  let value = root;
  for (const [i, step] of steps.entries()) {
    const next = Array.isArray(value) && /^\d+$/.test(step) ? value[Number(step)] : value && typeof value === 'object' ? (value as Record<string, unknown>)[step] : undefined;
    if (next === undefined) throw new Failure(`Reference ${shown}: ${steps.slice(0, i + 1).join('.')} is not in ${where}`);
    value = next;
  }
  return value;
}
