// One WebSocket: the Phoenix channel protocol as Supabase Realtime serves it.
// Messages on a topic are handled in arrival order (a broadcast sent right
// after a join waits for the join); heartbeats are answered at once. Every
// decision about rows and policies is an SQL call (sql/0016_realtime.sql).
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import type WebSocket from 'ws';
import { asRole } from '../../db/as-role.ts';
import { verifyToken, type Claims } from '../keys.ts';
import { PUBLIC_ACCESS, type Access, type Broadcast, type Channel, type Hub, type Sink } from './hub.ts';
import { decodeBinary, decodeText, encode, ProtocolError, reply, type Frame, type Message, type UserPayload, type Vsn } from './protocol.ts';

export type Limits = {
  maxChannels: number;
  maxPayloadBytes: number;
  maxEventsPerSecond: number;
  maxQueuedBytes: number;
};

export type RealtimeContext = {
  hub: Hub;
  /** Delivers a broadcast here and relays it to the other processes. */
  publish: (b: Broadcast, parsed: () => unknown) => void;
  adminPool: pg.Pool;
  requestPool: pg.Pool;
  nodeId: string;
  jwtSecret: string;
  limits: Limits;
  log: Logger;
};

/** The spec's join-error reasons (part 7), plus the limits'. */
type Reason = 'unauthorized' | 'unmatched_topic' | 'invalid_join_payload' | 'private_unauthorized' | 'pg_publication_missing' | 'too_many_channels' | 'rate_limited' | 'payload_too_large' | 'invalid_message' | 'invalid_payload' | 'internal';

class Refusal extends Error {
  readonly reason: Reason;
  constructor(reason: Reason, message: string) {
    super(message);
    this.reason = reason;
  }
}

const TEXT = { binary: false, compress: false, fin: true } as const;
const BINARY = { binary: true, compress: false, fin: true } as const;
const MAX_TIMER_MS = 2 ** 31 - 1;
const EVENTS = new Set(['*', 'INSERT', 'UPDATE', 'DELETE']);

type JoinConfig = {
  self: boolean;
  ack: boolean;
  presenceKey: string;
  presenceEnabled: boolean;
  isPrivate: boolean;
  postgresChanges: Array<{ event: string; schema: string; table?: string; filter?: string }>;
  accessToken: string | undefined;
};

export class Connection implements Sink {
  readonly id = randomUUID();
  readonly vsn: Vsn;
  lastSeen = Date.now();
  private readonly ws: WebSocket;
  private readonly ctx: RealtimeContext;
  private readonly log: Logger;
  private token: string;
  private claims: Claims;
  private readonly channels = new Map<string, Channel>();
  private readonly queues = new Map<string, Promise<void>>();
  private windowStart = 0;
  private windowCount = 0;
  private closed = false;

  constructor(ctx: RealtimeContext, ws: WebSocket, vsn: Vsn, token: string, claims: Claims, log: Logger) {
    this.ctx = ctx;
    this.ws = ws;
    this.vsn = vsn;
    this.token = token;
    this.claims = claims;
    this.log = log.child({ socket: this.id });
    ws.on('message', (data, isBinary) => this.receive(data as Buffer, isBinary));
    ws.on('close', () => this.cleanup());
    ws.on('error', (err) => this.log.debug({ error: err.message }, 'socket error'));
  }

  send(frame: Frame): void {
    if (this.closed) return;
    // The bounded queue: a client that does not read is cut off rather than
    // buffered without end, and never slows anyone else (writes never wait).
    if (this.ws.bufferedAmount + frame.data.length > this.ctx.limits.maxQueuedBytes) {
      this.log.warn({ queued: this.ws.bufferedAmount }, 'disconnecting a slow realtime client: its send queue is full');
      this.ws.terminate();
      this.cleanup();
      return;
    }
    this.ws.send(frame.data, frame.binary ? BINARY : TEXT);
  }

  private push(m: Message): void {
    this.send(encode(this.vsn, m));
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.ws.close(code, reason);
    setTimeout(() => this.ws.terminate(), 2000).unref();
    this.cleanup();
  }

