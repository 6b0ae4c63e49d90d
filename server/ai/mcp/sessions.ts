// The MCP sessions this process holds, within bounds: each holds an SDK
// server and transport (tens of KB of heap) until it ends, so a caller who
// opens sessions without end must not be able to fill the heap.
//
//   per caller   MCP_SESSIONS_PER_CALLER: a new session evicts the caller's
//                least recently used idle one; with none idle, refused (429)
//   in all       MCP_SESSIONS_MAX: a new session evicts the least recently
//                used idle session of the callers holding the most; with
//                none idle anywhere, refused (429)
//   idle         a session with no request in flight and no notification
//                stream open, unused for MCP_SESSION_IDLE_SECONDS, ends
//
// A session is busy while a request of its own is answered or its
// notification stream is open: busy sessions are never evicted (a tool
// call in flight may be a long agent run). A caller whose access is revoked
// (banned, deleted: sql/0095) loses every session at once.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export type SessionLimits = { perCaller: number; max: number; idleMs: number };

export type McpSession = {
  id: string;
  /** A user's id, or `project` for the service key. */
  owner: string;
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** When a request of this session last came. */
  seen: number;
  /** Requests being answered. */
  inFlight: number;
  /** Whether its notification stream (GET) is open. */
  streaming: boolean;
};

/** Past a bound: answered 429, with when to try again. */
export class SessionRefused extends Error {
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.name = 'SessionRefused';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export type McpSessions = ReturnType<typeof mcpSessions>;

export function mcpSessions(limits: SessionLimits) {
  const sessions = new Map<string, McpSession>();
  const byOwner = new Map<string, Set<McpSession>>();
  const idle = (s: McpSession) => s.inFlight === 0 && !s.streaming;
  /** The least recently used idle session among `list`. */
  const leastRecent = (list: Iterable<McpSession>): McpSession | undefined => {
    let found: McpSession | undefined;
    for (const s of list) if (idle(s) && (!found || s.seen < found.seen)) found = s;
    return found;
  };
  // A refused caller may try again once an idle session could have ended.
  const retryAfter = Math.max(1, Math.min(60, Math.ceil(limits.idleMs / 1000)));

  const remove = (s: McpSession): boolean => {
    if (sessions.get(s.id) !== s) return false;
    sessions.delete(s.id);
    const mine = byOwner.get(s.owner);
    mine?.delete(s);
    if (mine?.size === 0) byOwner.delete(s.owner);
    return true;
  };
  /** Ends a session: its streams close, its later requests are 404. */
  const close = (s: McpSession): void => {
    if (remove(s)) void s.transport.close().catch(() => undefined);
  };

  return {
    /** The session `id` if `owner` holds it, marked as just used. */
    get: (id: string, owner: string): McpSession | undefined => {
      const s = sessions.get(id);
      if (!s || s.owner !== owner) return undefined;
      s.seen = Date.now();
      return s;
    },
    /**
     * Makes room for one more session of `owner`, evicting as the header
     * says, or throws SessionRefused. Called just before the session is
     * added, in the same turn of the event loop.
     */
    admit: (owner: string): void => {
      const mine = byOwner.get(owner);
      if (mine && mine.size >= limits.perCaller) {
        const victim = leastRecent(mine);
        if (!victim) throw new SessionRefused(`There are at most ${limits.perCaller} MCP sessions per caller, and all of yours are in use: end one (DELETE) or try again later`, retryAfter);
        close(victim);
      }
      if (sessions.size >= limits.max) {
        const heaviest = [...byOwner.values()].sort((a, b) => b.size - a.size);
        const victim = heaviest.map((list) => leastRecent(list)).find((s) => s !== undefined);
        if (!victim) throw new SessionRefused(`There are at most ${limits.max} MCP sessions on this server, and all are in use: try again later`, retryAfter);
        close(victim);
      }
    },
    add: (s: McpSession): void => {
      sessions.set(s.id, s);
      let mine = byOwner.get(s.owner);
      if (!mine) byOwner.set(s.owner, (mine = new Set()));
      mine.add(s);
    },
    close,
    /** A session its client ended (DELETE): the transport closed itself. */
    forget: (id: string): void => {
      const s = sessions.get(id);
      if (s) remove(s);
    },
    /** Every session of `owner` (their access was revoked). */
    closeOwner: (owner: string): void => {
      for (const s of [...(byOwner.get(owner) ?? [])]) close(s);
    },
    /** Ends sessions idle for longer than the limit. */
    sweep: (now = Date.now()): void => {
      for (const s of [...sessions.values()]) if (idle(s) && now - s.seen > limits.idleMs) close(s);
    },
    owners: (): string[] => [...byOwner.keys()],
    size: (): number => sessions.size,
    all: (): McpSession[] => [...sessions.values()],
  };
}
