// /api/mcp (issue 30): an MCP server (Streamable HTTP, the official SDK's
// low-level Server) offering each caller exactly what the access model lets
// them run (tools.ts). A request needs only `Authorization: Bearer <user
// token or service key>`, as MCP clients send (the gateway lets this surface
// take the bearer as its key).
//
// Sessions live in this process, within bounds (sessions.ts): `initialize`
// opens one (its id in the `Mcp-Session-Id` header) bound to the caller who
// opened it; a request for it from anyone else, or for a session this
// process does not hold, is 404 (the client then initializes again, as the
// protocol says). Each request runs as its own caller (the token it came
// with, verified by the gateway), never as the token that opened the session.
// A notification stream ends when its token expires; every session of a user
// who is banned or deleted ends at once (sql/0095). When a workflow is
// deployed or undeployed, or an agent or knowledge base is made, renamed or
// removed, SQL says so on NOTIFY ai_tools_changed (sql/0064) and every
// session here is sent notifications/tools/list_changed. The sources of the
// caller's knowledge bases are offered as resources (resources.ts). Errors
// are JSON-RPC error bodies (errors.ts); a tool that is not offered is the
// JSON-RPC error -32602, not a tool's answer. As the transport requires, a
// request whose Origin is not one of the project's own (SITE_URL, the API's
// URL, MCP_ALLOWED_ORIGINS) is 403 (a browser page elsewhere cannot drive a
// user's session); a request without one (a non-browser client) goes on.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Request, type Router } from 'express';
import type { Logger } from 'pino';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, isInitializeRequest, ListResourcesRequestSchema, ListToolsRequestSchema, McpError, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { RequestContext } from '../../../db/as-role.ts';
import { listenChannel } from '../../../db/listener.ts';
import { ApiError, route } from '../../errors.ts';
import type { RequestAuth } from '../../gateway.ts';
import { watchMcpSessions } from '../../telemetry/metrics.ts';
import { callerUser } from '../actor.ts';
import { contextOf } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { Failure } from '../failures.ts';
import { listSourceResources, readSourceResource } from './resources.ts';
import { mcpSessions, SessionRefused, type McpSession, type SessionLimits } from './sessions.ts';
import { toolsFor, type McpServices } from './tools.ts';

/** The request as the transport takes it; `req.auth` (the gateway's verified caller) reaches each handler as `extra.authInfo`. */
const plain = (req: Request) => req as unknown as IncomingMessage;

/** Who a caller is, for binding a session to them: a user's id, or the project. */
const ownerOf = (caller: RequestContext) => callerUser(caller) ?? 'project';

/** The caller of the request a handler answers: the token that request came with. */
function callerOf(extra: { authInfo?: unknown }): RequestContext {
  const auth = extra.authInfo as RequestAuth | undefined;
  if (!auth) throw new Error('An MCP request arrived without its caller');
  return { role: auth.role, claims: auth.claims };
}

