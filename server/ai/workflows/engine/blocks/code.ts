// code (alias function): the user's JavaScript function body, run in the
// sandbox (sandbox/) with `variables` and `outputs` (upstream outputs by
// block id) in scope; `return` a JSON value. console lines go to the block
// log. Limits: SANDBOX_TIMEOUT_MS (or a lower config.timeout_ms) and SANDBOX_MEMORY_MB.
import { type BlockHandler } from '../types.ts';
import { Failure } from '../../../failures.ts';

export const code: BlockHandler = {
  run: async (ctx) => {
    if (typeof ctx.config.code !== 'string' || !ctx.config.code.trim()) throw new Failure('code needs code: the body of a function that returns a JSON value');
    const { sandbox } = ctx.services;
    const asked = typeof ctx.config.timeout_ms === 'number' && ctx.config.timeout_ms > 0 ? ctx.config.timeout_ms : sandbox.timeoutMs;
    try {
      const result = await sandbox.pool.run({
        code: ctx.config.code, timeoutMs: Math.min(asked, sandbox.timeoutMs), memoryMb: sandbox.memoryMb,
        scope: { variables: ctx.variables, outputs: Object.fromEntries(ctx.outputs) },
      });
      for (const line of result.logs) ctx.log(line);
      return { output: result.value };
    } catch (err) {
      for (const line of (err as { logs?: string[] }).logs ?? []) ctx.log(line);
      throw err;
    }
  },
};
