// Block types that are registered and validated but cannot run yet: a run
// reaching one fails with a message naming what is missing.
import { BlockError, type BlockHandler } from '../types.ts';

export function unavailable(type: string, why: string): BlockHandler {
  return {
    run: async () => {
      throw new BlockError(`${type} blocks cannot run yet: ${why}`);
    },
  };
}
