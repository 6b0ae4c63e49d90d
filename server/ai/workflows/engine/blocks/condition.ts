// condition: {conditions: [{expression, target}], else}. Expressions are
// JavaScript evaluated in the sandbox with `variables` and `outputs` in
// scope (references are resolved first); the first true one's target is
// taken, else the `else` target, and the blocks only the untaken edges lead
// to are skipped. Each target must be one of the block's outgoing edges.
import { type BlockHandler } from '../types.ts';
import { Failure } from '../../../failures.ts';

type Branch = { expression?: unknown; target?: unknown };

export const condition: BlockHandler = {
  run: async (ctx) => {
    const branches = ctx.config.conditions;
    if (!Array.isArray(branches)) throw new Failure('condition needs conditions: [{expression, target}]');
    const check = (target: unknown, where: string): string => {
      if (typeof target !== 'string' || !ctx.targets.includes(target)) throw new Failure(`${where}: target ${JSON.stringify(target)} is not a block this condition has an edge to`);
      return target;
    };
    const { sandbox } = ctx.services;
    for (const [i, branch] of (branches as Branch[]).entries()) {
      const target = check(branch?.target, `conditions[${i}]`);
      let value: unknown = branch.expression;
      if (typeof value === 'string') {
        value = (await sandbox.pool.run({
          code: value, expression: true, timeoutMs: sandbox.timeoutMs, memoryMb: sandbox.memoryMb,
          scope: { variables: ctx.variables, outputs: Object.fromEntries(ctx.outputs) },
        })).value;
      }
      if (value) return { output: { branch: target, index: i }, take: [target] };
    }
    if (ctx.config.else !== undefined && ctx.config.else !== null && ctx.config.else !== '') {
      const target = check(ctx.config.else, 'else');
      return { output: { branch: target, index: null }, take: [target] };
    }
    return { output: { branch: null, index: null }, take: [] };
  },
};
