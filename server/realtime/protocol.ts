// The Phoenix wire protocol as Supabase Realtime speaks it, in both versions
// supabase-js can connect with:
//   vsn 1.0.0  text frames, JSON objects {topic, event, payload, ref, join_ref}
//   vsn 2.0.0  text frames, JSON arrays [join_ref, ref, topic, event, payload],
//              plus binary frames for user broadcasts:
//                client -> server  kind 3 (user broadcast push)
//                server -> client  kind 4 (user broadcast)
// A decoded client frame is a Message; server frames are built once per
// version and shared by every subscriber they go to.

export type Vsn = '1.0.0' | '2.0.0';
export const VSNS: readonly Vsn[] = ['1.0.0', '2.0.0'];

export type Message = {
  join_ref: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: unknown;
};

/** A user broadcast's payload: JSON (kept as text so it is parsed at most once) or raw bytes. */
export type UserPayload = { encoding: 'json'; json: Buffer } | { encoding: 'binary'; bytes: Buffer };

/** A client's binary user broadcast (vsn 2.0.0, kind 3). */
export type BinaryBroadcastPush = {
  join_ref: string | null;
  ref: string | null;
  topic: string;
  userEvent: string;
  payload: UserPayload;
};

export class ProtocolError extends Error {}

const USER_BROADCAST_PUSH = 3;
const USER_BROADCAST = 4;

/** Decodes a text frame; throws ProtocolError when it is not a message of this version. */
export function decodeText(vsn: Vsn, text: string): Message {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ProtocolError('frame is not valid JSON');
  }
  if (vsn === '2.0.0') {
    if (!Array.isArray(parsed) || parsed.length < 5) throw new ProtocolError('expected a [join_ref, ref, topic, event, payload] array (vsn 2.0.0)');
    const [joinRef, ref, topic, event, payload] = parsed as unknown[];
    return checked({ join_ref: refOf(joinRef), ref: refOf(ref), topic, event, payload });
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ProtocolError('expected a {topic, event, payload, ref} object (vsn 1.0.0)');
  const o = parsed as Record<string, unknown>;
  return checked({ join_ref: refOf(o.join_ref), ref: refOf(o.ref), topic: o.topic, event: o.event, payload: o.payload });
}

function refOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw new ProtocolError('ref and join_ref must be strings');
}

function checked(m: { join_ref: string | null; ref: string | null; topic: unknown; event: unknown; payload: unknown }): Message {
  if (typeof m.topic !== 'string' || typeof m.event !== 'string') throw new ProtocolError('topic and event must be strings');
  return { join_ref: m.join_ref, ref: m.ref, topic: m.topic, event: m.event, payload: m.payload ?? {} };
}

/** Decodes a binary frame (vsn 2.0.0 only): a user broadcast push. */
export function decodeBinary(data: Buffer): BinaryBroadcastPush {
  if (data.length < 7 || data[0] !== USER_BROADCAST_PUSH) throw new ProtocolError('unsupported binary frame (only user broadcast pushes, kind 3)');
  const joinRefLen = data[1]!;
  const refLen = data[2]!;
  const topicLen = data[3]!;
  const eventLen = data[4]!;
  const metaLen = data[5]!;
  const encoding = data[6]!;
  let offset = 7;
  const take = (n: number) => {
    if (offset + n > data.length) throw new ProtocolError('binary frame is shorter than its header says');
    const s = data.toString('utf8', offset, offset + n);
    offset += n;
    return s;
  };
  const joinRef = take(joinRefLen);
  const ref = take(refLen);
  const topic = take(topicLen);
  const userEvent = take(eventLen);
  take(metaLen); // client metadata: none is allowed through (realtime-js sends none by default)
  const body = data.subarray(offset);
  return {
    join_ref: joinRef || null,
    ref: ref || null,
    topic,
    userEvent,
    payload: encoding === 0 ? { encoding: 'binary', bytes: body } : { encoding: 'json', json: body },
  };
}

/** A server frame ready to send: the bytes and whether they go as text or binary. */
export type Frame = { data: Buffer; binary: boolean };

export function encode(vsn: Vsn, m: Message): Frame {
  const text =
    vsn === '2.0.0'
      ? JSON.stringify([m.join_ref, m.ref, m.topic, m.event, m.payload])
      : JSON.stringify({ topic: m.topic, event: m.event, payload: m.payload, ref: m.ref, join_ref: m.join_ref });
  return { data: Buffer.from(text), binary: false };
}

/**
 * A user broadcast for one version: vsn 2.0.0 gets the binary kind-4 frame
 * (the payload bytes pass through untouched); vsn 1.0.0 gets
 * {type: broadcast, event, payload} as JSON, or nothing for a binary payload,
 * which JSON frames cannot carry (as on Supabase).
 */
export function encodeUserBroadcast(vsn: Vsn, topic: string, userEvent: string, payload: UserPayload, parsed: () => unknown): Frame | undefined {
  if (vsn === '2.0.0') {
    const topicBytes = Buffer.from(topic);
    const eventBytes = Buffer.from(userEvent);
    if (topicBytes.length <= 255 && eventBytes.length <= 255) {
      const body = payload.encoding === 'json' ? payload.json : payload.bytes;
      const header = Buffer.allocUnsafe(5);
      header[0] = USER_BROADCAST;
      header[1] = topicBytes.length;
      header[2] = eventBytes.length;
      header[3] = 0; // metadata length
      header[4] = payload.encoding === 'json' ? 1 : 0;
      return { data: Buffer.concat([header, topicBytes, eventBytes, body]), binary: true };
    }
  }
  if (payload.encoding === 'binary') return undefined;
  return encode(vsn, { join_ref: null, ref: null, topic, event: 'broadcast', payload: { type: 'broadcast', event: userEvent, payload: parsed() } });
}

export function reply(m: Message, status: 'ok' | 'error', response: Record<string, unknown> = {}): Message {
  return { join_ref: m.join_ref, ref: m.ref, topic: m.topic, event: 'phx_reply', payload: { status, response } };
}
