// What a workflow's webhook does (spec 4.8, 3.4): start a run, or send an
// event to one of its waiting runs. Either way the workflow holding the
// webhook id is found first and its secret compared in constant time before
// anything else (so a wrong secret learns nothing and cannot use an arm
// window). A run then takes the deployed version, else a live arm window
// (one guarded statement) and the draft, else 403; it acts as the workflow's
// owner, as the project only for a project workflow.
import type { Config } from '../../config.ts';
import type { AiCalls } from '../calls.ts';
import { storedActor, userActor, PROJECT } from '../actor.ts';
import { aiErrors } from '../errors.ts';
import type { RunLimiter } from '../runs/limiter.ts';
import type { RunEvent } from './engine/types.ts';
import type { CarryExecution, Execution } from './execution.ts';

type Hook = { workflow_id: string; secret: string; deployed: boolean; active_version: number | null; owner_id: string | null; owner_anonymous: boolean };

export function webhookTriggers(opts: { calls: AiCalls; config: Config; limiter: RunLimiter; run: CarryExecution; deliver: (executionId: string, event: string, data: unknown) => Promise<number> }) {
  const { calls } = opts;
  /** The workflow holding this webhook id, if the secret matches: undefined when none holds it, null when the secret is wrong. */
  const hookOf = async (webhookId: string, secretMatches: (secret: string) => boolean): Promise<Hook | null | undefined> => {
    const [hook] = await calls.asService<Hook>(
      `select b.workflow_id, b.config ->> 'webhook_secret' as secret, w.deployed, w.active_version, w.owner_id, coalesce(u.is_anonymous, false) as owner_anonymous
         from ai.workflow_blocks b join ai.workflows w on w.id = b.workflow_id left join auth.users u on u.id = w.owner_id
        where b.type = 'webhook' and b.config ->> 'webhook_id' = $1`, [webhookId]);
    if (!hook) return undefined;
    return secretMatches(hook.secret ?? '') ? hook : null;
  };

  return {
    /** A webhook call: runs the workflow (or, carried by the workers, queues it) with the body as its variables. */
    webhook: async (webhookId: string, secretMatches: (secret: string) => boolean, variables: Record<string, unknown>, signal: AbortSignal, emit: (e: RunEvent) => void = () => undefined, how: { inWorker?: boolean } = {}) => {
      const hook = await hookOf(webhookId, secretMatches);
      if (hook === undefined) return { outcome: 'not_found' as const };
      if (hook === null) return { outcome: 'unauthorized' as const };
      // The run would act as its owner: an anonymous one only where anonymous users may use the AI surface.
      if (hook.owner_anonymous && !opts.config.AI_ANONYMOUS_USERS) throw aiErrors.anonymousOwnerRefused();
      // Only a caller holding the secret draws from the owner's window, and before an arm is used.
      opts.limiter.take('triggered', hook.owner_id ? userActor(hook.owner_id) : PROJECT);
      let version: number | null = null;
      if (hook.deployed && hook.active_version !== null) version = hook.active_version;
      else if (!(await calls.asService<{ used: boolean }>('select ai.consume_arm($1) as used', [hook.workflow_id]))[0]!.used) return { outcome: 'inactive' as const };
      // The run acts as the workflow's owner (the project for a project workflow), recorded as its user.
      const [row] = await calls.asService<Execution>('select * from ai.record_webhook_execution($1, $2, $3)', [hook.workflow_id, JSON.stringify(variables), version]);
      // Carried by a worker (AI_RUN_PLACEMENT=worker): queued; the route follows it to its end.
      if (how.inWorker) {
        await calls.asService('select ai.enqueue_execution($1)', [row!.id]);
        return { outcome: 'queued' as const, executionId: row!.id };
      }
      return { outcome: 'run' as const, result: opts.run({ ...row!, workflow_id: hook.workflow_id }, variables, 'webhook', storedActor(row!), signal, emit) };
    },

    /** An event for one of the workflow's runs (POST /api/webhooks/{id}/executions/{eid}/events): how many waits it ended. */
    webhookEvent: async (webhookId: string, secretMatches: (secret: string) => boolean, executionId: string, event: string, data: unknown) => {
      const hook = await hookOf(webhookId, secretMatches);
      if (hook === undefined) return { outcome: 'not_found' as const };
      if (hook === null) return { outcome: 'unauthorized' as const };
      const [mine] = await calls.asService('select 1 from ai.workflow_executions where id = $1 and workflow_id = $2', [executionId, hook.workflow_id]);
      if (!mine) return { outcome: 'no_execution' as const };
      return { outcome: 'delivered' as const, ended: await opts.deliver(executionId, event, data) };
    },
  };
}
