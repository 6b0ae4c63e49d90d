// /api/settings, /api/ai-provider-keys, /api/tools, /api/usage, /api/copilot
// (spec 4.11, 4.16 to 4.18).
import { z } from 'zod';
import { SettingsPutBody, SettingsResetBody } from '../../ai/settings/routes.ts';
import { ProviderKeyBatch, ProviderKeyBody } from '../../ai/providers/keys.ts';
import { CreateTool, TryTool, UpdateTool } from '../../ai/tools/routes.ts';
import { UsageQuery } from '../../ai/usage/routes.ts';
import { CopilotChatBody, CopilotModelBody, CopilotSessionBody, CopilotSessionQuery, CopilotSnapshotBody } from '../../ai/copilot/routes.ts';
import { events, family, json, type Operation } from '../operation.ts';
import { AnyObject, CopilotEvent, CopilotSession, Deleted, Id, ProviderKey, Setting, Timestamp, Tool } from '../schemas.ts';

const settings = family({ tag: 'Settings', errorBody: 'ai', access: 'project' });
const keys = family({ tag: 'Provider keys', errorBody: 'ai', access: 'project' });
const tools = family({ tag: 'Tools', errorBody: 'ai', access: 'project' });
const usage = family({ tag: 'Usage', errorBody: 'ai', access: 'project' });
const copilot = family({ tag: 'Copilot', errorBody: 'ai', access: 'project' });
const serviceOnly = 'Changes need the service-role key (403 otherwise).';

