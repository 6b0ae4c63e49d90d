// The copilot's tool parameters as JSON Schemas a function-calling model can
// follow without reading the descriptions, valid under OpenAI's strict
// function calling: every object closed (`additionalProperties: false`) with
// every property required, optional ones nullable, no free-form objects (a
// block's config, an agent's settings, a tool's input_schema and config are
// JSON text in strict form; an object is accepted too, from models that send
// one). Each modify_workflow operation is its own variant, `op` first.
import { BLOCK_HANDLERS } from '../workflows/engine/registry.ts';

type Schema = Record<string, unknown>;

export const nullable = (s: Schema): Schema => ({ anyOf: [{ type: 'null' }, s] });
/** A closed object: every property required (optional ones are nullable). */
export const closed = (properties: Record<string, Schema>): Schema => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false });
const str = (description?: string): Schema => ({ type: 'string', ...(description ? { description } : {}) });
const jsonText = (what: string): Schema => nullable(str(`${what} as JSON text of an object, or null for none`));
const position = nullable(closed({ x: { type: 'number' }, y: { type: 'number' } }));

export const BLOCK_TYPE_NAMES = [...BLOCK_HANDLERS.keys()];
const blockType = { type: 'string', enum: BLOCK_TYPE_NAMES };

const OPERATIONS: Schema[] = [
  closed({ op: { type: 'string', enum: ['add_block'] }, block: closed({ id: str('a new block id, unique in the workflow'), type: blockType, config: jsonText('the block config'), position }) }),
  closed({ op: { type: 'string', enum: ['remove_block'] }, id: str('the block to remove (its edges go too)') }),
  closed({
    op: { type: 'string', enum: ['update_block'] }, id: str('the block to change'), config: jsonText('config keys to merge in (all of it with replace)'),
    replace: nullable({ type: 'boolean' }), type: nullable(blockType), position,
  }),
  closed({ op: { type: 'string', enum: ['add_edge', 'remove_edge'] }, source: str('the block the edge leaves'), target: str('the block it enters') }),
];

const ASSET_TYPES = ['agent', 'tool', 'workflow', 'knowledge_base'];

/** Parameters of each copilot tool, by name. */
export const COPILOT_PARAMETERS: Record<string, Schema> = {
  modify_workflow: closed({ operations: { type: 'array', items: { anyOf: OPERATIONS } } }),
  get_block_info: closed({ type: nullable(blockType) }),
  get_db_schema: closed({}),
  list_project_assets: closed({ type: nullable({ type: 'string', enum: ASSET_TYPES }) }),
  get_asset_details: closed({ type: { type: 'string', enum: ASSET_TYPES }, id: str('the asset id') }),
  execute_public_sql: closed({ query: str('one SELECT over tables and views of schema public') }),
  get_workflow_run_logs: closed({ execution_id: nullable(str('one run of this workflow')), limit: nullable({ type: 'integer' }) }),
  manage_project_asset: closed({
    action: { type: 'string', enum: ['create', 'update'] },
    type: { type: 'string', enum: ['agent', 'tool'] },
    id: nullable(str('the asset to update')),
    fields: closed({
      name: nullable(str()), description: nullable(str('a tool\'s description')), model: nullable(str('an agent\'s model')),
      system_prompt: nullable(str('an agent\'s system prompt')), tool_type: nullable(str('a tool\'s type, such as http')),
      settings: jsonText('an agent\'s settings'), input_schema: jsonText('a tool\'s input JSON Schema'), config: jsonText('a tool\'s config'),
    }),
  }),
};

/** A value the model sent for a JSON-text field: parsed text, an object as it is, null or absent as undefined. */
export function jsonField(value: unknown, what: string): Record<string, unknown> | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  if (typeof value === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new Error(`${what} must be JSON text of an object`);
    }
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  }
  throw new Error(`${what} must be an object (or JSON text of one)`);
}

/** manage_project_asset's fields as the asset routes take them: nulls dropped, JSON text parsed, tool_type as type. */
export function assetFields(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === null || v === undefined) continue;
    if (k === 'settings' || k === 'input_schema' || k === 'config') out[k] = jsonField(v, `fields.${k}`);
    else if (k === 'tool_type') out.type = v;
    else out[k] = v;
  }
  return out;
}
