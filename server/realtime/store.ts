// Every SQL call a socket makes, in one place: the functions of
// sql/0016_realtime.sql that decide subscriptions, private-channel access
// and presence. The admin pool runs the server's own entry points (revoked
// from the API roles); channel access is asked as the subscriber's role.
import type pg from 'pg';
import { asRole } from '../../db/as-role.ts';
import type { Claims } from '../keys.ts';
import type { Access } from './hub.ts';

export type ChangeRequest = { event: string; schema: string; table?: string; filter?: string };

export type RealtimeStore = ReturnType<typeof realtimeStore>;

export function realtimeStore(opts: { adminPool: pg.Pool; requestPool: pg.Pool; nodeId: string }) {
  const { adminPool, requestPool, nodeId } = opts;
  return {
    /** postgres_changes subscriptions of a channel, validated and stored in SQL; one id per binding. */
    subscribe: async (socket: string, channel: string, claims: Claims, changes: ChangeRequest[]): Promise<number[]> => {
      const { rows } = await adminPool.query<{ id: string }>('select realtime.subscribe($1, $2, $3, $4::jsonb, $5::jsonb) as id', [
        nodeId, socket, channel, JSON.stringify(claims), JSON.stringify(changes),
      ]);
      return rows.map((r) => Number(r.id));
    },
    /** A new token for a channel's subscriptions (routing then uses its role and claims). */
    updateClaims: async (channel: string, claims: Claims): Promise<void> => {
      await adminPool.query('select realtime.update_claims($1, $2, $3::jsonb)', [nodeId, channel, JSON.stringify(claims)]);
    },
    /** What realtime.messages policies let this role and these claims do on a private topic. */
    channelAccess: async (subTopic: string, role: string, claims: Claims): Promise<Access> => {
      const row = await asRole(requestPool, { role, claims }, async (client) =>
        (await client.query<{ broadcast_read: boolean; broadcast_write: boolean; presence_read: boolean; presence_write: boolean }>('select * from realtime.channel_access($1)', [subTopic])).rows[0]!,
      );
      return { broadcastRead: row.broadcast_read, broadcastWrite: row.broadcast_write, presenceRead: row.presence_read, presenceWrite: row.presence_write };
    },
    presenceState: async (subTopic: string, isPrivate: boolean): Promise<unknown> => {
      const { rows } = await adminPool.query<{ state: unknown }>('select realtime.presence_state($1, $2) as state', [subTopic, isPrivate]);
      return rows[0]!.state;
    },
    track: async (socket: string, channel: string, subTopic: string, isPrivate: boolean, key: string, meta: unknown): Promise<void> => {
      await adminPool.query('select realtime.track($1, $2, $3, $4, $5, $6, $7::jsonb)', [nodeId, socket, channel, subTopic, isPrivate, key, JSON.stringify(meta)]);
    },
    untrack: async (channel: string): Promise<void> => {
      await adminPool.query('select realtime.untrack($1, $2)', [nodeId, channel]);
    },
    /** A channel's rows (its presence and subscriptions), or with no channel the whole socket's. */
    release: async (socket: string, channel: string | null): Promise<void> => {
      await adminPool.query('select realtime.release($1, $2, $3)', [nodeId, socket, channel]);
    },
  };
}
