// Who a run acts as: a user, or the project. Every run has one, chosen where
// the run starts (the request's caller for execute, streams, async and agent
// runs; the workflow's owner for webhooks and arms, the project only when the
// workflow has no owner) and carried to every block and tool. There
// is no "no user": acting as the project (service role, past RLS) is this
// explicit value, never what a missing id turns into.
import type { RequestContext } from '../../db/as-role.ts';

export type Actor = { kind: 'user'; userId: string } | { kind: 'project' };

export const PROJECT: Actor = { kind: 'project' };

export const userActor = (userId: string): Actor => ({ kind: 'user', userId });

/** The SQL caller an actor is: the user's `authenticated` claims, or the service role. */
export function actorContext(actor: Actor): RequestContext {
  return actor.kind === 'user'
    ? { role: 'authenticated', claims: { sub: actor.userId, role: 'authenticated', aud: 'authenticated' } }
    : { role: 'service_role', claims: { role: 'service_role' } };
}

/** The project as an SQL caller (the service role): the server's own bookkeeping, and runs that act as the project. */
export const PROJECT_CALLER: RequestContext = actorContext(PROJECT);

/** The actor a captured caller is: the service role acts as the project, anyone else as its `sub`. */
export function actorOf(ctx: RequestContext): Actor {
  if (ctx.role === 'service_role') return PROJECT;
  const sub = ctx.claims.sub;
  if (typeof sub !== 'string' || !sub) throw new Error('A caller with no user id cannot act for a user');
  return userActor(sub);
}

/** The ledger's user column: the user's id, or null for the project. */
export const ledgerUser = (actor: Actor): string | null => (actor.kind === 'user' ? actor.userId : null);

/** The ledger's user column for a captured caller (null: the project). */
export const callerUser = (ctx: RequestContext): string | null => ledgerUser(actorOf(ctx));

/**
 * The actor a stored execution row names: `acts_as` is explicit ('user' with
 * its user_id, or 'project'); a row saying 'user' without an id is refused.
 */
export function storedActor(row: { acts_as: string; user_id: string | null }): Actor {
  if (row.acts_as === 'project') return PROJECT;
  if (row.acts_as === 'user' && row.user_id) return userActor(row.user_id);
  throw new Error(`An execution must say whom it acts as (acts_as ${JSON.stringify(row.acts_as)}, user ${row.user_id ?? 'none'})`);
}
