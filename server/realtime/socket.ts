// What a channel handler (join.ts, presence.ts, broadcast.ts) needs of the
// socket it serves: connection.ts implements it, and the handlers depend on
// this interface instead of importing the connection back.
import type { Logger } from 'pino';
import type { Claims, TokenVerifier } from '../keys.ts';
import type { Broadcast, Channel, Hub, Sink } from './hub.ts';
import type { Message } from './protocol.ts';
import type { RealtimeStore } from './store.ts';

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
  /** Every SQL call a socket makes. */
  store: RealtimeStore;
  nodeId: string;
  /** Verifies a token (the project's key set). */
  verify: TokenVerifier;
  limits: Limits;
  log: Logger;
};

/** A Sink too: the hub delivers to it. */
export interface ChannelSocket extends Sink {
  readonly id: string;
  readonly ctx: RealtimeContext;
  /** The socket's own token and claims (a join may bring its own). */
  token: string;
  claims: Claims;
  /** Joined channels by topic. */
  readonly channels: Map<string, Channel>;
  push(m: Message): void;
  isClosed(): boolean;
  /** Answers a message for a topic the socket has not joined. */
  unmatched(m: Message): void;
  /** A system message on a channel (the postgres_changes subscription's status). */
  system(channel: Channel, extension: string, status: 'ok' | 'error', message: string): void;
  /** Closes the channel when its token expires. */
  armExpiry(channel: Channel): void;
  closeChannel(channel: Channel, leave: Message | undefined): Promise<void>;
  /** Gives back what a channel holds (its subscriptions), or all of them. */
  release(channel?: Channel): Promise<void>;
}
