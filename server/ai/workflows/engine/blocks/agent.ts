// agent and orchestration blocks: an agent (config.agent_id, or an inline
// `model` with `system_prompt`, `settings` and builtin `tools`) or an
// orchestration (config.orchestration_id) run on the block's message, as the
// user running the workflow. The message is config.message (else `prompt`,
// else `input`), references resolved; without one, the run's variables as
// JSON. Their text streams into the workflow stream as content_delta.
import { type BlockContext, type BlockHandler } from '../types.ts';
import { Failure, HandedOver, Parked } from '../../../failures.ts';

function messageOf(ctx: BlockContext): string {
  for (const key of ['message', 'prompt', 'input']) {
    const v = ctx.config[key];
    if (v !== undefined && v !== null && v !== '') return typeof v === 'string' ? v : JSON.stringify(v);
  }
  return JSON.stringify(ctx.variables);
}

function handler(kind: 'agent' | 'orchestration'): BlockHandler {
  return {
    run: async (ctx) => {
      try {
        const call = {
          actor: ctx.services.actor, executionId: ctx.services.executionId, blockId: ctx.block.id, place: ctx.callPath, resumed: ctx.services.resumed,
          config: ctx.config, message: messageOf(ctx), signal: ctx.signal, delta: ctx.delta, waiting: ctx.waiting,
        };
        return { output: await ctx.services.agents[kind](call) };
      } catch (err) {
        // Parked (its child waits on an approval) or handed over: not the block's failure.
        if (err instanceof Failure || err instanceof Parked || err instanceof HandedOver || ctx.signal.aborted) throw err;
        throw new Failure(`${kind} block: ${(err as Error).message}`);
      }
    },
  };
}

export const agent = handler('agent');
export const orchestration = handler('orchestration');
