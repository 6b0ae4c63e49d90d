// response: shapes the run's output from `output` (references resolved).
import type { BlockHandler } from '../types.ts';

export const response: BlockHandler = {
  run: async (ctx) => ({ output: 'output' in ctx.config ? ctx.config.output : null }),
};