/** setTimeout's longest wait; a later expiry is checked again then. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

function mcpServer(services: McpServices, log: Logger): Server {
  const server = new Server({ name: 'pgbase', version: '1.0.0' }, { capabilities: { tools: { listChanged: true }, resources: {} } });
  server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => ({ resources: await listSourceResources(callerOf(extra), services) }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    try {
      return await readSourceResource(callerOf(extra), services, request.params.uri);
    } catch (err) {
      // The SDK answers a thrown error as a JSON-RPC error with its message: only words meant for the client.
      throw err instanceof Failure || err instanceof ApiError ? err : new Error('The resource could not be read');
    }
  });
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => ({
    tools: (await toolsFor(callerOf(extra), services)).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema as { type: 'object' } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = (await toolsFor(callerOf(extra), services)).find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}: list the tools again`);
    try {
      const result = await tool.call(request.params.arguments ?? {}, extra.signal);
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    } catch (err) {
      // A failure is the tool's answer (the model reads it), worded as the API words it (a workflow's
      // failed block, a provider's refusal); anything else is a bug: its cause stays in the log.
      const shown = err instanceof Failure || err instanceof ApiError;
      if (!shown) log.warn({ tool: tool.name, error: (err as Error).message }, 'mcp tool failed');
      return { content: [{ type: 'text', text: shown ? err.message : 'The tool failed' }], isError: true };
    }
  });
  return server;
}

/** origins: the Origin values a browser page calling /api/mcp may carry (the project's own and MCP_ALLOWED_ORIGINS). */
export function mcpRoutes(opts: { services: McpServices; adminUrl: string; log: Logger; limits: SessionLimits; origins: string[] }): { router: Router; close: () => Promise<void> } {
  const log = opts.log.child({ component: 'mcp' });
  const sessions = mcpSessions(opts.limits);
  const unwatch = watchMcpSessions(sessions.size);
  const r = express.Router();
  const allowed = new Set(opts.origins.map((o) => o.replace(/\/$/, '').toLowerCase()));
  r.use((req, _res, next) => {
    const origin = req.headers.origin;
    next(origin === undefined || allowed.has(origin.toLowerCase()) ? undefined : aiErrors.originRefused(origin));
  });

  const sessionOf = (req: Request): McpSession | undefined => {
    const id = req.headers['mcp-session-id'];
    return typeof id === 'string' ? sessions.get(id, ownerOf(contextOf(req))) : undefined;
  };
  /** A request of the session is in flight until its answer ends: the session is busy meanwhile. */
  const busy = (s: McpSession, res: ServerResponse) => {
    s.inFlight++;
    res.once('close', () => {
      s.inFlight--;
      s.seen = Date.now();
    });
  };

  r.post('/', route(async (req, res) => {
    const existing = sessionOf(req);
    if (existing) {
      busy(existing, res);
      return void (await existing.transport.handleRequest(plain(req), res, req.body));
    }
    if (req.headers['mcp-session-id'] !== undefined || !isInitializeRequest(req.body)) throw aiErrors.notFound('Session');
    const owner = ownerOf(contextOf(req));
    try {
      sessions.admit(owner);
    } catch (err) {
      if (!(err instanceof SessionRefused)) throw err;
      throw aiErrors.tooManySessions(err.message, err.retryAfterSeconds);
    }
    const id = randomUUID();
    const server = mcpServer(opts.services, log);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id, onsessionclosed: () => void sessions.forget(id) });
    const session: McpSession = { id, owner, transport, server, seen: Date.now(), inFlight: 0, streaming: false };
    sessions.add(session);
    busy(session, res);
    await server.connect(transport);
    await transport.handleRequest(plain(req), res, req.body);
    // An initialize the SDK refused opened nothing.
    if (transport.sessionId === undefined) sessions.close(session);
  }));
  // The stream of server-sent notifications: the session is busy while it is open, and it ends when its token does.
  r.get('/', route(async (req, res) => {
    const s = sessionOf(req);
    if (!s) throw aiErrors.notFound('Session');
    // A second stream is the SDK's to refuse (409).
    if (s.streaming) return void (await s.transport.handleRequest(plain(req), res));
    s.streaming = true;
    const exp = req.auth?.claims.exp;
    let expiry: NodeJS.Timeout | undefined;
    if (typeof exp === 'number') expiry = setTimeout(() => s.transport.closeStandaloneSSEStream(), Math.min(LONGEST_TIMER_MS, Math.max(0, exp * 1000 - Date.now())));
    res.once('close', () => {
      clearTimeout(expiry);
      s.streaming = false;
      s.seen = Date.now();
    });
    await s.transport.handleRequest(plain(req), res);
  }));
  // The end of a session.
  r.delete('/', route(async (req, res) => {
    const s = sessionOf(req);
    if (!s) throw aiErrors.notFound('Session');
    await s.transport.handleRequest(plain(req), res);
  }));

  // What may be offered changed somewhere (sql/0064): every session here lists
  // again; so does a listener that reconnected, as changes made while it was
  // away are unknown.
  const changed = () => {
    for (const s of sessions.all()) void s.server.sendToolListChanged().catch(() => undefined);
  };
  const listener = listenChannel({ url: opts.adminUrl, channel: 'ai_tools_changed', name: 'mcp-tools', log, onNotify: changed, onListening: (again) => (again ? changed() : undefined) });
  // A user banned or deleted (sql/0095) loses their sessions at once; after a
  // reconnect, every holder is checked, as a notice may have been missed.
  const revoked = listenChannel({
    url: opts.adminUrl, channel: 'auth_access_revoked', name: 'mcp-access', log,
    onNotify: (userId) => sessions.closeOwner(userId),
    onListening: async (again) => {
      const users = sessions.owners().filter((o) => o !== 'project');
      if (!again || users.length === 0) return;
      const allowed = new Set(await opts.services.store.usersWithAccess(users));
      for (const u of users) if (!allowed.has(u)) sessions.closeOwner(u);
    },
  });
  const sweep = setInterval(() => sessions.sweep(), Math.max(250, Math.min(60_000, opts.limits.idleMs / 4)));
  sweep.unref();

  return {
    router: r,
    close: async () => {
      clearInterval(sweep);
      unwatch();
      for (const s of sessions.all()) sessions.close(s);
      await Promise.all([listener.stop(), revoked.stop()]);
    },
  };
}
