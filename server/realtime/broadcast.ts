// A broadcast from a socket (JSON, or a vsn 2.0.0 binary frame): checked
// against the channel's write access, then published here and to the other
// processes (the bus); acknowledged when the channel asked for acks.
import type { ChannelSocket } from './socket.ts';
import { reply, type decodeBinary, type Message, type UserPayload } from './protocol.ts';

export function broadcast(conn: ChannelSocket, m: Message, binary: ReturnType<typeof decodeBinary> | undefined): void {
  const channel = conn.channels.get(m.topic);
  if (!channel) return conn.unmatched(m);
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
        return conn.push(reply(m, 'error', { reason: 'invalid_payload', message: 'the broadcast payload is not valid JSON' }));
      }
    }
  } else {
    const p = m.payload as { event?: unknown; payload?: unknown };
    if (!p || typeof p !== 'object' || typeof p.event !== 'string') {
      return conn.push(reply(m, 'error', { reason: 'invalid_payload', message: 'a broadcast is {type: "broadcast", event, payload}' }));
    }
    userEvent = p.event;
    parsed = p.payload ?? {};
    payload = { encoding: 'json', json: Buffer.from(JSON.stringify(parsed)) };
  }
  if (channel.private && !channel.access.broadcastWrite) {
    return conn.push(reply(m, 'error', { reason: 'private_unauthorized', message: `no policy on realtime.messages lets this token send to ${channel.subTopic}` }));
  }
  conn.ctx.publish({ subTopic: channel.subTopic, private: channel.private, userEvent, payload, origin: conn }, () => parsed);
  if (channel.ack) conn.push(reply(m, 'ok'));
}