  private receive(data: Buffer, isBinary: boolean): void {
    this.lastSeen = Date.now();
    let m: Message | undefined;
    let binaryPush: ReturnType<typeof decodeBinary> | undefined;
    try {
      if (isBinary) {
        if (this.vsn !== '2.0.0') throw new ProtocolError('binary frames need vsn 2.0.0');
        binaryPush = decodeBinary(data);
        m = { join_ref: binaryPush.join_ref, ref: binaryPush.ref, topic: binaryPush.topic, event: 'broadcast', payload: null };
      } else {
        m = decodeText(this.vsn, data.toString('utf8'));
      }
    } catch (err) {
      this.push({ join_ref: null, ref: null, topic: 'phoenix', event: 'phx_reply', payload: { status: 'error', response: { reason: 'invalid_message', message: (err as Error).message } } });
      return;
    }
    if (m.topic === 'phoenix' && m.event === 'heartbeat') {
      this.push(reply(m, 'ok'));
      return;
    }
    if (!this.withinRate()) {
      this.push(reply(m, 'error', { reason: 'rate_limited', message: `more than ${this.ctx.limits.maxEventsPerSecond} messages per second on this socket` }));
      return;
    }
    if (data.length > this.ctx.limits.maxPayloadBytes) {
      this.push(reply(m, 'error', { reason: 'payload_too_large', message: `messages are limited to ${this.ctx.limits.maxPayloadBytes} bytes` }));
      return;
    }
    const message = m;
    switch (message.event) {
      case 'phx_join':
        return this.enqueue(message, () => this.join(message));
      case 'phx_leave':
        return this.enqueue(message, () => this.leave(message));
      case 'broadcast':
        if (!this.channels.has(message.topic) && !this.queues.has(message.topic)) return this.unmatched(message);
        // A joined channel with nothing before it: deliver now, without a turn of the queue.
        if (!this.queues.has(message.topic)) return this.broadcast(message, binaryPush);
        return this.enqueue(message, async () => this.broadcast(message, binaryPush));
      case 'presence':
      case 'presence_diff':
        return this.enqueue(message, () => this.presence(message));
      case 'access_token':
        return this.enqueue(message, () => this.accessToken(message));
      case 'phx_close':
        return;
      default:
        if (!this.channels.has(message.topic)) return this.unmatched(message);
        this.push(reply(message, 'error', { reason: 'invalid_message', message: `unknown event ${JSON.stringify(message.event)}` }));
    }
  }

