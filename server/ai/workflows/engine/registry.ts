// Block types to their handlers: the only place a type string meets code.
// The scheduler asks this map; it never switches on a type itself.
import { agent, orchestration } from './blocks/agent.ts';
import { code } from './blocks/code.ts';
import { condition } from './blocks/condition.ts';
import { generalApi } from './blocks/general-api.ts';
import { platformApi } from './blocks/platform-api.ts';
import { response } from './blocks/response.ts';
import { split } from './blocks/split.ts';
import { starter } from './blocks/starter.ts';
import { wait } from './blocks/wait.ts';
import { webhook } from './blocks/webhook.ts';
import type { BlockHandler } from './types.ts';

export const BLOCK_HANDLERS: ReadonlyMap<string, BlockHandler> = new Map([
  ['starter', starter],
  ['webhook', webhook],
  ['response', response],
  ['general_api', generalApi],
  ['split', split],
  ['code', code],
  ['condition', condition],
  ['platform_api', platformApi],
  ['agent', agent],
  ['orchestration', orchestration],
  ['wait', wait],
]);

/** Types a run starts from, by trigger. */
export const TRIGGERS = { manual: 'starter', webhook: 'webhook' } as const;
