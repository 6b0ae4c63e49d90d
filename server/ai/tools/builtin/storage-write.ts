// storage_write: write an object through the storage layer as the user.
import type { BuiltinTool } from './index.ts';

export const storageWrite: BuiltinTool = {
  name: 'storage_write',
  description: 'Write a text object to storage as the signed-in user: storage policies and bucket rules apply.',
  inputSchema: {
    type: 'object',
    properties: {
      bucket: { type: 'string' },
      path: { type: 'string' },
      content: { type: 'string' },
      content_type: { type: 'string', default: 'text/plain' },
      upsert: { type: 'boolean', default: false },
    },
    required: ['bucket', 'path', 'content'],
    additionalProperties: false,
  },
};
