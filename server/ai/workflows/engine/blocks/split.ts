// split: runs its downstream path once per item of `items` (an array), at
// most `concurrency` at a time (default 4), and gathers what each path
// ended with, in input order. Inside the path, <split.item> and
// <split.index> name the current item (by the split block's id or name).
// Each item's end is a checkpoint (engine/run.ts): a resumed split runs
// only the items that had not finished.
import { type BlockHandler } from '../types.ts';
import { Failure } from '../../../failures.ts';

export const split: BlockHandler = {
  ownsDownstream: true,
  run: async (ctx) => {
    const items = ctx.config.items;
    if (!Array.isArray(items)) throw new Failure('split needs items: an array (for example <variables.list>)');
    const cap = typeof ctx.config.concurrency === 'number' && ctx.config.concurrency >= 1 ? Math.floor(ctx.config.concurrency) : 4;
    const results: unknown[] = new Array(items.length);
    let next = 0;
    // An item that fails (or parks, or is cut off) stops the split taking more; those in flight settle first.
    let stopped: unknown;
    const worker = async () => {
      while (next < items.length && !ctx.signal.aborted && stopped === undefined) {
        const index = next++;
        try {
          results[index] = await ctx.runPath(ctx.targets, items[index], index);
        } catch (err) {
          stopped ??= err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(cap, items.length) }, worker));
    if (stopped !== undefined) throw stopped;
    return { output: results };
  },
};
