// starter: where a run begins; its output is the run's input variables.
import type { BlockHandler } from '../types.ts';

export const starter: BlockHandler = {
  run: async (ctx) => ({ output: ctx.variables }),
};
