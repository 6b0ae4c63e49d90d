// /api/mcp (issue 30): an MCP server (Streamable HTTP, the official SDK's
// low-level Server) offering each caller exactly what the access model lets
// them run (tools.ts). A request needs only `Authorization: Bearer <user
// token or service key>`, as MCP clients send (the gateway lets this surface
// take the bearer as its key).
//
// Sessions live in this process: `initialize` opens one (its id in the
// `Mcp-Session-Id` header) bound to the caller who opened it; a request for
// it from anyone else, or for a session this process does not hold, is 404
// (the client then initializes again, as the protocol says). When a
// workflow is deployed or undeployed, or an agent or knowledge base is made,
// renamed or removed, SQL says so on NOTIFY ai_tools_changed
// (sql/0064) and every session here is sent notifications/tools/list_changed.
// Idle sessions are closed after 30 minutes. The sources of the caller's
// knowledge bases are offered as resources (resources.ts).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import express, { type Request, type Router } from 'express';
import type { Logger } from 'pino';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, isInitializeRequest, ListResourcesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { RequestContext } from '../../../db/as-role.ts';
import { listenChannel } from '../../../db/listener.ts';
import { ApiError, route } from '../../errors.ts';
import { callerUser } from '../actor.ts';
import { contextOf } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { Failure } from '../failures.ts';
import { listSourceResources, readSourceResource } from './resources.ts';
import { toolsFor, type McpServices } from './tools.ts';

const IDLE_MS = 30 * 60_000;

type Session = { transport: StreamableHTTPServerTransport; server: Server; owner: string; seen: number };

/** The request as the transport takes it: our `req.auth` is the gateway's, not the SDK's AuthInfo (its handlers use the caller bound to the session). */
const plain = (req: Request) => req as unknown as IncomingMessage;

/** Who a caller is, for binding a session to them: a user's id, or the project. */
const ownerOf = (caller: RequestContext) => callerUser(caller) ?? 'project';

function mcpServer(caller: RequestContext, services: McpServices, log: Logger): Server {
  const server = new Server({ name: 'pgbase', version: '1.0.0' }, { capabilities: { tools: { listChanged: true }, resources: {} } });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await listSourceResources(caller, services) }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    try {
      return await readSourceResource(caller, services, request.params.uri);
    } catch (err) {
      // The SDK answers a thrown error as a JSON-RPC error with its message: only words meant for the client.
      throw err instanceof Failure || err instanceof ApiError ? err : new Error('The resource could not be read');
    }
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await toolsFor(caller, services)).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema as { type: 'object' } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = (await toolsFor(caller, services)).find((t) => t.name === request.params.name);
    if (!tool) return { content: [{ type: 'text', text: `Unknown tool ${request.params.name}: list the tools again` }], isError: true };
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

export function mcpRoutes(opts: { services: McpServices; adminUrl: string; log: Logger }): { router: Router; close: () => Promise<void> } {
  const log = opts.log.child({ component: 'mcp' });
  const sessions = new Map<string, Session>();
  const r = express.Router();

  const sessionOf = (req: Request): Session | undefined => {
    const id = req.headers['mcp-session-id'];
    const s = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!s || s.owner !== ownerOf(contextOf(req))) return undefined;
    s.seen = Date.now();
    return s;
  };

  r.post('/', route(async (req, res) => {
    const existing = sessionOf(req);
    if (existing) return void (await existing.transport.handleRequest(plain(req), res, req.body));
    if (req.headers['mcp-session-id'] !== undefined || !isInitializeRequest(req.body)) throw aiErrors.notFound('Session');
    const caller = contextOf(req);
    const server = mcpServer(caller, opts.services, log);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, server, owner: ownerOf(caller), seen: Date.now() }),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    await server.connect(transport);
    await transport.handleRequest(plain(req), res, req.body);
  }));
  // The stream of server-sent notifications, and the end of a session.
  const existing = route(async (req, res) => {
    const s = sessionOf(req);
    if (!s) throw aiErrors.notFound('Session');
    await s.transport.handleRequest(plain(req), res);
  });
  r.get('/', existing);
  r.delete('/', existing);

  // What may be offered changed somewhere (sql/0064): every session here lists
  // again; so does a listener that reconnected, as changes made while it was
  // away are unknown.
  const changed = () => {
    for (const s of sessions.values()) void s.server.sendToolListChanged().catch(() => undefined);
  };
  const listener = listenChannel({ url: opts.adminUrl, channel: 'ai_tools_changed', name: 'mcp-tools', log, onNotify: changed, onListening: (again) => (again ? changed() : undefined) });
  const sweep = setInterval(() => {
    for (const [id, s] of sessions) if (Date.now() - s.seen > IDLE_MS) void s.transport.close().finally(() => sessions.delete(id));
  }, 60_000);
  sweep.unref();

  return {
    router: r,
    close: async () => {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
      sessions.clear();
      await listener.stop();
    },
  };
}
