// phx_join: the join payload checked, the token (the socket's, or the join's
// own access_token) verified, private channels checked against
// realtime.messages policies, postgres_changes subscribed in SQL; then the
// reply with the subscription ids, the presence state and a system notice.
import { randomUUID } from 'node:crypto';
import type { Claims } from '../keys.ts';
import type { ChannelSocket } from './socket.ts';
import { PUBLIC_ACCESS, type Channel } from './hub.ts';
import { sendPresenceState } from './presence.ts';
import { reply, type Message } from './protocol.ts';
import type { ChangeRequest } from './store.ts';

/** The spec's join-error reasons (part 7), plus the limits'. */
export type Reason = 'unauthorized' | 'unmatched_topic' | 'invalid_join_payload' | 'private_unauthorized' | 'pg_publication_missing' | 'too_many_channels' | 'rate_limited' | 'payload_too_large' | 'invalid_message' | 'invalid_payload' | 'internal';

/** A join or token refused for a reason the client is told. */
export class Refusal extends Error {
  readonly reason: Reason;
  constructor(reason: Reason, message: string) {
    super(message);
    this.reason = reason;
  }
}

const EVENTS = new Set(['*', 'INSERT', 'UPDATE', 'DELETE']);

type JoinConfig = {
  self: boolean;
  ack: boolean;
  presenceKey: string;
  presenceEnabled: boolean;
  isPrivate: boolean;
  postgresChanges: ChangeRequest[];
  accessToken: string | undefined;
};

export function roleOf(claims: Claims): string {
  return typeof claims.role === 'string' && claims.role ? claims.role : 'anon';
}

export async function join(conn: ChannelSocket, m: Message): Promise<void> {
  if (conn.isClosed()) return;
  const existing = conn.channels.get(m.topic);
  // Phoenix: a second join of the same topic replaces the first.
  if (existing) await conn.closeChannel(existing, undefined);
  try {
    const { channel, notice } = await openChannel(conn, m);
    if (conn.isClosed()) {
      await conn.release(channel);
      return;
    }
    conn.channels.set(m.topic, channel);
    conn.ctx.hub.add(channel);
    const config = (m.payload as { config?: { postgres_changes?: Array<Record<string, unknown>> } }).config;
    const requested = Array.isArray(config?.postgres_changes) ? config.postgres_changes : [];
    const placeholder = channel.bindings.length === 0;
    conn.push(reply(m, 'ok', {
      postgres_changes: requested.map((r, i) => ({ id: placeholder ? -(i + 1) : channel.bindings[i]!.id, event: r.event, schema: r.schema, table: r.table, filter: r.filter })),
    }));
    if (channel.presenceEnabled) await sendPresenceState(conn, channel);
    if (notice) conn.system(channel, 'postgres_changes', notice.ok ? 'ok' : 'error', notice.message);
    conn.armExpiry(channel);
  } catch (err) {
    if (!(err instanceof Refusal)) throw err;
    if (err.reason === 'pg_publication_missing') {
      conn.push({ join_ref: m.ref, ref: null, topic: m.topic, event: 'system', payload: { extension: 'postgres_changes', status: 'error', message: err.message, channel: m.topic.replace(/^realtime:/, '') } });
    }
    conn.push(reply(m, 'error', { reason: err.reason, message: err.message }));
  }
}

/** The channel a join asks for, and what to say after the reply about its postgres_changes. */
async function openChannel(conn: ChannelSocket, m: Message): Promise<{ channel: Channel; notice: { ok: boolean; message: string } | undefined }> {
  let notice: { ok: boolean; message: string } | undefined;
  if (!m.topic.startsWith('realtime:') || m.topic.length <= 'realtime:'.length) throw new Refusal('unmatched_topic', 'topics are realtime:<name>');
  if (Buffer.byteLength(m.topic) > 255) throw new Refusal('invalid_join_payload', 'topic is longer than 255 bytes');
  const config = parseJoin(m.payload);
  if (typeof config === 'string') throw new Refusal('invalid_join_payload', config);
  const { maxChannels } = conn.ctx.limits;
  if (conn.channels.size >= maxChannels) throw new Refusal('too_many_channels', `a socket may join at most ${maxChannels} channels`);
  const { token, claims } = await tokenFor(conn, config.accessToken);
  const role = roleOf(claims);
  const subTopic = m.topic.slice('realtime:'.length);
  const channel: Channel = {
    key: `${conn.id}/${m.ref ?? m.join_ref ?? randomUUID()}`,
    sink: conn,
    topic: m.topic,
    subTopic,
    private: config.isPrivate,
    joinRef: m.ref ?? m.join_ref ?? '',
    self: config.self,
    ack: config.ack,
    presenceKey: config.presenceKey || randomUUID(),
    presenceEnabled: config.presenceEnabled,
    access: PUBLIC_ACCESS,
    bindings: [],
    claims,
    role,
    token,
    expiry: undefined,
  };
  if (config.isPrivate) {
    channel.access = await channelAccess(conn, subTopic, role, claims);
    if (!channel.access.broadcastRead && !channel.access.presenceRead) {
      throw new Refusal('private_unauthorized', `no policy on realtime.messages lets this token read from ${subTopic}`);
    }
  }
  if (config.postgresChanges.length > 0) {
    try {
      const ids = await conn.ctx.store.subscribe(conn.id, channel.key, claims, config.postgresChanges);
      channel.bindings = ids.map((id, i) => {
        const b = config.postgresChanges[i]!;
        return { id, event: b.event, schema: b.schema, table: b.table && b.table !== '*' ? b.table : null, filter: b.filter ?? null };
      });
      notice = { ok: true, message: 'Subscribed to PostgreSQL' };
    } catch (err) {
      const e = err as { hint?: string; message: string };
      if (e.hint === 'pg_publication_missing') throw new Refusal('pg_publication_missing', e.message);
      if (e.hint !== 'invalid_subscription') throw err;
      // As Supabase: the channel stays joined and says why no changes will come.
      notice = { ok: false, message: `Unable to subscribe to changes with given parameters: ${e.message}` };
    }
  }
  return { channel, notice };
}

