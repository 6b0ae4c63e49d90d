// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type * as schemas_agents from './schemas-agents.ts';
import type * as schemas_agents_2 from './schemas-agents-2.ts';
import type * as schemas_ai_provider_keys from './schemas-ai-provider-keys.ts';
import type * as schemas_config from './schemas-config.ts';
import type * as schemas_context_handlers from './schemas-context-handlers.ts';
import type * as schemas_copilot from './schemas-copilot.ts';
import type * as schemas_knowledge_bases from './schemas-knowledge-bases.ts';
import type * as schemas_orchestrations from './schemas-orchestrations.ts';
import type * as schemas_sessions from './schemas-sessions.ts';
import type * as schemas_settings from './schemas-settings.ts';
import type * as schemas_shared from './schemas-shared.ts';
import type * as schemas_shared_2 from './schemas-shared-2.ts';
import type * as schemas_sources from './schemas-sources.ts';
import type * as schemas_tools from './schemas-tools.ts';
import type * as schemas_webhooks from './schemas-webhooks.ts';
import type * as schemas_workflows from './schemas-workflows.ts';
import type * as schemas_workflows_2 from './schemas-workflows-2.ts';
import type * as responses_agents from './responses-agents.ts';
import type * as responses_shared from './responses-shared.ts';
import type * as responses_sources from './responses-sources.ts';
import type * as responses_webhooks from './responses-webhooks.ts';
import type * as responses_workflows from './responses-workflows.ts';

export interface components {
  schemas: schemas_agents.Schemas & schemas_agents_2.Schemas & schemas_ai_provider_keys.Schemas & schemas_config.Schemas & schemas_context_handlers.Schemas & schemas_copilot.Schemas & schemas_knowledge_bases.Schemas & schemas_orchestrations.Schemas & schemas_sessions.Schemas & schemas_settings.Schemas & schemas_shared.Schemas & schemas_shared_2.Schemas & schemas_sources.Schemas & schemas_tools.Schemas & schemas_webhooks.Schemas & schemas_workflows.Schemas & schemas_workflows_2.Schemas;
  responses: responses_agents.Responses & responses_shared.Responses & responses_sources.Responses & responses_webhooks.Responses & responses_workflows.Responses;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
