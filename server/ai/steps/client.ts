// What an OpenAI client (/api/v1) brings to an agent's run beside its
// messages, as the run keeps it (ai.agent_runs.client, sql/0107): its own
// tools and tool_choice, and its response_format. Checked at the edge by
// agents/client-request.ts.
type JsonObject = Record<string, unknown>;
export type ClientTool = { type: 'function'; function: { name: string; description?: string | undefined; parameters?: JsonObject | undefined; strict?: boolean | null | undefined } };
export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };
export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; description?: string | undefined; schema?: JsonObject | undefined; strict?: boolean | null | undefined } };
export type ClientRequest = { tools?: ClientTool[] | undefined; tool_choice?: ToolChoice | undefined; response_format?: ResponseFormat | undefined };
