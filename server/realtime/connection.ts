// One WebSocket: the Phoenix channel protocol as Supabase Realtime serves it.
// This module reads frames, keeps the socket's channels and limits, and hands
// each event to its module: join.ts, broadcast.ts, presence.ts (row changes
// are routed by changes.ts). Messages on a topic are handled in arrival order
// (a broadcast sent right after a join waits for the join); heartbeats are
// answered at once. Every decision about rows and policies is an SQL call,
// all of them in store.ts (sql/0016_realtime.sql).
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type WebSocket from 'ws';
import type { Claims } from '../keys.ts';
import { broadcast } from './broadcast.ts';
import type { Channel, Sink } from './hub.ts';
import { channelAccess, join, Refusal, roleOf } from './join.ts';
import { presence } from './presence.ts';
import { decodeBinary, decodeText, encode, ProtocolError, reply, type Frame, type Message, type Vsn } from './protocol.ts';
import type { ChannelSocket, RealtimeContext } from './socket.ts';
import { metrics } from '../telemetry/metrics.ts';

export type { Limits, RealtimeContext } from './socket.ts';

const TEXT = { binary: false, compress: false, fin: true } as const;
const BINARY = { binary: true, compress: false, fin: true } as const;
const MAX_TIMER_MS = 2 ** 31 - 1;
// Counted per frame for /metrics: the labelled children, made once.
const messagesIn = metrics.realtimeMessages.labels({ direction: 'in' });
const messagesOut = metrics.realtimeMessages.labels({ direction: 'out' });

export class Connection implements Sink, ChannelSocket {
  readonly id = randomUUID();
  readonly vsn: Vsn;
  lastSeen = Date.now();
  private readonly ws: WebSocket;
  readonly ctx: RealtimeContext;
  private readonly log: Logger;
  /** The socket's own token and claims (a join may bring its own). */
  token: string;
  claims: Claims;
  /** Joined channels by topic. */
  readonly channels = new Map<string, Channel>();
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
    messagesOut.inc();
  }

  push(m: Message): void {
    this.send(encode(this.vsn, m));
  }

  isClosed(): boolean {
    return this.closed;
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.ws.close(code, reason);
    setTimeout(() => this.ws.terminate(), 2000).unref();
    this.cleanup();
  }

  private receive(data: Buffer, isBinary: boolean): void {
    this.lastSeen = Date.now();
    messagesIn.inc();
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
        return this.enqueue(message, () => join(this, message));
      case 'phx_leave':
        return this.enqueue(message, () => this.leave(message));
      case 'broadcast':
        if (!this.channels.has(message.topic) && !this.queues.has(message.topic)) return this.unmatched(message);
        // A joined channel with nothing before it: deliver now, without a turn of the queue.
        if (!this.queues.has(message.topic)) return broadcast(this, message, binaryPush);
        return this.enqueue(message, async () => broadcast(this, message, binaryPush));
      case 'presence':
      case 'presence_diff':
        return this.enqueue(message, () => presence(this, message));
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

  unmatched(m: Message): void {
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

  // ---- channels -----------------------------------------------------------

  /** A system message on a channel (postgres_changes status, token expiry). */
  system(channel: Channel, extension: string, status: 'ok' | 'error', message: string): void {
    this.push({ join_ref: channel.joinRef, ref: null, topic: channel.topic, event: 'system', payload: { extension, status, message, channel: channel.subTopic } });
  }

  /** Ends the channel when its token expires. */
  armExpiry(channel: Channel): void {
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

  async closeChannel(channel: Channel, leave: Message | undefined): Promise<void> {
    if (this.channels.get(channel.topic) === channel) this.channels.delete(channel.topic);
    this.ctx.hub.remove(channel);
    if (channel.expiry) clearTimeout(channel.expiry);
    if (leave) this.push(reply(leave, 'ok'));
    this.push({ join_ref: channel.joinRef, ref: channel.joinRef, topic: channel.topic, event: 'phx_close', payload: {} });
    await this.release(channel);
  }

  /** The channel's rows in SQL (its presence and its subscriptions), or with no channel the whole socket's. */
  async release(channel?: Channel): Promise<void> {
    await this.ctx.store
      .release(this.id, channel?.key ?? null)
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

  // ---- access_token ------------------------------------------------------

  private async accessToken(m: Message): Promise<void> {
    const channel = this.channels.get(m.topic);
    if (!channel) return this.unmatched(m);
    const given = (m.payload as { access_token?: unknown })?.access_token;
    if (typeof given !== 'string' || given === channel.token || given.startsWith('sb_')) {
      this.push(reply(m, 'ok'));
      return;
    }
    const verdict = await this.ctx.verify(given);
    if (!verdict.ok) {
      this.push(reply(m, 'error', { reason: 'unauthorized', message: verdict.reason === 'expired' ? 'Token has expired' : 'Invalid token' }));
      await this.shutdownChannel(channel, verdict.reason === 'expired' ? 'Token has expired' : 'Invalid token');
      return;
    }
    const claims = verdict.claims;
    const role = roleOf(claims);
    try {
      if (channel.private) {
        const access = await channelAccess(this, channel.subTopic, role, claims);
        if (!access.broadcastRead && !access.presenceRead) {
          this.push(reply(m, 'error', { reason: 'private_unauthorized', message: 'the new token may not read this channel' }));
          await this.shutdownChannel(channel, `You no longer have permission to read from this Channel topic: ${channel.subTopic}`);
          return;
        }
        channel.access = access;
      }
      if (channel.bindings.length > 0) {
        await this.ctx.store.updateClaims(channel.key, claims);
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
