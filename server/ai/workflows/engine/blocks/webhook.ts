// webhook: the trigger block of runs started by POST /api/webhooks/{id}; its
// output is the request's JSON body (the run's variables).
import type { BlockHandler } from '../types.ts';

export const webhook: BlockHandler = {
  run: async (ctx) => ({ output: ctx.variables }),
};
