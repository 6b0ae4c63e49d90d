// A real MCP server built with the official SDK on 127.0.0.1, for agents'
// MCP tests: three tools (add, fail with isError, slow), over streamable
// HTTP (/mcp, stateless) and the older SSE transport (/sse + /messages),
// recording each request's Authorization header.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** An MCP server with three tools: add, fail (isError) and slow (sleeps). */
function mcpServer() {
  const server = new McpServer({ name: 'calc', version: '1.0.0' });
  server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  server.registerTool('fail', { description: 'Always fails', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'the disk is full' }], isError: true }));
  server.registerTool('slow', { description: 'Takes five seconds', inputSchema: {} }, async () => {
    await new Promise((r) => setTimeout(r, 5000));
    return { content: [{ type: 'text', text: 'late' }] };
  });
  return server;
}

/** Both transports on one port: /mcp (streamable HTTP, stateless) and /sse + /messages (the older SSE transport). */
export async function startMcp() {
  const seenAuth: string[] = [];
  const sse = new Map<string, SSEServerTransport>();
  const httpServer = http.createServer(async (req, res) => {
    seenAuth.push(String(req.headers.authorization ?? ''));
    const url = new URL(req.url!, 'http://localhost');
    if (url.pathname === '/mcp') {
      const transport = new StreamableHTTPServerTransport({});
      const server = mcpServer();
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => void transport.handleRequest(req, res, body ? JSON.parse(body) : undefined));
      return;
    }
    if (url.pathname === '/sse' && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res);
      sse.set(transport.sessionId, transport);
      res.on('close', () => sse.delete(transport.sessionId));
      await mcpServer().connect(transport);
      return;
    }
    if (url.pathname === '/messages' && req.method === 'POST') {
      const transport = sse.get(url.searchParams.get('sessionId') ?? '');
      if (!transport) return void res.writeHead(404).end();
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => httpServer.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`, seenAuth, close: () => new Promise<void>((r) => { httpServer.closeAllConnections(); httpServer.close(() => r()); }) };
}