/** The join's own token if it sent one, verified; else the socket's. */
async function tokenFor(conn: ChannelSocket, given: string | undefined): Promise<{ token: string; claims: Claims }> {
  // Publishable "sb_" keys are not JWTs; supabase-js may send one: the socket's token stands.
  if (given === undefined || given === conn.token || given.startsWith('sb_')) return { token: conn.token, claims: conn.claims };
  const verdict = await conn.ctx.verify(given);
  if (!verdict.ok) throw new Refusal('unauthorized', verdict.reason === 'expired' ? 'Token has expired' : 'Invalid token');
  return { token: given, claims: verdict.claims };
}

/** Private-channel access as the token's role; a role this server cannot become is refused. */
export async function channelAccess(conn: ChannelSocket, subTopic: string, role: string, claims: Claims) {
  try {
    return await conn.ctx.store.channelAccess(subTopic, role, claims);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === '22023' || code === '42704' || code === '42501') throw new Refusal('unauthorized', `role ${JSON.stringify(role)} cannot use realtime`);
    throw err;
  }
}

/** The join payload's config, or why it is not one. */
function parseJoin(payload: unknown): JoinConfig | string {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return 'the join payload must be an object';
  const p = payload as Record<string, unknown>;
  const config = (p.config ?? {}) as Record<string, unknown>;
  if (typeof config !== 'object' || Array.isArray(config) || config === null) return 'config must be an object';
  const broadcast = (config.broadcast ?? {}) as Record<string, unknown>;
  const presence = (config.presence ?? {}) as Record<string, unknown>;
  if (typeof broadcast !== 'object' || broadcast === null || Array.isArray(broadcast)) return 'config.broadcast must be an object';
  if (typeof presence !== 'object' || presence === null || Array.isArray(presence)) return 'config.presence must be an object';
  for (const [name, value] of [['broadcast.self', broadcast.self], ['broadcast.ack', broadcast.ack], ['presence.enabled', presence.enabled], ['private', config.private]] as const) {
    if (value !== undefined && value !== null && typeof value !== 'boolean') return `config.${name} must be a boolean`;
  }
  if (presence.key !== undefined && presence.key !== null && typeof presence.key !== 'string') return 'config.presence.key must be a string';
  const changes = config.postgres_changes ?? [];
  if (!Array.isArray(changes)) return 'config.postgres_changes must be an array';
  const postgresChanges: ChangeRequest[] = [];
  for (const [i, c] of changes.entries()) {
    if (!c || typeof c !== 'object') return `config.postgres_changes[${i}] must be an object`;
    const { event, schema, table, filter } = c as Record<string, unknown>;
    if (typeof event !== 'string' || !EVENTS.has(event.toUpperCase())) return `config.postgres_changes[${i}].event must be INSERT, UPDATE, DELETE or *`;
    if (typeof schema !== 'string' || !schema) return `config.postgres_changes[${i}].schema is required`;
    if (table !== undefined && table !== null && typeof table !== 'string') return `config.postgres_changes[${i}].table must be a string`;
    if (filter !== undefined && filter !== null && typeof filter !== 'string') return `config.postgres_changes[${i}].filter must be a string`;
    postgresChanges.push({ event, schema, ...(typeof table === 'string' ? { table } : {}), ...(typeof filter === 'string' && filter ? { filter } : {}) });
  }
  const accessToken = p.access_token ?? p.user_token;
  if (accessToken !== undefined && accessToken !== null && typeof accessToken !== 'string') return 'access_token must be a string';
  return {
    self: broadcast.self === true,
    ack: broadcast.ack === true,
    presenceKey: typeof presence.key === 'string' ? presence.key : '',
    // Clients that predate presence.enabled get the state as before.
    presenceEnabled: presence.enabled === true || (presence.enabled === undefined && config.presence !== undefined),
    isPrivate: config.private === true,
    postgresChanges,
    accessToken: typeof accessToken === 'string' ? accessToken : undefined,
  };
}
