// Runs one tool call of an agent (or a workflow's agent block): the builtins
// (builtin/<tool>.ts) and custom HTTP tools. The user the agent runs for is
// the caller everywhere (REST and storage in-process, so RLS and storage
// policies apply); outbound HTTP goes through the SSRF guard; code through
// the sandbox. A failure is a tool error the model reads, never a thrown
// crash. Output is cut at MAX_TOOL_OUTPUT_LENGTH.
import { Failure } from '../failures.ts';
import { builtinTool } from './builtin/index.ts';
import { toolHttp } from './http.ts';
import type { ToolCaller, ToolServices } from './types.ts';

export type { ToolCaller, ToolServices } from './types.ts';

export type ToolResult = { ok: true; output: string; truncated: boolean } | { ok: false; error: string };

/** A tool as assigned to an agent: a builtin with its override, or a custom tool with its config. */
export type AssignedTool =
  | { kind: 'builtin'; name: string; override: Record<string, unknown> }
  | { kind: 'custom'; name: string; config: Record<string, unknown> };

export function toolRunner(services: ToolServices) {
  /** Cuts the output to MAX_TOOL_OUTPUT_LENGTH characters. */
  const finish = async (value: unknown): Promise<ToolResult> => {
    const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
    const max = await services.settings.number('MAX_TOOL_OUTPUT_LENGTH');
    return text.length > max ? { ok: true, output: `${text.slice(0, max)}\n[output cut at ${max} characters]`, truncated: true } : { ok: true, output: text, truncated: false };
  };

  /** A custom tool: its endpoint called with the arguments (as the query for GET and HEAD, else as the JSON body). */
  const custom = async (name: string, c: Record<string, unknown>, args: Record<string, unknown>, signal: AbortSignal, key: string | undefined) => {
    if (typeof c.endpoint !== 'string' || !c.endpoint) throw new Failure(`Custom tool ${name} has no config.endpoint`);
    const timeout = typeof c.timeout_seconds === 'number' && c.timeout_seconds > 0 ? c.timeout_seconds : await services.settings.number('CUSTOM_TOOL_TIMEOUT');
    const method = typeof c.method === 'string' ? c.method.toUpperCase() : 'POST';
    const sendsBody = method !== 'GET' && method !== 'HEAD';
    const url = new URL(c.endpoint);
    if (!sendsBody) for (const [k, v] of Object.entries(args)) url.searchParams.set(k, typeof v === 'string' ? v : JSON.stringify(v));
    const res = await toolHttp(services, { url: url.toString(), method, headers: c.headers, ...(sendsBody ? { body: args } : {}), timeout_seconds: timeout }, timeout, signal, key);
    if (res.status >= 400) throw new Failure(`${name} answered HTTP ${res.status}: ${typeof res.body === 'string' ? res.body.slice(0, 500) : JSON.stringify(res.body).slice(0, 500)}`);
    return res.body;
  };

  return {
    /** One call of an assigned tool with the model's arguments. */
    run: async (tool: AssignedTool, rawArgs: unknown, caller: ToolCaller, signal: AbortSignal): Promise<ToolResult> => {
      const args = rawArgs && typeof rawArgs === 'object' && !Array.isArray(rawArgs) ? { ...(rawArgs as Record<string, unknown>) } : {};
      try {
        if (tool.kind === 'custom') return await finish(await custom(tool.name, tool.config, args, signal, caller.key));
        const def = builtinTool(tool.name);
        if (!def) throw new Failure(`Unknown tool ${tool.name}`);
        // A `parameters` override: its keys win over the model's arguments.
        const call = { args: def.override === 'parameters' ? { ...args, ...tool.override } : args, override: tool.override, caller, signal, services };
        return await finish(await def.run(call));
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        return { ok: false, error: err instanceof Failure ? message : `${tool.name} failed: ${message}` };
      }
    },
  };
}

export type ToolRunner = ReturnType<typeof toolRunner>;
