// An agent's MCP servers at run time, through the official SDK client:
// streamable HTTP (the default) or SSE for older servers, the stored headers
// decrypted and sent with every request, every connection through the SSRF
// guard. Each enabled server's tools are offered as `<server>__<tool>` (the
// server's name made safe for a function name); `enabled: false` servers are
// not contacted. A server that cannot be reached or listed is reported as an
// `mcp_error` event and its tools are left out: the run goes on. A call that
// fails (the server went away, MCP_TOOL_TIMEOUT passed, the tool said
// isError) is a tool error the model reads. Output is cut at
// MAX_TOOL_OUTPUT_LENGTH. `list` asks one server for its tools (the agent
// page shows them), enabled or not, and hangs up.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import type { Settings } from '../settings/accessor.ts';
import type { LoopTool } from './loop.ts';
import type { Emit } from '../steps/events.ts';
import type { ToolOutcome } from '../steps/step.ts';

type ServerRow = { id: string; name: string; url: string; transport: 'streamable_http' | 'sse'; headers: string | null };
type Connected = { tools: LoopTool[]; close: () => Promise<void> };

const NAME = /[^a-zA-Z0-9_-]/g;
const MAX_NAME = 64;

/** The name a model sees: server and tool joined, as function names allow. */
export function namespacedName(server: string, tool: string): string {
  return `${server.replace(NAME, '_')}__${tool.replace(NAME, '_')}`.slice(0, MAX_NAME);
}

/** An error's message with its causes ("fetch failed" alone says nothing). */
function reason(err: unknown): string {
  const parts: string[] = [];
  for (let e = err as { message?: unknown; cause?: unknown } | undefined; e && parts.length < 4; e = e.cause as typeof e) {
    if (typeof e.message === 'string' && e.message && !parts.includes(e.message)) parts.push(e.message);
  }
  return parts.join(': ') || String(err);
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return JSON.stringify(content ?? null);
  return content.map((c: { type?: string; text?: string }) => (c?.type === 'text' && typeof c.text === 'string' ? c.text : JSON.stringify(c))).join('\n');
}

export type ListedMcpTool = { name: string; offered_as: string; description: string | null; input_schema: Record<string, unknown> };

const DECRYPTED = `select id, name, url, transport, case when headers_encrypted is null then null else ai.decrypt(headers_encrypted, $2) end as headers from ai.agent_mcp_servers`;

export function mcpTools(opts: { calls: AiCalls; masterKey: string; settings: Settings; fetch: typeof fetch }) {
  const { calls, masterKey, settings } = opts;

  const open = async (server: ServerRow, timeoutMs: number, signal: AbortSignal) => {
    const headers = server.headers ? JSON.parse(server.headers) as Record<string, string> : {};
    const url = new URL(server.url);
    const transport = server.transport === 'sse'
      ? new SSEClientTransport(url, { requestInit: { headers }, fetch: opts.fetch, eventSourceInit: { fetch: (u, init) => opts.fetch(u, { ...init, headers: { ...headers, ...Object.fromEntries(new Headers(init?.headers).entries()) } }) } })
      : new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: opts.fetch });
    const client = new Client({ name: 'pgbase-agent', version: '1.0.0' });
    try {
      await client.connect(transport, { timeout: timeoutMs, signal });
      const listed = await client.listTools(undefined, { timeout: timeoutMs, signal });
      return { client, tools: listed.tools };
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
  };

  return {
    /** One server's tools as its agent's model would be offered them (the caller read the server already); 502 when it cannot be reached. */
    list: async (serverId: string, signal: AbortSignal): Promise<ListedMcpTool[]> => {
      const [server] = await calls.asService<ServerRow>(`${DECRYPTED} where id = $1`, [serverId, masterKey]);
      if (!server) throw aiErrors.notFound('MCP server');
      const timeoutMs = (await settings.number('MCP_TOOL_TIMEOUT')) * 1000;
      let opened: Awaited<ReturnType<typeof open>>;
      try {
        opened = await open(server, timeoutMs, signal);
      } catch (err) {
        throw aiErrors.mcpUnreachable(server.name, reason(err));
      }
      await opened.client.close().catch(() => undefined);
      return opened.tools.map((t) => ({ name: t.name, offered_as: namespacedName(server.name, t.name), description: t.description ?? null, input_schema: t.inputSchema as Record<string, unknown> }));
    },
    /** Connects to the agent's enabled servers and lists their tools; close() ends every connection. */
    connect: async (agentId: string, signal: AbortSignal, emit?: Emit): Promise<Connected> => {
      // The agent was read as the caller already; the headers are the server's to decrypt.
      const servers = await calls.asService<ServerRow>(`${DECRYPTED} where agent_id = $1 and enabled order by created_at, id`, [agentId, masterKey]);
      if (servers.length === 0) return { tools: [], close: async () => undefined };
      const timeoutMs = (await settings.number('MCP_TOOL_TIMEOUT')) * 1000;
      const maxOutput = await settings.number('MAX_TOOL_OUTPUT_LENGTH');
      const opened = await Promise.all(servers.map(async (server) => {
        try {
          return { server, ...(await open(server, timeoutMs, signal)) };
        } catch (err) {
          if (signal.aborted) throw err;
          emit?.({ type: 'mcp_error', server: server.name, server_id: server.id, error: `Could not reach MCP server ${server.name}: ${reason(err)}` });
          return null;
        }
      }));
      const tools: LoopTool[] = [];
      const seen = new Set<string>();
      for (const o of opened) {
        if (!o) continue;
        for (const t of o.tools) {
          const name = namespacedName(o.server.name, t.name);
          if (seen.has(name)) continue;
          seen.add(name);
          tools.push({
            chat: { type: 'function', function: { name, description: t.description ?? `${t.name} from MCP server ${o.server.name}`, parameters: t.inputSchema as Record<string, unknown> } },
            call: async (args, s): Promise<ToolOutcome> => {
              try {
                const result = await o.client.callTool({ name: t.name, arguments: (args ?? {}) as Record<string, unknown> }, undefined, { timeout: timeoutMs, signal: s });
                const text = textOf(result.content ?? ('toolResult' in result ? result.toolResult : null));
                const cut = text.length > maxOutput ? `${text.slice(0, maxOutput)}\n[output cut at ${maxOutput} characters]` : text;
                return result.isError ? { ok: false, error: `MCP tool ${t.name} failed: ${cut}` } : { ok: true, output: cut };
              } catch (err) {
                if (s.aborted) throw err;
                return { ok: false, error: `MCP server ${o.server.name}: ${reason(err)}` };
              }
            },
          });
        }
      }
      return {
        tools,
        close: async () => {
          await Promise.all(opened.map((o) => o?.client.close().catch(() => undefined)));
        },
      };
    },
  };
}

export type McpTools = ReturnType<typeof mcpTools>;
