// /api/tools (spec 2.5, 4.11): the builtin tools with their input schemas,
// then the custom ones the caller may see; custom tool CRUD; and a custom
// tool tried outside a run (its arguments checked against its input_schema,
// then called as an agent's run calls it: as the caller, through the SSRF
// guard, cut at MAX_TOOL_OUTPUT_LENGTH).
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import { actorOf } from '../actor.ts';
import { contextOf, type AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { idOf, parse } from '../parse.ts';
import { schemaCheck } from '../schema-check.ts';
import { BUILTIN_TOOLS } from './builtin/index.ts';
import { toolStore, type ToolRow } from './store.ts';
import type { ResourceSecrets } from './secrets.ts';
import type { ToolRunner } from './runner.ts';


// Only these persist: top-level endpoint_url, method and headers are dropped (spec 2.5).
const required = (name: string) => z.string({ error: `${name} is required` }).min(1, `${name} is required`);
export const CreateTool = z.object({
  name: required('name'),
  description: required('description'),
  type: required('type').max(50, 'type must be at most 50 characters'),
  input_schema: z.record(z.string(), z.unknown(), { error: 'input_schema is required (a JSON Schema object)' }),
  config: z.record(z.string(), z.unknown(), { error: 'config must be an object' }).optional(),
});
export const UpdateTool = CreateTool.partial();
export const TryTool = z.object({
  arguments: z.record(z.string(), z.unknown(), { error: 'arguments must be an object (the values the model would send)' }),
});

const customJson = (t: ToolRow) => ({ ...t, tool_type: 'custom' as const });

export function toolRoutes(calls: AiCalls, secrets: ResourceSecrets, runner: ToolRunner): Router {
  const r = express.Router();
  const tools = toolStore(calls, secrets);
  const toolId = (raw: unknown) => idOf(raw, 'Tool');

  r.get('/', route(async (req, res) => {
    const builtin = BUILTIN_TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema, tool_type: 'builtin' as const }));
    res.json([...builtin, ...(await tools.list(req)).map(customJson)]);
  }));

  r.post('/', route(async (req, res) => {
    const t = parse(CreateTool, req.body);
    res.status(201).json(customJson(await tools.create(req, { ...t, config: t.config ?? {} })));
  }));

  r.get('/:id', route(async (req, res) => {
    res.json(customJson(await tools.get(req, toolId(req.params.id))));
  }));

  r.put('/:id', route(async (req, res) => {
    const id = toolId(req.params.id);
    const t = parse(UpdateTool, req.body);
    if (Object.keys(t).length === 0) throw aiErrors.validation('No fields to update: send name, description, type, input_schema or config');
    res.json(customJson(await tools.update(req, id, t)));
  }));

  r.post('/:id/try', route(async (req, res) => {
    const id = toolId(req.params.id);
    const body = parse(TryTool, req.body);
    const t = await tools.forRun(req, id);
    const schema = t.input_schema && typeof t.input_schema === 'object' && !Array.isArray(t.input_schema) ? t.input_schema as Record<string, unknown> : {};
    const problem = schemaCheck(schema, 'input_schema', 'arguments')(body.arguments);
    if (problem) throw aiErrors.validation(`arguments do not match the tool's input_schema: ${problem}`);
    // The call ends with the request: a client that goes away stops it.
    const stop = new AbortController();
    res.on('close', () => stop.abort());
    const started = performance.now();
    const result = await runner.run({ kind: 'custom', name: t.name, config: t.config ?? {} }, body.arguments, { actor: actorOf(contextOf(req)) }, stop.signal);
    res.json({ ...result, duration_ms: Math.round(performance.now() - started) });
  }));

  r.delete('/:id', route(async (req, res) => {
    await tools.remove(req, toolId(req.params.id));
    res.json({ message: 'Tool deleted', id: req.params.id });
  }));

  return r;
}
