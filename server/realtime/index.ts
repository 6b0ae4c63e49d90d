// Realtime on the project port:
//   GET  /realtime/v1/websocket                 the Phoenix socket (apikey, vsn, log_level)
//   POST /realtime/v1/api/broadcast             server-side broadcast (service role)
//   POST /realtime/v1/api/broadcast/{topic}/events/{event}   one message (supabase-js httpSend)
// Each process keeps its own sockets; the database carries what must reach
// the others (bus.ts), decides who sees which row change (changes.ts) and
// holds presence.
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import express, { type Router } from 'express';
import { jsonBody } from '../json-body.ts';
import type pg from 'pg';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import { realtimeBody, realtimeErrors } from './errors.ts';
import { fromBrowser } from '../api-keys.ts';
import type { TokenVerifier } from '../keys.ts';
import { redactUrl } from '../log.ts';
import { fromRelay, RealtimeBus } from './bus.ts';
import { ChangeRouter } from './changes.ts';
import { Connection, type RealtimeContext } from './connection.ts';
import { realtimeStore } from './store.ts';
import { Hub, type Broadcast } from './hub.ts';
import { VSNS, type Vsn } from './protocol.ts';
import { watchRealtime } from '../telemetry/metrics.ts';

export type RealtimeService = {
  router: Router;
  /** This process's id in realtime.nodes (heartbeat and reaping), which other surfaces use to find work a dead process left. */
  nodeId: string;
  /** Serves the WebSocket on this HTTP server's upgrade requests. */
  attach: (server: http.Server) => void;
  stop: () => Promise<void>;
};

const SOCKET_PATH = /^\/realtime\/v1\/(?:socket\/)?websocket\/?$/;
const LOG_LEVELS = new Set(['error', 'warn', 'info', 'debug']);

