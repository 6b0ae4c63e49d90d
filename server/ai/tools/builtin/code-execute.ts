// code_execute: run JavaScript in the sandbox workflows use.
import { requiredString } from '../arguments.ts';
import type { BuiltinTool } from '../types.ts';

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
  override: 'parameters',
  run: async ({ args, services }) => {
    const { sandbox } = services;
    const asked = typeof args.timeout_ms === 'number' && args.timeout_ms > 0 ? args.timeout_ms : sandbox.timeoutMs;
    const result = await sandbox.pool.run({
      code: requiredString(args.code, 'code'), timeoutMs: Math.min(asked, sandbox.timeoutMs), memoryMb: sandbox.memoryMb,
      scope: { inputs: args.inputs && typeof args.inputs === 'object' ? args.inputs : {} },
    });
    return { result: result.value, logs: result.logs };
  },
};
