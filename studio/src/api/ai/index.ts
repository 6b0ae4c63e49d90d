// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type * as agents from './agents.ts';
import type * as agents_run from './agents-run.ts';
import type * as agents_mcp_servers from './agents-mcp-servers.ts';
import type * as agents_hooks from './agents-hooks.ts';
import type * as ai_provider_keys from './ai-provider-keys.ts';
import type * as config from './config.ts';
import type * as context_handlers from './context-handlers.ts';
import type * as copilot from './copilot.ts';
import type * as knowledge_bases from './knowledge-bases.ts';
import type * as knowledge_bases_build_bm25 from './knowledge-bases-build-bm25.ts';
import type * as knowledge_bases_enrichment from './knowledge-bases-enrichment.ts';
import type * as orchestrations from './orchestrations.ts';
import type * as orchestrations_run from './orchestrations-run.ts';
import type * as sessions from './sessions.ts';
import type * as settings from './settings.ts';
import type * as sources from './sources.ts';
import type * as sources_download from './sources-download.ts';
import type * as tools from './tools.ts';
import type * as usage from './usage.ts';
import type * as webhooks from './webhooks.ts';
import type * as workflows from './workflows.ts';
import type * as workflows_triggers from './workflows-triggers.ts';
import type * as workflows_executions from './workflows-executions.ts';

export type paths = agents.paths & agents_run.paths & agents_mcp_servers.paths & agents_hooks.paths & ai_provider_keys.paths & config.paths & context_handlers.paths & copilot.paths & knowledge_bases.paths & knowledge_bases_build_bm25.paths & knowledge_bases_enrichment.paths & orchestrations.paths & orchestrations_run.paths & sessions.paths & settings.paths & sources.paths & sources_download.paths & tools.paths & usage.paths & webhooks.paths & workflows.paths & workflows_triggers.paths & workflows_executions.paths;
export type { components } from './components.ts';
