// The Studio's realtime inspector: a WebSocket on the control plane
// (/api/platform/realtime/{ref}) through which an operator joins a channel
// as a chosen role and sees what arrives. The browser holds no key: the
// bridge opens the project's realtime socket itself, with the anon key, the
// service key, or a token it signs for a chosen user, and relays frames.
//
// Browser -> bridge  {type: 'join', topic, role: anon | authenticated | service_role, user_id?, private?,
//                     postgres_changes?: [{event, schema, table, filter?}], presence_key?}
//                    {type: 'broadcast', event, payload}   {type: 'leave'}
// Bridge -> browser  {type: 'status', status: joined | error | left, message?}
//                    {type: 'message', event, payload, at}
//
// Only an operator's session opens it (the cookie, checked on the upgrade),
// and only from a page of the control plane itself (the Origin header must
// be this host's: a WebSocket is not covered by SameSite or CSRF tokens).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type pg from 'pg';
import WebSocket, { WebSocketServer } from 'ws';
import { z } from 'zod';
import type { Keys } from '../keys.ts';
import { sessionOf, sessionToken } from './session.ts';

const Join = z.object({
  type: z.literal('join'), topic: z.string().min(1).max(255), role: z.enum(['anon', 'authenticated', 'service_role']),
  user_id: z.string().uuid().optional(), private: z.boolean().optional(), presence_key: z.string().max(255).optional(),
  postgres_changes: z.array(z.object({ event: z.enum(['*', 'INSERT', 'UPDATE', 'DELETE']), schema: z.string().max(63), table: z.string().max(63).optional(), filter: z.string().max(500).optional() })).max(20).optional(),
});
const Send = z.object({ type: z.literal('broadcast'), event: z.string().min(1).max(255), payload: z.unknown() });
const Leave = z.object({ type: z.literal('leave') });
const Command = z.discriminatedUnion('type', [Join, Send, Leave]);

const HEARTBEAT_MS = 25_000;

export function realtimeBridge(opts: { pool: pg.Pool; keys: Keys; projectRef: string; realtimeUrl: () => string; maxPayloadBytes: number }) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxPayloadBytes });

  const tokenFor = async (join: z.infer<typeof Join>): Promise<string> => {
    // Short-lived tokens of the key in use, not the legacy API keys (which a project may turn off).
    if (join.role === 'anon') return opts.keys.sign({ role: 'anon' }, 3600);
    if (join.role === 'service_role') return opts.keys.sign({ role: 'service_role' }, 3600);
    if (!join.user_id) throw new Error('Joining as authenticated needs a user id');
    return opts.keys.sign({ sub: join.user_id, role: 'authenticated', aud: 'authenticated' }, 3600);
  };

  const serve = (browser: WebSocket) => {
    let upstream: WebSocket | undefined;
    let topic = '';
    let ref = 0;
    let beat: NodeJS.Timeout | undefined;
    const tell = (m: object) => browser.readyState === WebSocket.OPEN && browser.send(JSON.stringify(m));
    const push = (event: string, payload: unknown) => upstream?.readyState === WebSocket.OPEN && upstream.send(JSON.stringify({ topic, event, payload, ref: String(++ref) }));
    const leave = () => {
      clearInterval(beat);
      upstream?.close();
      upstream = undefined;
    };
    browser.on('message', (data) => void (async () => {
      let command: z.infer<typeof Command>;
      try {
        command = Command.parse(JSON.parse(String(data)));
      } catch (e) {
        return tell({ type: 'status', status: 'error', message: `Not a command: ${(e as Error).message.slice(0, 200)}` });
      }
      if (command.type === 'leave') {
        leave();
        return tell({ type: 'status', status: 'left' });
      }
      if (command.type === 'broadcast') return void push('broadcast', { type: 'broadcast', event: command.event, payload: command.payload });
      leave();
      const token = await tokenFor(command).catch((e: Error) => tell({ type: 'status', status: 'error', message: e.message }));
      if (typeof token !== 'string') return;
      topic = `realtime:${command.topic}`;
      const socket = new WebSocket(`${opts.realtimeUrl()}/realtime/v1/websocket?apikey=${encodeURIComponent(token)}&vsn=1.0.0`);
      upstream = socket;
      socket.on('open', () => {
        push('phx_join', {
          config: { broadcast: { self: true, ack: false }, presence: { key: command.presence_key ?? '' }, postgres_changes: command.postgres_changes ?? [], private: command.private ?? false },
          access_token: token,
        });
        beat = setInterval(() => socket.send(JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: String(++ref) })), HEARTBEAT_MS);
      });
      socket.on('message', (raw) => {
        let frame: { topic: string; event: string; payload: { status?: string; response?: { reason?: string } } };
        try {
          frame = JSON.parse(String(raw)) as typeof frame;
        } catch {
          return; // not a Phoenix frame: nothing to relay
        }
        if (frame.topic !== topic) return;
        // The only reply on the channel is the join's (broadcasts are sent without ack).
        if (frame.event === 'phx_reply') return tell(frame.payload.status === 'ok' ? { type: 'status', status: 'joined' } : { type: 'status', status: 'error', message: frame.payload.response?.reason ?? 'The join was refused' });
        tell({ type: 'message', event: frame.event, payload: frame.payload, at: new Date().toISOString() });
      });
      socket.on('close', () => {
        if (upstream === socket) {
          clearInterval(beat);
          tell({ type: 'status', status: 'left' });
        }
      });
      socket.on('error', (e) => tell({ type: 'status', status: 'error', message: e.message }));
    })());
    browser.on('close', leave);
  };

  /** The control plane server's 'upgrade' handler. */
  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const origin = req.headers.origin;
      const host = req.headers.host;
      const token = sessionToken({ headers: req.headers } as Parameters<typeof sessionToken>[0]);
      const session = token ? await sessionOf(opts.pool, token) : undefined;
      if (url.pathname !== `/api/platform/realtime/${opts.projectRef}` || !session || !origin || !host || new URL(origin).host !== host) {
        socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, serve);
    })().catch(() => socket.destroy());
  };
  /** Ends every bridge (the server is stopping). */
  const close = () => {
    for (const client of wss.clients) client.terminate();
    wss.close();
  };
  return { upgrade, close };
}
