// The channels joined on this process, by topic, and the fan-out to them.
// A frame is encoded once per protocol version and the same bytes are
// written to every subscriber's socket.
import { encode, encodeUserBroadcast, type Frame, type UserPayload, type Vsn } from './protocol.ts';

export type Access = { broadcastRead: boolean; broadcastWrite: boolean; presenceRead: boolean; presenceWrite: boolean };
export const PUBLIC_ACCESS: Access = { broadcastRead: true, broadcastWrite: true, presenceRead: true, presenceWrite: true };

/** What the hub needs of a socket. */
export type Sink = { readonly id: string; readonly vsn: Vsn; send(frame: Frame): void };

export type Binding = { id: number; event: string; schema: string; table: string | null; filter: string | null };

export type Channel = {
  /** `${socket id}/${join_ref}`: the channel's name in realtime.subscription. */
  readonly key: string;
  readonly sink: Sink;
  readonly topic: string;
  readonly subTopic: string;
  readonly private: boolean;
  readonly joinRef: string;
  readonly self: boolean;
  readonly ack: boolean;
  presenceKey: string;
  presenceEnabled: boolean;
  access: Access;
  bindings: Binding[];
  claims: Record<string, unknown>;
  role: string;
  token: string;
  expiry: NodeJS.Timeout | undefined;
};

export type Broadcast = { subTopic: string; private: boolean; userEvent: string; payload: UserPayload; origin?: Sink };

/** A routed change for one subscriber role: see realtime.route_changes. */
export type RoutedChange = {
  change: { schema: string; table: string; type: string; commit_timestamp: string };
  subscription_ids: string[];
  record: Record<string, unknown> | null;
  old_record: Record<string, unknown> | null;
  columns: Array<{ name: string; type: string }>;
};

const topicKey = (subTopic: string, isPrivate: boolean) => (isPrivate ? 'p:' : 'o:') + subTopic;

export class Hub {
  private readonly topics = new Map<string, Set<Channel>>();
  private readonly bySubscription = new Map<number, Channel>();
  /** "schema.table" or "schema.*" -> how many local bindings: changes for anything else are dropped unrouted. */
  private readonly watched = new Map<string, number>();

  add(channel: Channel): void {
    const key = topicKey(channel.subTopic, channel.private);
    let set = this.topics.get(key);
    if (!set) this.topics.set(key, (set = new Set()));
    set.add(channel);
    for (const b of channel.bindings) {
      this.bySubscription.set(b.id, channel);
      const w = `${b.schema}.${b.table ?? '*'}`;
      this.watched.set(w, (this.watched.get(w) ?? 0) + 1);
    }
  }

  remove(channel: Channel): void {
    const key = topicKey(channel.subTopic, channel.private);
    const set = this.topics.get(key);
    if (set?.delete(channel) && set.size === 0) this.topics.delete(key);
    for (const b of channel.bindings) {
      if (this.bySubscription.get(b.id) !== channel) continue;
      this.bySubscription.delete(b.id);
      const w = `${b.schema}.${b.table ?? '*'}`;
      const n = (this.watched.get(w) ?? 1) - 1;
      if (n <= 0) this.watched.delete(w);
      else this.watched.set(w, n);
    }
  }

  /** Whether any channel here listens to changes of this table. */
  watches(schema: string, table: string): boolean {
    return this.watched.has(`${schema}.${table}`) || this.watched.has(`${schema}.*`);
  }

  broadcast(b: Broadcast): void {
    const set = this.topics.get(topicKey(b.subTopic, b.private));
    if (!set) return;
    const topic = `realtime:${b.subTopic}`;
    const frames: Partial<Record<Vsn, Frame | null>> = {};
    let parsed: unknown;
    const parse = () => (parsed ??= b.payload.encoding === 'json' ? JSON.parse(b.payload.json.toString('utf8')) : null);
    for (const channel of set) {
      if (!channel.access.broadcastRead) continue;
      if (channel.sink === b.origin && !channel.self) continue;
      const vsn = channel.sink.vsn;
      let frame = frames[vsn];
      if (frame === undefined) frame = frames[vsn] = encodeUserBroadcast(vsn, topic, b.userEvent, b.payload, parse) ?? null;
      if (frame) channel.sink.send(frame);
    }
  }

  presenceDiff(subTopic: string, isPrivate: boolean, diff: { joins: unknown; leaves: unknown }): void {
    const set = this.topics.get(topicKey(subTopic, isPrivate));
    if (!set) return;
    const frames: Partial<Record<Vsn, Frame>> = {};
    for (const channel of set) {
      if (!channel.presenceEnabled || !channel.access.presenceRead) continue;
      const vsn = channel.sink.vsn;
      const frame = (frames[vsn] ??= encode(vsn, { join_ref: null, ref: null, topic: `realtime:${subTopic}`, event: 'presence_diff', payload: diff }));
      channel.sink.send(frame);
    }
  }

  /**
   * Routed changes to their channels: one postgres_changes frame per channel,
   * naming in `ids` that channel's bindings the change matched. The data
   * carries Supabase's wire fields (type, record, old_record, columns) that
   * supabase-js reads, and the spec's (eventType, new, old).
   */
  changes(routed: RoutedChange[]): void {
    for (const r of routed) {
      const perChannel = new Map<Channel, number[]>();
      for (const raw of r.subscription_ids) {
        const id = Number(raw);
        const channel = this.bySubscription.get(id);
        if (!channel) continue;
        const ids = perChannel.get(channel);
        if (ids) ids.push(id);
        else perChannel.set(channel, [id]);
      }
      if (perChannel.size === 0) continue;
      const { schema, table, type, commit_timestamp } = r.change;
      const data = {
        schema, table, commit_timestamp, type, eventType: type,
        columns: r.columns,
        ...(r.record ? { record: r.record } : {}),
        ...(r.old_record ? { old_record: r.old_record } : {}),
        new: r.record ?? {},
        old: r.old_record ?? {},
        errors: null,
      };
      for (const [channel, ids] of perChannel) {
        channel.sink.send(encode(channel.sink.vsn, { join_ref: null, ref: null, topic: channel.topic, event: 'postgres_changes', payload: { ids, data } }));
      }
    }
  }
}