  private withinRate(): boolean {
    const now = Date.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.windowCount = 0;
    }
    return ++this.windowCount <= this.ctx.limits.maxEventsPerSecond;
  }

  private unmatched(m: Message): void {
    this.push(reply(m, 'error', { reason: 'unmatched_topic', message: `not joined to ${m.topic}` }));
  }

  /**
   * Handles m after everything already queued for its topic. A failure (the
   * database unreachable, ...) is logged and answered, so the client's push
   * does not wait for a reply that never comes.
   */
  private enqueue(m: Message, fn: () => Promise<void>): void {
    const topic = m.topic;
    const previous = this.queues.get(topic) ?? Promise.resolve();
    const next = previous.then(fn).catch((err: Error) => {
      this.log.error({ error: err.message, topic, event: m.event }, 'realtime message handling failed');
      this.push(reply(m, 'error', { reason: 'internal', message: 'the message could not be handled; retry shortly' }));
    });
    this.queues.set(topic, next);
    void next.then(() => {
      if (this.queues.get(topic) === next) this.queues.delete(topic);
    });
  }

  // ---- join -------------------------------------------------------------

  private async join(m: Message): Promise<void> {
    if (this.closed) return;
    const existing = this.channels.get(m.topic);
    if (existing) {
      // Phoenix: a second join of the same topic replaces the first.
      await this.closeChannel(existing, undefined);
    }
    try {
      const { channel, notice } = await this.openChannel(m);
      if (this.closed) {
        await this.release(channel);
        return;
      }
      this.channels.set(m.topic, channel);
      this.ctx.hub.add(channel);
      const bindings = channel.bindings;
      const config = (m.payload as { config?: { postgres_changes?: Array<Record<string, unknown>> } }).config;
      const requested = Array.isArray(config?.postgres_changes) ? config.postgres_changes : [];
      const placeholder = channel.bindings.length === 0;
      this.push(reply(m, 'ok', {
        postgres_changes: requested.map((r, i) => ({ id: placeholder ? -(i + 1) : bindings[i]!.id, event: r.event, schema: r.schema, table: r.table, filter: r.filter })),
      }));
      if (channel.presenceEnabled) await this.sendPresenceState(channel);
      if (notice) this.system(channel, 'postgres_changes', notice.ok ? 'ok' : 'error', notice.message);
      this.armExpiry(channel);
    } catch (err) {
      if (err instanceof Refusal) {
        if (err.reason === 'pg_publication_missing') {
          this.push({ join_ref: m.ref, ref: null, topic: m.topic, event: 'system', payload: { extension: 'postgres_changes', status: 'error', message: err.message, channel: m.topic.replace(/^realtime:/, '') } });
        }
        this.push(reply(m, 'error', { reason: err.reason, message: err.message }));
        return;
      }
      throw err;
    }
  }

  /** The channel a join asks for, and what to say after the reply about its postgres_changes. */
  private async openChannel(m: Message): Promise<{ channel: Channel; notice: { ok: boolean; message: string } | undefined }> {
    let notice: { ok: boolean; message: string } | undefined;
    if (!m.topic.startsWith('realtime:') || m.topic.length <= 'realtime:'.length) {
      throw new Refusal('unmatched_topic', 'topics are realtime:<name>');
    }
    if (Buffer.byteLength(m.topic) > 255) throw new Refusal('invalid_join_payload', 'topic is longer than 255 bytes');
    const config = parseJoin(m.payload);
    if (typeof config === 'string') throw new Refusal('invalid_join_payload', config);
    if (this.channels.size >= this.ctx.limits.maxChannels) {
      throw new Refusal('too_many_channels', `a socket may join at most ${this.ctx.limits.maxChannels} channels`);
    }
    const { token, claims } = await this.tokenFor(config.accessToken);
    const role = roleOf(claims);
    const subTopic = m.topic.slice('realtime:'.length);
    const channel: Channel = {
      key: `${this.id}/${m.ref ?? m.join_ref ?? randomUUID()}`,
      sink: this,
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
      channel.access = await this.channelAccess(subTopic, role, claims);
      if (!channel.access.broadcastRead && !channel.access.presenceRead) {
        throw new Refusal('private_unauthorized', `no policy on realtime.messages lets this token read from ${subTopic}`);
      }
    }
    if (config.postgresChanges.length > 0) {
      try {
        const { rows } = await this.ctx.adminPool.query<{ id: string }>('select realtime.subscribe($1, $2, $3, $4::jsonb, $5::jsonb) as id', [
          this.ctx.nodeId, this.id, channel.key, JSON.stringify(claims), JSON.stringify(config.postgresChanges),
        ]);
        channel.bindings = rows.map((r, i) => {
          const b = config.postgresChanges[i]!;
          return { id: Number(r.id), event: b.event, schema: b.schema, table: b.table && b.table !== '*' ? b.table : null, filter: b.filter ?? null };
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

  private async tokenFor(given: string | undefined): Promise<{ token: string; claims: Claims }> {
    // Publishable "sb_" keys are not JWTs; supabase-js may send one: the socket's token stands.
    if (given === undefined || given === this.token || given.startsWith('sb_')) return { token: this.token, claims: this.claims };
    const verdict = await verifyToken(this.ctx.jwtSecret, given);
    if (!verdict.ok) throw new Refusal('unauthorized', verdict.reason === 'expired' ? 'Token has expired' : 'Invalid token');
    return { token: given, claims: verdict.claims };
  }

  private async channelAccess(subTopic: string, role: string, claims: Claims): Promise<Access> {
    try {
      const row = await asRole(this.ctx.requestPool, { role, claims }, async (client) =>
        (await client.query<{ broadcast_read: boolean; broadcast_write: boolean; presence_read: boolean; presence_write: boolean }>('select * from realtime.channel_access($1)', [subTopic])).rows[0]!,
      );
      return { broadcastRead: row.broadcast_read, broadcastWrite: row.broadcast_write, presenceRead: row.presence_read, presenceWrite: row.presence_write };
    } catch (err) {
      const code = (err as { code?: string }).code;
      // The token names a role this server cannot become.
      if (code === '22023' || code === '42704' || code === '42501') throw new Refusal('unauthorized', `role ${JSON.stringify(role)} cannot use realtime`);
      throw err;
    }
  }

  private async sendPresenceState(channel: Channel): Promise<void> {
    if (!channel.access.presenceRead) return;
    const { rows } = await this.ctx.adminPool.query<{ state: unknown }>('select realtime.presence_state($1, $2) as state', [channel.subTopic, channel.private]);
    this.push({ join_ref: channel.joinRef, ref: null, topic: channel.topic, event: 'presence_state', payload: rows[0]!.state });
  }

  private system(channel: Channel, extension: string, status: 'ok' | 'error', message: string): void {
    this.push({ join_ref: channel.joinRef, ref: null, topic: channel.topic, event: 'system', payload: { extension, status, message, channel: channel.subTopic } });
  }

  private armExpiry(channel: Channel): void {
    if (channel.expiry) clearTimeout(channel.expiry);
    channel.expiry = undefined;
    const exp = channel.claims.exp;
    if (typeof exp !== 'number') return;
    const ms = Math.min(exp * 1000 - Date.now(), MAX_TIMER_MS);
    channel.expiry = setTimeout(() => {
      if (this.channels.get(channel.topic) !== channel) return;
      this.enqueue({ join_ref: channel.joinRef, ref: null, topic: channel.topic, event: 'expiry', payload: {} }, () => this.shutdownChannel(channel, 'Token has expired'));
    }, Math.max(ms, 0));
    channel.expiry.unref();
  }

  /** Ends a channel from the server side: a system error saying why, then phx_close. */
  private async shutdownChannel(channel: Channel, why: string): Promise<void> {
    this.system(channel, 'system', 'error', why);
    await this.closeChannel(channel, undefined);
  }

  private async closeChannel(channel: Channel, leave: Message | undefined): Promise<void> {
    if (this.channels.get(channel.topic) === channel) this.channels.delete(channel.topic);
    this.ctx.hub.remove(channel);
    if (channel.expiry) clearTimeout(channel.expiry);
    if (leave) this.push(reply(leave, 'ok'));
    this.push({ join_ref: channel.joinRef, ref: channel.joinRef, topic: channel.topic, event: 'phx_close', payload: {} });
    await this.release(channel);
  }

  /** The channel's rows in SQL (its presence and its subscriptions), or with no channel the whole socket's. */
  private async release(channel?: Channel): Promise<void> {
    await this.ctx.adminPool
      .query('select realtime.release($1, $2, $3)', [this.ctx.nodeId, this.id, channel?.key ?? null])
      .catch((err: Error) => this.log.warn({ error: err.message }, 'releasing realtime rows failed (the node reaper will)'));
  }

  private async leave(m: Message): Promise<void> {
    const channel = this.channels.get(m.topic);
    if (!channel) {
      // Leaving what is not joined is harmless, as in Phoenix.
      this.push(reply(m, 'ok'));
      return;
    }
    await this.closeChannel(channel, m);
  }

  // ---- broadcast and presence ----------------------------------------------

  private broadcast(m: Message, binary: ReturnType<typeof decodeBinary> | undefined): void {
    const channel = this.channels.get(m.topic);
    if (!channel) return this.unmatched(m);
    let userEvent: string;
    let payload: UserPayload;
    let parsed: unknown;
    if (binary) {
      userEvent = binary.userEvent;
      payload = binary.payload;
      if (payload.encoding === 'json') {
        try {
          parsed = JSON.parse(payload.json.toString('utf8'));
        } catch {
          this.push(reply(m, 'error', { reason: 'invalid_payload', message: 'the broadcast payload is not valid JSON' }));
          return;
        }
      }
    } else {
      const p = m.payload as { event?: unknown; payload?: unknown };
      if (!p || typeof p !== 'object' || typeof p.event !== 'string') {
        this.push(reply(m, 'error', { reason: 'invalid_payload', message: 'a broadcast is {type: "broadcast", event, payload}' }));
        return;
      }
      userEvent = p.event;
      parsed = p.payload ?? {};
      payload = { encoding: 'json', json: Buffer.from(JSON.stringify(parsed)) };
    }
    if (channel.private && !channel.access.broadcastWrite) {
      this.push(reply(m, 'error', { reason: 'private_unauthorized', message: `no policy on realtime.messages lets this token send to ${channel.subTopic}` }));
      return;
    }
    this.ctx.publish({ subTopic: channel.subTopic, private: channel.private, userEvent, payload, origin: this }, () => parsed);
    if (channel.ack) this.push(reply(m, 'ok'));
  }

  private async presence(m: Message): Promise<void> {
    const channel = this.channels.get(m.topic);
    if (!channel) return this.unmatched(m);
    // supabase-js sends {type: presence, event: track|untrack, payload}; the
    // spec also names {action: track|untrack, data} on presence_diff.
    const p = (m.payload ?? {}) as { event?: unknown; payload?: unknown; action?: unknown; data?: unknown };
    const action = m.event === 'presence_diff' ? p.action : p.event;
    const meta = m.event === 'presence_diff' ? p.data : p.payload;
    if (action !== 'track' && action !== 'untrack') {
      this.push(reply(m, 'error', { reason: 'invalid_payload', message: 'presence event must be track or untrack' }));
      return;
    }
    if (channel.private && !channel.access.presenceWrite) {
      this.push(reply(m, 'error', { reason: 'private_unauthorized', message: `no policy on realtime.messages lets this token track presence on ${channel.subTopic}` }));
      return;
    }
    if (action === 'untrack') {
      await this.ctx.adminPool.query('select realtime.untrack($1, $2)', [this.ctx.nodeId, channel.key]);
      this.push(reply(m, 'ok'));
      return;
    }
    if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) {
      this.push(reply(m, 'error', { reason: 'invalid_payload', message: 'presence track payload must be an object' }));
      return;
    }
    const enabling = !channel.presenceEnabled;
    channel.presenceEnabled = true;
    await this.ctx.adminPool.query('select realtime.track($1, $2, $3, $4, $5, $6, $7::jsonb)', [
      this.ctx.nodeId, this.id, channel.key, channel.subTopic, channel.private, channel.presenceKey, JSON.stringify(meta),
    ]);
    this.push(reply(m, 'ok'));
    // Tracking is what turned presence on: the state so far, as Supabase does.
    if (enabling) await this.sendPresenceState(channel);
  }

  // ---- access_token ------------------------------------------------------

  private async accessToken(m: Message): Promise<void> {
    const channel = this.channels.get(m.topic);
    if (!channel) return this.unmatched(m);
    const given = (m.payload as { access_token?: unknown })?.access_token;
    if (typeof given !== 'string' || given === channel.token || given.startsWith('sb_')) {
      this.push(reply(m, 'ok'));
      return;
    }
    const verdict = await verifyToken(this.ctx.jwtSecret, given);
    if (!verdict.ok) {
      this.push(reply(m, 'error', { reason: 'unauthorized', message: verdict.reason === 'expired' ? 'Token has expired' : 'Invalid token' }));
      await this.shutdownChannel(channel, verdict.reason === 'expired' ? 'Token has expired' : 'Invalid token');
      return;
    }
    const claims = verdict.claims;
    const role = roleOf(claims);
    try {
      if (channel.private) {
        const access = await this.channelAccess(channel.subTopic, role, claims);
        if (!access.broadcastRead && !access.presenceRead) {
          this.push(reply(m, 'error', { reason: 'private_unauthorized', message: 'the new token may not read this channel' }));
          await this.shutdownChannel(channel, `You no longer have permission to read from this Channel topic: ${channel.subTopic}`);
          return;
        }
        channel.access = access;
      }
      if (channel.bindings.length > 0) {
        await this.ctx.adminPool.query('select realtime.update_claims($1, $2, $3::jsonb)', [this.ctx.nodeId, channel.key, JSON.stringify(claims)]);
      }
    } catch (err) {
      if (err instanceof Refusal || (err as { hint?: string }).hint === 'invalid_subscription') {
        this.push(reply(m, 'error', { reason: 'unauthorized', message: (err as Error).message }));
        await this.shutdownChannel(channel, (err as Error).message);
        return;
      }
      throw err;
    }
    channel.claims = claims;
    channel.role = role;
    channel.token = given;
    this.armExpiry(channel);
    this.push(reply(m, 'ok'));
  }

  // ---- end -----------------------------------------------------------------

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    const channels = [...this.channels.values()];
    this.channels.clear();
    for (const channel of channels) {
      this.ctx.hub.remove(channel);
      if (channel.expiry) clearTimeout(channel.expiry);
    }
    if (channels.length > 0) void this.release();
  }
}

function roleOf(claims: Claims): string {
  return typeof claims.role === 'string' && claims.role ? claims.role : 'anon';
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
  const postgresChanges: JoinConfig['postgresChanges'] = [];
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