export const projectOperations: Operation[] = [
  settings.get('/api/settings', 'Every setting of the registry, with categories', { operationId: 'listSettings', answers: [json(200, 'Settings (secrets masked) and categories', z.object({ settings: z.array(Setting), categories: z.array(AnyObject) }))] }),
  settings.put('/api/settings', 'Override settings (all or nothing)', { operationId: 'putSettings', description: serviceOnly, body: SettingsPutBody, answers: [json(200, 'The keys changed', z.object({ updated: z.array(z.unknown()) }))], errors: [400] }),
  settings.delete('/api/settings/{key}', 'Return a setting to its default', { operationId: 'resetSetting', description: serviceOnly, pathText: { key: 'A setting key' }, answers: [json(200, 'The key and its default', z.object({ key: z.string(), default: z.string() }))], errors: [404] }),
  settings.post('/api/settings/reset-category', 'Return a category to its defaults', { operationId: 'resetSettingsCategory', description: serviceOnly, body: SettingsResetBody, answers: [json(200, 'The keys reset', z.object({ category: z.string(), reset: z.array(z.string()) }))], errors: [400] }),

  keys.get('/api/ai-provider-keys', 'List provider keys (masked)', { operationId: 'listProviderKeys', answers: [json(200, 'Key records', z.array(ProviderKey))] }),
  keys.get('/api/ai-provider-keys/models', 'The models the router prices, by provider', {
    operationId: 'listModelCatalogue', description: 'Each model (a name prefix) with its price per million tokens in and out, and whether a key for its provider is stored (has_key; the platform\'s own keys are told by platform_supported).',
    answers: [json(200, 'The catalogue', z.array(z.object({ provider: z.string(), model: z.string(), input_per_million: z.number(), output_per_million: z.number(), has_key: z.boolean() })))],
  }),
  keys.get('/api/ai-provider-keys/platform_supported', 'Providers the platform holds a key for', { operationId: 'platformProviders', answers: [json(200, 'Providers', z.object({ providers: z.array(z.string()) }))] }),
  keys.post('/api/ai-provider-keys/validate', 'Check a key with its vendor; nothing is stored', { operationId: 'validateProviderKey', body: ProviderKeyBody, answers: [json(200, 'The verdict', z.object({ is_valid: z.boolean(), error: z.string().optional() }))], errors: [400] }),
  keys.post('/api/ai-provider-keys', 'Store a provider key', { operationId: 'putProviderKey', description: serviceOnly, body: ProviderKeyBody, answers: [json(201, 'Stored', ProviderKey), json(200, 'Replaced', ProviderKey)], errors: [400] }),
  keys.put('/api/ai-provider-keys', 'Store several provider keys (all or nothing)', { operationId: 'putProviderKeys', description: serviceOnly, body: ProviderKeyBatch, answers: [json(200, 'The stored records', z.array(ProviderKey))], errors: [400] }),
  keys.delete('/api/ai-provider-keys/{provider}', 'Remove a provider key', { operationId: 'deleteProviderKey', description: serviceOnly, pathText: { provider: 'openai, anthropic, gemini or openrouter' }, answers: [{ status: 204, description: 'Removed', empty: true }], errors: [400] }),

  tools.get('/api/tools', 'The builtin tools, then the custom ones you can see', { operationId: 'listTools', answers: [json(200, 'Tools', z.array(Tool))] }),
  tools.post('/api/tools', 'Create a custom tool', { operationId: 'createTool', body: CreateTool, answers: [json(201, 'The tool', Tool)], errors: [400] }),
  tools.get('/api/tools/{id}', 'Read a custom tool', { operationId: 'getTool', answers: [json(200, 'The tool', Tool)], errors: [404] }),
  tools.put('/api/tools/{id}', 'Change a custom tool', { operationId: 'updateTool', body: UpdateTool, answers: [json(200, 'The tool', Tool)], errors: [400, 404] }),
  tools.post('/api/tools/{id}/try', 'Call a custom tool outside a run', {
    operationId: 'tryTool',
    description: 'The arguments are checked against the tool\'s input_schema (400 naming the first problem), then the tool is called as an agent\'s run calls it: as you, through the outbound address check, its output cut at MAX_TOOL_OUTPUT_LENGTH. A failing call is an answer (ok false with the error the model would read), not an HTTP error.',
    body: TryTool,
    answers: [json(200, 'What the model would read', z.object({ ok: z.boolean(), output: z.string().optional(), truncated: z.boolean().optional(), error: z.string().optional(), duration_ms: z.number().int() }))],
    errors: [400, 404],
  }),
  tools.delete('/api/tools/{id}', 'Delete a custom tool', { operationId: 'deleteTool', answers: [json(200, 'Deleted', Deleted)], errors: [404] }),

  usage.get('/api/usage', 'Model calls with tokens and cost, with totals', { operationId: 'getUsage', query: UsageQuery, answers: [json(200, 'The report', AnyObject)], errors: [400] }),

  copilot.post('/api/copilot/sessions', 'Open (or reopen) your copilot session of a workflow', { operationId: 'openCopilotSession', body: CopilotSessionBody, bodyOptional: true, answers: [json(201, 'Opened', CopilotSession), json(200, 'Already open', CopilotSession)], errors: [400, 404] }),
  copilot.get('/api/copilot/sessions', 'Your copilot session of a workflow', { operationId: 'getCopilotSession', query: CopilotSessionQuery, answers: [json(200, 'The session', CopilotSession)], errors: [400, 404] }),
  copilot.delete('/api/copilot/sessions/{id}', 'Delete a copilot session', { operationId: 'deleteCopilotSession', answers: [json(200, 'Deleted', Deleted)], errors: [404] }),
  copilot.get('/api/copilot/sessions/{id}/messages', 'The session\'s history', { operationId: 'listCopilotMessages', answers: [json(200, 'Messages', z.array(AnyObject))], errors: [404] }),
  copilot.post('/api/copilot/sessions/{id}/messages/{mid}/snapshot', 'Save the editor state before applying a suggestion', { operationId: 'saveCopilotSnapshot', body: CopilotSnapshotBody, answers: [json(200, 'The snapshot', z.object({ message_id: Id, pre_snapshot: z.unknown(), post_snapshot: z.unknown(), saved_at: Timestamp }))], errors: [400, 404] }),
  copilot.post('/api/copilot/sessions/{id}/chat', 'Chat with the copilot about the workflow', { operationId: 'copilotChat', body: CopilotChatBody, bodyOptional: true, answers: [events('Server-sent events of spec 6.2', CopilotEvent)], errors: [400, 404] }),
  copilot.get('/api/copilot/settings/model', 'The copilot\'s model and the choices', { operationId: 'getCopilotModel', answers: [json(200, 'The model', z.looseObject({ model: z.string(), default: z.string(), options: z.array(z.unknown()) }))] }),
  copilot.put('/api/copilot/settings/model', 'Choose the copilot\'s model', { operationId: 'putCopilotModel', description: serviceOnly, body: CopilotModelBody, bodyOptional: true, answers: [json(200, 'The model', z.object({ model: z.string() }))], errors: [400] }),
];
