// /api/agents/{id}/mcp-servers (spec 2.3b, 4.9): an agent's MCP servers.
// `url`, `transport` (streamable_http, the default, or sse), `name`,
// `headers` and `enabled`; PUT changes any of them. Headers are encrypted at
// rest (ai.put_mcp_headers) and answered masked. GET …/{serverId}/tools
// asks the server for its tools now (mcp-client.ts list).
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { idOf, parse } from '../parse.ts';
import type { McpTools } from './mcp-client.ts';
import type { agentStore } from './store.ts';

type Agents = ReturnType<typeof agentStore>;
type McpServerRow = { id: string; agent_id: string; name: string; url: string; transport: string; headers: Record<string, string>; enabled: boolean; created_at: Date; updated_at: Date };
const SERVER = 'id, agent_id, name, url, transport, headers_masked as headers, enabled, created_at, updated_at';

const Url = z.string({ error: 'url is required' }).max(2048).refine((u) => {
  try {
    return ['http:', 'https:'].includes(new URL(u).protocol);
  } catch {
    return false;
  }
}, 'url must be an http or https URL');
export const McpServerBody = z.object({
  name: z.string({ error: 'name is required' }).trim().min(1, 'name is required').max(200),
  url: Url,
  transport: z.enum(['streamable_http', 'sse'], { error: 'transport must be streamable_http or sse' }).default('streamable_http'),
  headers: z.record(z.string(), z.string({ error: 'header values must be strings' }), { error: 'headers must be an object' }).optional(),
  enabled: z.boolean({ error: 'enabled must be true or false' }).optional(),
});
export const McpServerChange = z.object({
  name: McpServerBody.shape.name.optional(),
  url: Url.optional(),
  transport: z.enum(['streamable_http', 'sse'], { error: 'transport must be streamable_http or sse' }).optional(),
  headers: McpServerBody.shape.headers,
  enabled: McpServerBody.shape.enabled,
});

export function mcpServerRoutes(r: Router, calls: AiCalls, agents: Agents, masterKey: string, mcp: McpTools): void {
  const one = async (req: express.Request, agentId: string, id: string) => {
    const [row] = await calls.call<McpServerRow>(req, `select ${SERVER} from ai.agent_mcp_servers where id = $1 and agent_id = $2`, [id, agentId]);
    if (!row) throw aiErrors.notFound('MCP server');
    return row;
  };

  r.get('/:id/mcp-servers', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    await agents.get(req, id);
    res.json(await calls.call<McpServerRow>(req, `select ${SERVER} from ai.agent_mcp_servers where agent_id = $1 order by created_at, id`, [id]));
  }));

  r.post('/:id/mcp-servers', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    const body = parse(McpServerBody, req.body);
    await agents.requireOwn(req, id);
    const row = await calls.transaction(req, async (c) => {
      const { rows: [made] } = await c.query<{ id: string }>('insert into ai.agent_mcp_servers (agent_id, name, url, transport, enabled) values ($1, $2, $3, $4, $5) returning id',
        [id, body.name, body.url, body.transport, body.enabled ?? true]);
      if (body.headers) await c.query('select ai.put_mcp_headers($1, $2, $3)', [made!.id, JSON.stringify(body.headers), masterKey]);
      return (await c.query<McpServerRow>(`select ${SERVER} from ai.agent_mcp_servers where id = $1`, [made!.id])).rows[0]!;
    });
    res.status(201).json(row);
  }));

  r.put('/:id/mcp-servers/:serverId', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    const serverId = idOf(req.params.serverId, 'MCP server');
    const body = parse(McpServerChange, req.body);
    if (Object.keys(body).length === 0) throw aiErrors.validation('No fields to update: send url, transport, name, headers or enabled');
    await one(req, id, serverId);
    await agents.requireOwn(req, id);
    const row = await calls.transaction(req, async (c) => {
      await c.query(`update ai.agent_mcp_servers set name = coalesce($3, name), url = coalesce($4, url), transport = coalesce($5, transport),
          enabled = coalesce($6, enabled) where id = $1 and agent_id = $2`,
        [serverId, id, body.name ?? null, body.url ?? null, body.transport ?? null, body.enabled ?? null]);
      if (body.headers) await c.query('select ai.put_mcp_headers($1, $2, $3)', [serverId, JSON.stringify(body.headers), masterKey]);
      return (await c.query<McpServerRow>(`select ${SERVER} from ai.agent_mcp_servers where id = $1`, [serverId])).rows[0]!;
    });
    res.json(row);
  }));

  r.get('/:id/mcp-servers/:serverId/tools', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    const serverId = idOf(req.params.serverId, 'MCP server');
    await one(req, id, serverId);
    // Asking ends with the request: a client that goes away hangs up on the server.
    const stop = new AbortController();
    res.on('close', () => stop.abort());
    res.json(await mcp.list(serverId, stop.signal));
  }));

  r.delete('/:id/mcp-servers/:serverId', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    const serverId = idOf(req.params.serverId, 'MCP server');
    await one(req, id, serverId);
    await agents.requireOwn(req, id);
    await calls.call(req, 'delete from ai.agent_mcp_servers where id = $1 and agent_id = $2', [serverId, id]);
    res.json({ message: 'MCP server deleted', id: serverId });
  }));
}