export async function realtimeService(opts: { config: Config; adminUrl: string; adminPool: pg.Pool; requestPool: pg.Pool; verify: TokenVerifier; log: Logger }): Promise<RealtimeService> {
  const { config } = opts;
  const log = opts.log.child({ component: 'realtime' });
  const nodeId = randomUUID();
  const hub = new Hub();
  const router = new ChangeRouter({ pool: opts.adminPool, nodeId, hub, log });
  const connections = new Set<Connection>();
  const bus: RealtimeBus = new RealtimeBus({
    url: opts.adminUrl,
    pool: opts.adminPool,
    nodeId,
    heartbeatMs: config.REALTIME_NODE_HEARTBEAT_MS,
    reapMs: config.REALTIME_NODE_REAP_MS,
    log,
    onEvent: ({ kind, body }) => {
      if (kind === 'change') router.push(body);
      // A process's own broadcasts were delivered here already.
      else if (kind === 'broadcast' && body.node !== nodeId) {
        const b = fromRelay(body);
        if (b) hub.broadcast(b);
      }
      else if (kind === 'presence') {
        if (typeof body.topic === 'string') hub.presenceDiff(body.topic, body.private === true, { joins: body.joins ?? {}, leaves: body.leaves ?? {} });
      }
    },
    onReaped: () => {
      for (const c of connections) c.close(1011, 'realtime node restarted its state');
    },
  });

  /** A broadcast from this process (a socket or REST): to its own subscribers now, to the other processes through the bus. */
  const publish = (b: Broadcast, parsed: () => unknown): void => {
    hub.broadcast(b);
    bus.relay(b, parsed);
  };

  await bus.start();

  const ctx: RealtimeContext = {
    hub, publish, nodeId,
    store: realtimeStore({ adminPool: opts.adminPool, requestPool: opts.requestPool, nodeId }),
    verify: opts.verify,
    limits: {
      maxChannels: config.REALTIME_MAX_CHANNELS_PER_SOCKET,
      maxPayloadBytes: config.REALTIME_MAX_PAYLOAD_BYTES,
      maxEventsPerSecond: config.REALTIME_MAX_EVENTS_PER_SECOND,
      maxQueuedBytes: config.REALTIME_MAX_QUEUED_BYTES,
    },
    log,
  };

  // Frames past the payload limit are still read (up to twice the limit) so
  // that the client gets a reply saying so; beyond that ws closes with 1009.
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: config.REALTIME_MAX_PAYLOAD_BYTES * 2 + 64 * 1024 });
  let draining = false;
  let stopping: Promise<void> | undefined;

  function refuse(socket: Duplex, status: number, kind: ConstructorParameters<typeof ApiError>[0], message: string, code?: string): void {
    const body = JSON.stringify(realtimeBody(new ApiError(kind, message, code ? { status, code } : { status })));
    const reason = status === 400 ? 'Bad Request' : status === 401 ? 'Unauthorized' : status === 404 ? 'Not Found' : 'Service Unavailable';
    socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }

  async function upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!SOCKET_PATH.test(url.pathname)) return refuse(socket, 404, 'not_found', 'WebSockets are served at /realtime/v1/websocket');
    if (draining) return refuse(socket, 503, 'service_unavailable', 'the server is shutting down');
    const vsn = url.searchParams.get('vsn');
    if (vsn === null) return refuse(socket, 400, 'invalid_request', 'the vsn query parameter is required: 1.0.0 or 2.0.0');
    if (!(VSNS as readonly string[]).includes(vsn)) return refuse(socket, 400, 'invalid_request', `unsupported vsn ${JSON.stringify(vsn)}: use 1.0.0 or 2.0.0`);
    const logLevel = url.searchParams.get('log_level');
    if (logLevel !== null && !LOG_LEVELS.has(logLevel)) return refuse(socket, 400, 'invalid_request', 'log_level must be error, warn, info or debug');
    const header = req.headers.apikey ?? req.headers['x-api-key'];
    const apikey = url.searchParams.get('apikey') ?? (typeof header === 'string' ? header : null);
    if (!apikey) return refuse(socket, 401, 'unauthorized', 'No API key found in request (apikey query parameter)');
    if (apikey.startsWith('sb_secret_') && fromBrowser(req.headers)) return refuse(socket, 401, 'unauthorized', 'Forbidden use of secret API key in browser');
    const verdict = await opts.verify(apikey);
    if (!verdict.ok) return refuse(socket, 401, 'unauthorized', verdict.reason === 'expired' ? 'API key or token has expired' : verdict.reason === 'legacy_disabled' ? 'Legacy API keys are disabled' : 'Invalid API key or token');
    wss.handleUpgrade(req, socket, head, (ws) => {
      const socketLog = log.child({ vsn, path: redactUrl(req.url ?? '') });
      if (logLevel) socketLog.level = logLevel;
      const connection = new Connection(ctx, ws, vsn as Vsn, apikey, verdict.claims, socketLog);
      connections.add(connection);
      ws.on('close', () => connections.delete(connection));
      socketLog.debug({ socket: connection.id }, 'realtime socket connected');
    });
  }

  // Open sockets and joined channels, counted when /metrics is scraped.
  const unwatch = watchRealtime(() => {
    let channels = 0;
    for (const c of connections) channels += c.channels.size;
    return { connections: connections.size, channels };
  });
  // A socket silent for the heartbeat timeout (about two client intervals) is half-open: close it.
  const sweep = setInterval(() => {
    const cutoff = Date.now() - config.REALTIME_HEARTBEAT_TIMEOUT_MS;
    for (const c of connections) if (c.lastSeen < cutoff) c.close(1000, 'heartbeat timeout');
  }, Math.min(5000, Math.max(250, config.REALTIME_HEARTBEAT_TIMEOUT_MS / 4)));
  sweep.unref();

  return {
    nodeId,
    router: broadcastRoutes({
      publish, maxPayloadBytes: config.REALTIME_MAX_PAYLOAD_BYTES, anyToken: config.REALTIME_BROADCAST_ANY_TOKEN === 'true',
      mayWrite: async (subTopic, role, claims) => (await ctx.store.channelAccess(subTopic, role, claims)).broadcastWrite,
    }),
    attach: (server) => {
      server.on('upgrade', (req, socket, head) => {
        socket.on('error', () => undefined);
        upgrade(req, socket, head).catch((err: Error) => {
          log.error({ error: err.message }, 'realtime upgrade failed');
          socket.destroy();
        });
      });
    },
    stop: () => (stopping ??= (async () => {
      draining = true;
      clearInterval(sweep);
      unwatch();
      for (const c of connections) c.close(1001, 'server shutting down');
      await bus.stop();
      wss.close();
    })()),
  };
}

/**
 * REST broadcast: the service-role key only (spec part 5), or with
 * REALTIME_BROADCAST_ANY_TOKEN any valid project token, as Supabase Realtime
 * takes it (supabase-js's httpSend, and send() before a join falls back to
 * it): public messages freely, private ones when the INSERT policies on
 * realtime.messages let that token write the topic, as over the socket.
 */
