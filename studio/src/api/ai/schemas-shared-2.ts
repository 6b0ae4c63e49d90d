// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
export interface Schemas {
  CreateChatCompletionBody: {
    model: string;
    messages: ({
        /** @enum {string} */
        role: "system" | "developer" | "user" | "assistant" | "tool";
        content?: (string | {
            type: string;
            text?: string;
            [key: string]: unknown;
          }[]) | null;
        tool_calls?: {
            id: string;
            /** @constant */
            type?: "function";
            function: {
              name: string;
              arguments: string;
            };
          }[] | null;
        tool_call_id?: string;
        [key: string]: unknown;
      })[];
    stream?: boolean | null;
    stream_options?: ({
      include_usage?: boolean | null;
      [key: string]: unknown;
    }) | null;
    tools?: (({
        /** @constant */
        type: "function";
        function: {
          name: string;
          description?: string;
          parameters?: {
            [key: string]: unknown;
          };
          strict?: boolean | null;
        };
      })[]) | null;
    tool_choice?: (("none" | "auto" | "required") | {
      /** @constant */
      type: "function";
      function: {
        name: string;
      };
    }) | null;
    response_format?: ({
      /** @constant */
      type: "text";
      [key: string]: unknown;
    } | {
      /** @constant */
      type: "json_object";
      [key: string]: unknown;
    } | ({
      /** @constant */
      type: "json_schema";
      json_schema: {
        name: string;
        description?: string;
        schema?: {
          [key: string]: unknown;
        };
        strict?: boolean | null;
      };
    })) | null;
    [key: string]: unknown;
  };
  McpPostBody: {
    /** @constant */
    jsonrpc: "2.0";
    method?: string;
    id?: string | number;
    [key: string]: unknown;
  };
}
