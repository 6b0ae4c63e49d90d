// code_execute: run JavaScript in the sandbox workflows use.
import type { BuiltinTool } from './index.ts';

export const codeExecute: BuiltinTool = {
  name: 'code_execute',
  description: 'Run JavaScript in an isolated sandbox (no network, no file system, time and memory limits) and return what it returns and logs.',
  inputSchema: {
    type: 'object',
    properties: {
      code: { type: 'string', description: 'The body of an async function; `return` a JSON value' },
      inputs: { type: 'object', description: 'Available to the code as `inputs`' },
      timeout_ms: { type: 'integer', minimum: 10, maximum: 60000 },
    },
    required: ['code'],
    additionalProperties: false,
  },
};
