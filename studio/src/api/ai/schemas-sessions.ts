// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface Schemas {
  Session: {
    /** Format: uuid */
    id: string;
    owner_id: string | null;
    agent_id: string | null;
    orchestration_id: string | null;
    title: string | null;
    summary: string | null;
    /** Format: date-time */
    created_at: string;
    /** Format: date-time */
    updated_at: string;
    [key: string]: unknown;
  };
  ListSessions200: components["schemas"]["Session"][];
  ListSessionMessages200: components["schemas"]["Message"][];
  ListSessionRuns200: components["schemas"]["RunRecord"][];
  GetRetrievedContext200: {
    /** Format: uuid */
    session_id: string;
    /** Format: uuid */
    run_id: string;
    retrieved_context: components["schemas"]["GetUsage200"][];
  };
}
