// Written by `npm run openapi` (server/cli/studio-types.ts): the AI surface's
// client types, one file per area, joined. Do not edit by hand.
import type * as Agents from './agents.ts';
import type * as Contexthandlers from './context-handlers.ts';
import type * as Copilot from './copilot.ts';
import type * as Knowledgebases from './knowledge-bases.ts';
import type * as Orchestrations from './orchestrations.ts';
import type * as Providerkeys from './provider-keys.ts';
import type * as Sessions from './sessions.ts';
import type * as Settings from './settings.ts';
import type * as Sources from './sources.ts';
import type * as Tools from './tools.ts';
import type * as Usage from './usage.ts';
import type * as Workflows from './workflows.ts';

export type paths = Agents.paths & Contexthandlers.paths & Copilot.paths & Knowledgebases.paths & Orchestrations.paths & Providerkeys.paths & Sessions.paths & Settings.paths & Sources.paths & Tools.paths & Usage.paths & Workflows.paths;
export type components = { schemas: Agents.components['schemas'] & Contexthandlers.components['schemas'] & Copilot.components['schemas'] & Knowledgebases.components['schemas'] & Orchestrations.components['schemas'] & Providerkeys.components['schemas'] & Sessions.components['schemas'] & Settings.components['schemas'] & Sources.components['schemas'] & Tools.components['schemas'] & Usage.components['schemas'] & Workflows.components['schemas'] };
