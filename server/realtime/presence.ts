// Presence from a socket: track and untrack in SQL (realtime.presence, whose
// triggers send the diffs to every subscriber), and the state on join.
import type { ChannelSocket } from './socket.ts';
import type { Channel } from './hub.ts';
import { reply, type Message } from './protocol.ts';

/** The topic's presence state, to a channel that may read it. */
export async function sendPresenceState(conn: ChannelSocket, channel: Channel): Promise<void> {
  if (!channel.access.presenceRead) return;
  const state = await conn.ctx.store.presenceState(channel.subTopic, channel.private);
  conn.push({ join_ref: channel.joinRef, ref: null, topic: channel.topic, event: 'presence_state', payload: state });
}

/** supabase-js sends {type: presence, event: track|untrack, payload}; the spec also names {action: track|untrack, data} on presence_diff. */
export async function presence(conn: ChannelSocket, m: Message): Promise<void> {
  const channel = conn.channels.get(m.topic);
  if (!channel) return conn.unmatched(m);
  const p = (m.payload ?? {}) as { event?: unknown; payload?: unknown; action?: unknown; data?: unknown };
  const action = m.event === 'presence_diff' ? p.action : p.event;
  const meta = m.event === 'presence_diff' ? p.data : p.payload;
  if (action !== 'track' && action !== 'untrack') {
    return conn.push(reply(m, 'error', { reason: 'invalid_payload', message: 'presence event must be track or untrack' }));
  }
  if (channel.private && !channel.access.presenceWrite) {
    return conn.push(reply(m, 'error', { reason: 'private_unauthorized', message: `no policy on realtime.messages lets this token track presence on ${channel.subTopic}` }));
  }
  if (action === 'untrack') {
    await conn.ctx.store.untrack(channel.key);
    return conn.push(reply(m, 'ok'));
  }
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) {
    return conn.push(reply(m, 'error', { reason: 'invalid_payload', message: 'presence track payload must be an object' }));
  }
  const enabling = !channel.presenceEnabled;
  channel.presenceEnabled = true;
  await conn.ctx.store.track(conn.id, channel.key, channel.subTopic, channel.private, channel.presenceKey, meta);
  conn.push(reply(m, 'ok'));
  // Tracking is what turned presence on: the state so far, as Supabase does.
  if (enabling) await sendPresenceState(conn, channel);
}