function broadcastRoutes(opts: {
  publish: (b: Broadcast, parsed: () => unknown) => void; maxPayloadBytes: number; anyToken: boolean;
  mayWrite: (subTopic: string, role: string, claims: Record<string, unknown>) => Promise<boolean>;
}): Router {
  const router = express.Router();
  const requireServiceRole: express.RequestHandler = (req, _res, next) => {
    if (!req.auth?.bearer) return next(realtimeErrors.bearerRequired());
    if (req.auth.role !== 'service_role' && !opts.anyToken) return next(realtimeErrors.serviceRoleRequired());
    next();
  };
  /** Private topics the caller may not write, among those asked (the service role writes them all). */
  const refusedPrivate = async (req: express.Request, topics: string[]): Promise<string | undefined> => {
    if (req.auth!.role === 'service_role') return undefined;
    for (const topic of new Set(topics)) if (!(await opts.mayWrite(topic, req.auth!.role, req.auth!.claims as Record<string, unknown>))) return topic;
    return undefined;
  };

  router.post('/api/broadcast', requireServiceRole, jsonBody({ limit: Math.max(1024 * 1024, opts.maxPayloadBytes * 4) }), (req, res, next) => {
    const messages = (req.body as { messages?: unknown } | undefined)?.messages;
    if (!Array.isArray(messages)) return next(realtimeErrors.invalid('messages (an array) is required'));
    if (messages.length > 1000) return next(realtimeErrors.invalid('at most 1000 messages per request'));
    const checked: Array<{ topic: string; event: string; payload: unknown; private: boolean; bytes: Buffer }> = [];
    for (const [i, m] of messages.entries()) {
      const { topic, event, payload, private: isPrivate } = (m ?? {}) as Record<string, unknown>;
      if (typeof topic !== 'string' || !topic) return next(realtimeErrors.invalid(`messages[${i}].topic (a string) is required`));
      if (typeof event !== 'string' || !event) return next(realtimeErrors.invalid(`messages[${i}].event (a string) is required`));
      if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return next(realtimeErrors.invalid(`messages[${i}].payload (an object) is required`));
      if (isPrivate !== undefined && typeof isPrivate !== 'boolean') return next(realtimeErrors.invalid(`messages[${i}].private must be a boolean`));
      const bytes = Buffer.from(JSON.stringify(payload));
      if (bytes.length > opts.maxPayloadBytes) return next(realtimeErrors.payloadTooLarge(i, opts.maxPayloadBytes));
      checked.push({ topic: topic.replace(/^realtime:/, ''), event, payload, private: isPrivate === true, bytes });
    }
    // All or nothing: nothing is sent until every message is known good.
    void refusedPrivate(req, checked.filter((m) => m.private).map((m) => m.topic)).then((refused) => {
      if (refused !== undefined) return next(realtimeErrors.privateRefused(refused));
      for (const m of checked) opts.publish({ subTopic: m.topic, private: m.private, userEvent: m.event, payload: { encoding: 'json', json: m.bytes } }, () => m.payload);
      res.status(202).json({ message: 'ok' });
    }, next);
  });

  router.post(
    '/api/broadcast/:topic/events/:event',
    requireServiceRole,
    express.raw({ type: () => true, limit: opts.maxPayloadBytes }),
    (req, res, next) => {
      const topic = String(req.params.topic);
      const isPrivate = req.query.private === 'true';
      if (!isPrivate) return next();
      refusedPrivate(req, [topic]).then((refused) => next(refused === undefined ? undefined : realtimeErrors.privateRefused(refused)), next);
    },
    (req, res, next) => {
      const topic = String(req.params.topic);
      const event = String(req.params.event);
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const isPrivate = req.query.private === 'true';
      if (req.is('application/octet-stream')) {
        opts.publish({ subTopic: topic, private: isPrivate, userEvent: event, payload: { encoding: 'binary', bytes: body } }, () => undefined);
      } else {
        let parsed: unknown;
        try {
          parsed = JSON.parse(body.toString('utf8'));
        } catch {
          return next(realtimeErrors.invalid('the body must be JSON, or application/octet-stream for a binary payload'));
        }
        opts.publish({ subTopic: topic, private: isPrivate, userEvent: event, payload: { encoding: 'json', json: Buffer.from(JSON.stringify(parsed)) } }, () => parsed);
      }
      res.status(202).json({ message: 'ok' });
    },
  );
  return router;
}
