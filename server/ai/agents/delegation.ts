// What every delegation shares (a standalone agent's sub-agent, an
// orchestration's member): the one argument a delegate tool takes, reading
// it from the model's arguments, and the member's events marked as the
// delegation's.
import type { Emit } from '../steps/events.ts';

/** A delegate tool's one argument. */
export const TASK_SCHEMA = { type: 'object', properties: { task: { type: 'string', description: 'What the member should do, with everything it needs to know' } }, required: ['task'] };

/** The task the model asked for, trimmed ('' when it sent none). */
export const taskOf = (args: unknown): string =>
  args && typeof (args as { task?: unknown }).task === 'string' ? (args as { task: string }).task.trim() : '';

/** A member's events as its delegation's: marked with the delegation id, its text as delegation_delta. */
export const delegationEvents = (emit: Emit | undefined, delegationId: string): Emit | undefined =>
  emit && ((e) => emit(e.type === 'content_delta' ? { type: 'delegation_delta', delegation_id: delegationId, delta: e.delta } : { ...e, delegation_id: delegationId }));
